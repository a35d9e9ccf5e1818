"""Catalogue of bad inputs to ``ndarray/`` (issue 16, part 8; the lead's tests/test_catalogue.py
covers the rest). Each row: the call, the exception class it must raise (this library's
own, per ndarray/errors.py), and a regex on the message, which names the field, the value
and the expectation. Buffers handed to a call must come back unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from ndarray import (
    AclNdarrayError,
    ArgumentTypeError,
    ExportRefusedError,
    IndexOutOfRangeError,
    InvalidLayoutError,
    NdArray,
    NotRepresentableError,
    ReadOnlyError,
    ShapeDescriptor,
    UnsupportedOptionError,
)
from ndarray.formats import directml, dlpack, torch, xla

F32 = np.float32


def _ro():
    return NdArray.from_numpy(np.broadcast_to(F32(1), (2, 3)))


ROWS = [
    # ---- integer rule: bool and non-integers refused everywhere with ArgumentTypeError
    ("descriptor-bool-dimension", lambda: ShapeDescriptor((2, True)), ArgumentTypeError,
     r"shape\[1\] is True, a bool, expected an integer"),
    ("descriptor-float-dimension", lambda: ShapeDescriptor((2.0, 3)), ArgumentTypeError,
     r"shape\[0\] is 2.0 of type float, expected an integer"),
    ("descriptor-bool-stride", lambda: ShapeDescriptor((2, 3), strides=(3, True)), ArgumentTypeError,
     r"strides\[1\] is True, a bool, expected an integer"),
    ("descriptor-bool-offset", lambda: ShapeDescriptor((2,), strides=(1,), offset=False), ArgumentTypeError,
     r"offset is False, a bool, expected an integer"),
    ("descriptor-string-shape", lambda: ShapeDescriptor("2x3"), ArgumentTypeError,
     r"shape is '2x3', expected a sequence of integers"),
    ("descriptor-float-alloc-size", lambda: ShapeDescriptor((2,), strides=(1,), alloc_size=4.0), ArgumentTypeError,
     r"alloc_size is 4.0 of type float, expected an integer"),
    ("alignment-bool", lambda: NdArray.empty((2,), alignment_in_bytes=True), ArgumentTypeError,
     r"alignment_in_bytes is True, a bool, expected an integer"),
    ("torch-bool-dimension", lambda: torch.strides_for((1, True, 3, 4), "channels_last"), ArgumentTypeError,
     r"shape\[1\] is True, a bool, expected an integer"),
    ("torch-float-dims", lambda: torch.permute_layout((2, 3), (3, 1), (1.0, 0)), ArgumentTypeError,
     r"dims\[0\] is 1.0 of type float, expected an integer"),
    ("directml-bool-size", lambda: directml.BufferTensorDesc("FLOAT32", (2, False)), ArgumentTypeError,
     r"sizes\[1\] is False, a bool, expected an integer"),
    ("directml-bool-broadcast", lambda: directml.calculate_strides((2, 3), broadcast=(True,)), ArgumentTypeError,
     r"broadcast\[0\] is True, a bool, expected an integer"),
    ("shapeinfo-bool-entry", lambda: ShapeDescriptor.from_shape_info([1, True, 1, 8192, 1, 99]), ArgumentTypeError,
     r"shapeInfo\[1\] is True, a bool, expected an integer"),
    # ---- shapes bounded: elements and bytes fit int64
    ("descriptor-elements-overflow-int64", lambda: ShapeDescriptor((2**40, 2**40)), InvalidLayoutError,
     r"shape \(1099511627776, 1099511627776\) has 1208925819614629174706176 elements .* expected at most 2\*\*63 - 1"),
    ("descriptor-bytes-overflow-int64", lambda: ShapeDescriptor((2**61,), "float64"), InvalidLayoutError,
     r"has 2305843009213693952 elements \(18446744073709551616 bytes\), expected at most 2\*\*63 - 1 elements and bytes"),
    ("descriptor-padded-bytes-overflow-int64", lambda: ShapeDescriptor((2**30,), "float32", paddings=(2**61,)),
     InvalidLayoutError, r"alloc_size is 2305843010287435776 elements \(9223372041149743104 bytes\), expected "
     r"alloc_size_in_bytes <= 2\*\*63 - 1"),
    ("descriptor-stride-overflow-int64", lambda: ShapeDescriptor((2,), strides=(2**62,)), InvalidLayoutError,
     r"strides\[0\] is 4611686018427387904 elements \(18446744073709551616 bytes\)"),
    # ---- constructors
    ("ndarray-wrap-numpy-with-constructor", lambda: NdArray(np.zeros(3)), ArgumentTypeError,
     r"use NdArray.from_numpy\(array\)"),
    ("ndarray-allocate-not-descriptor", lambda: NdArray.allocate((2, 3)), ArgumentTypeError,
     r"descriptor must be a ShapeDescriptor, got tuple"),
    ("ndarray-from-numpy-list", lambda: NdArray.from_numpy([1, 2]), ArgumentTypeError,
     r"from_numpy expects a numpy.ndarray, got list"),
    ("ndarray-dtype-twice", lambda: NdArray((2,), "int8", dtype="int16"), ArgumentTypeError, r"dtype given twice"),
    ("ndarray-broadcast-incompatible", lambda: NdArray((2, 3)).broadcast_to((4, 4)), InvalidLayoutError,
     r"cannot broadcast \(2, 3\) to \(4, 4\)"),
    # ---- read-only
    ("setitem-read-only", lambda: _ro().__setitem__(0, 1), ReadOnlyError, r"assignment needs a writeable NdArray"),
    ("fill-read-only", lambda: _ro().fill(0), ReadOnlyError, r"fill needs a writeable NdArray"),
    ("ufunc-out-read-only", lambda: np.add(1, 1, out=_ro()[0]), ReadOnlyError, r"add.__call__ writes into a read-only NdArray"),
    ("fill-padding-read-only", lambda: _ro().fill_padding(0), ReadOnlyError, r"fill_padding needs a writeable NdArray"),
    # ---- numpy protocol
    ("array-copy-false-needs-copy", lambda: NdArray((2,)).__array__("float64", copy=False), NotRepresentableError,
     r"copy=False but dtype float64 differs from the elements' float32"),
    ("len-of-0d", lambda: len(NdArray(())), ArgumentTypeError, r"len\(\) of a 0-d NdArray"),
    # ---- options
    ("memory-format-unknown", lambda: NdArray((1, 2, 3, 4)).contiguous("nhwc"), UnsupportedOptionError,
     r"memory_format is 'nhwc' but expected one of \('contiguous', 'channels_last', 'channels_last_3d'\)"),
    ("memory-format-rank", lambda: NdArray((2, 3)).contiguous("channels_last"), InvalidLayoutError,
     r"shape has rank 2 but memory_format='channels_last' needs rank 4"),
    # ---- DLPack
    ("dlpack-negative-stride", lambda: NdArray((3, 2))[::-1].__dlpack__(), ExportRefusedError,
     r"strides\[0\] is -2, a negative stride: DLPack consumers such as PyTorch cannot import it"),
    ("dlpack-negative-stride-is-buffer-error", lambda: dlpack.from_dlpack(NdArray((3, 2))[:, ::-1]), BufferError,
     r"strides\[1\] is -1, a negative stride"),
    ("dlpack-export-ml-dtype", lambda: NdArray((2,), _bfloat16()).__dlpack__(), ExportRefusedError,
     r"numpy cannot export this NdArray through DLPack: .*bfloat16\[2\]"),
    ("dlpack-not-cpu", lambda: dlpack.from_dlpack(_FakeDevice()), NotRepresentableError,
     r"__dlpack_device__ is \(2, 0\), expected a CPU device \(1, 0\)"),
    # ---- PyTorch memory formats
    ("torch-nchw-as-channels-last", lambda: torch.to_channels_last_memory(np.zeros((1, 3, 4, 5), F32)),
     NotRepresentableError, r"C stride 20, expected 1 for torch.channels_last\): the memory is not NHWC. Use the "
                            r"array as it is with data_layout='NCHW'"),
    ("torch-channels-last-rank-3", lambda: torch.to_channels_last_memory(np.zeros((3, 4, 5), F32)), InvalidLayoutError,
     r"array has rank 3 but channels_last needs rank 4 \(NCHW\)"),
    # ---- XLA text: refused fields are named
    ("xla-unbounded-dynamic", lambda: xla.parse("f32[?,5]"), NotRepresentableError,
     r"dimensions \[\?,5\] has '\?', an unbounded dynamic dimension"),
    ("xla-sparse-layout", lambda: xla.parse("f32[8]{0:D(C)}"), NotRepresentableError,
     r"layout attribute 'D\(C\)' is sparse dim level types D\(...\)"),
    ("xla-physical-shape", lambda: xla.parse("f32[8]{0:P(s32[8]{0})}"), NotRepresentableError,
     r"is a physical shape P\(...\)"),
    ("xla-unknown-attribute", lambda: xla.parse("f32[8]{0:Q(1)}"), InvalidLayoutError,
     r"layout attribute 'Q\(1\)' is not supported, expected T\(...\) tiles, L\(n\)"),
    ("xla-memory-space-not-int", lambda: xla.parse("f32[8]{0:S(x)}"), InvalidLayoutError,
     r"memory_space 'S\(x\)' has 'x', expected an integer"),
    ("xla-unclosed-tuple", lambda: xla.parse("(f32[2], s32[]"), InvalidLayoutError,
     r"tuple '\(f32\[2\], s32\[\]' is missing its closing '\)'"),
    ("xla-packed-to-descriptor", lambda: xla.parse("s4[8]{0:E(4)}").to_shape_descriptor(), NotRepresentableError,
     r"element_size_in_bits E\(4\)|needs dtype int4, which numpy lacks"),
    ("xla-token-dtype", lambda: xla.parse("token[]").dtype, NotRepresentableError,
     r"element_type token has no numpy dtype"),
    ("xla-not-text", lambda: xla.parse(b"f32[2]"), ArgumentTypeError, r"text b'f32\[2\]' is not a string"),
    ("xla-index-out-of-range", lambda: xla.parse("f32[3,5]{1,0:T(2,2)}").linear_index((3, 0)), IndexOutOfRangeError,
     r"index\[0\] is 3, expected 0 <= index\[0\] < 3"),
    ("descriptor-index-rank", lambda: ShapeDescriptor((2, 3)).element_offset((1,)), IndexOutOfRangeError,
     r"index has 1 entries but shape has rank 2"),
]


def _bfloat16():
    return pytest.importorskip("ml_dtypes", reason="ml_dtypes (optional) gives numpy a bfloat16").bfloat16


class _FakeDevice:
    """A DLPack producer on a GPU (kDLCUDA = 2)."""

    def __dlpack_device__(self):
        return (2, 0)


@pytest.mark.parametrize("name, call, error, match", ROWS, ids=[r[0] for r in ROWS])
def test_bad_input(name, call, error, match):
    with pytest.raises(error, match=match) as info:
        call()
    assert isinstance(info.value, AclNdarrayError), type(info.value).__mro__  # always the library's own


def test_every_row_names_a_distinct_case():
    assert len({r[0] for r in ROWS}) == len(ROWS) >= 30
