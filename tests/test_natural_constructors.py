"""Issue 16, part 2: the natural calls ``ShapeDescriptor(shape, dtype, ...)`` and
``NdArray(shape, dtype=...)`` go through the one canonicalising factory; the historical
forms (``ShapeDescriptor.create``, ``NdArray(allocation, descriptor)``...) keep working."""

import pickle

import numpy as np
import pytest

from ndarray import ArgumentTypeError, InvalidLayoutError, NdArray, ShapeDescriptor


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (((2, 2, 5, 5), "float32"), {}),
        (((2, 3), "int8", "f"), {}),
        (((2, 3),), dict(paddings=(1, 2), padding_offsets=(0, 1))),
        (((3, 2), "float32"), dict(strides=(1, 3))),
        (((2, 3), "float32"), dict(strides=(8, 1), offset=2, alloc_size=16)),
        (((4,), "uint8"), dict(strides=(-1,), offset=3)),
    ],
)
def test_natural_call_is_the_factory(args, kwargs):
    natural = ShapeDescriptor(*args, **kwargs)
    factory = ShapeDescriptor.create(*args, **kwargs)
    assert natural == factory and hash(natural) == hash(factory)
    assert repr(natural) == repr(factory)
    assert pickle.loads(pickle.dumps(natural)) == natural


def test_equal_layouts_from_different_calls_are_one_value():
    padded = ShapeDescriptor((2, 3), "float32", paddings=(1, 2), padding_offsets=(1, 1))
    strided = ShapeDescriptor((2, 3), "float32", strides=(5, 1), offset=6, alloc_size=15)
    assert padded == strided and hash(padded) == hash(strided) and len({padded, strided}) == 1
    # a layout that is dense in 'f' gets order 'f' whatever the preference
    assert ShapeDescriptor((2, 3), strides=(1, 2)) == ShapeDescriptor((2, 3), order="f")


def test_shape_may_be_an_int_as_in_numpy():
    assert ShapeDescriptor(5, "int16") == ShapeDescriptor((5,), "int16")
    assert NdArray(5).shape == (5,)


def test_descriptor_is_still_frozen():
    d = ShapeDescriptor((2, 3))
    with pytest.raises(AttributeError):
        d.shape = (3, 2)  # type: ignore[misc]


def test_ndarray_natural_call():
    a = NdArray((2, 3))
    assert a.shape == (2, 3) and a.dtype == np.float32 and a.descriptor == ShapeDescriptor((2, 3))
    assert a.base_ptr % 64 == 0 and not a.allocation.any()  # aligned and zero-filled
    b = NdArray((2, 3), dtype="int16", order="f")
    assert b.dtype == np.int16 and b.descriptor.order == "f"
    c = NdArray((2, 3), "uint8", paddings=(1, 2), padding_offsets=(0, 1))
    assert c.descriptor.paddings == (1, 2) and c.allocation.nbytes == 3 * 5
    assert c.padding_is_free


def test_ndarray_historical_forms_unchanged():
    d = ShapeDescriptor.create((2, 3), "float32", paddings=(0, 1))
    raw = np.zeros(d.alloc_size_in_bytes, np.uint8)
    a = NdArray(raw, d)
    assert a.descriptor is d and a.base_ptr == raw.ctypes.data and not a.readonly
    assert NdArray(raw, d, readonly=True).readonly
    for made in (NdArray.allocate(d), NdArray.empty((2, 3)), NdArray.zeros((2, 3)), NdArray.full((2, 3), 1.0),
                 NdArray.from_numpy(np.ones((2, 3), np.float32))):
        assert made.shape == (2, 3)
        assert made.numpy().shape == (2, 3) and made.buffer().ndim == 1 and made.padding_mask().ndim == 1
        assert made.data_ptr == made.base_ptr + made.descriptor.offset_in_bytes


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: NdArray(np.zeros((2, 3))), ArgumentTypeError, r"use NdArray.from_numpy\(array\) to wrap a numpy array"),
        (lambda: NdArray(np.zeros(24, np.uint8), "float32"), ArgumentTypeError, r"the second argument must be a ShapeDescriptor"),
        (lambda: NdArray(ShapeDescriptor((2,))), ArgumentTypeError, r"NdArray.allocate\(descriptor\)"),
        (lambda: NdArray((2, 3), "float32", dtype="int8"), ArgumentTypeError, r"dtype given twice"),
        (lambda: NdArray(np.zeros(8, np.uint8), ShapeDescriptor((2,)), dtype="int8"), ArgumentTypeError,
         r"NdArray\(allocation, descriptor\) takes only readonly="),
        (lambda: NdArray((2, 2.5)), ArgumentTypeError, r"shape\[1\] is 2.5 of type float, expected an integer"),
        (lambda: NdArray((2, -3)), InvalidLayoutError, r"shape\[1\] is -3, expected a size >= 0"),
        (lambda: ShapeDescriptor((2, 3), "float32", paddings=(1,)), InvalidLayoutError, r"paddings has 1 entries"),
        (lambda: ShapeDescriptor((2**62, 4), "float32"), InvalidLayoutError,
         r"shape \(4611686018427387904, 4\) has 18446744073709551616 elements .* expected at most 2\*\*63 - 1"),
        (lambda: ShapeDescriptor((2**31, 2**31), "float64"), InvalidLayoutError,
         r"has 4611686018427387904 elements \(36893488147419103232 bytes\), expected at most 2\*\*63 - 1 elements and bytes"),
        (lambda: ShapeDescriptor((2,), "float32", strides=(2**62,)), InvalidLayoutError,
         r"strides\[0\] is 4611686018427387904 elements \(18446744073709551616 bytes\), expected \|strides_in_bytes\| <= 2\*\*63 - 1"),
        (lambda: ShapeDescriptor((1,), "float32", strides=(1,), alloc_size=2**62), InvalidLayoutError,
         r"alloc_size is 4611686018427387904 elements .* expected alloc_size_in_bytes <= 2\*\*63 - 1"),
    ],
)
def test_bad_natural_calls(call, error, match):
    with pytest.raises(error, match=match):
        call()
