"""ShapeDescriptor and NdArray: behaviour, derived facts and every error message."""

import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndarray import ArgumentTypeError, ReadOnlyError, InvalidLayoutError, NdArray, NotRepresentableError, ShapeDescriptor
from ndarray.formats.dlpack import from_dlpack


def test_dense_c_order_derived_facts():
    d = ShapeDescriptor.create((3, 4, 2))
    assert d.strides == (8, 2, 1)  # the ADR's [3,4,2] example
    assert d.strides_in_bytes == (32, 8, 4)
    assert (d.offset, d.alloc_size, d.alloc_size_in_bytes) == (0, 24, 96)
    assert d.ews == 1 and d.is_contiguous() and not d.is_contiguous("f")
    assert not d.has_padded_buffer and not d.overlaps


def test_fortran_order():
    d = ShapeDescriptor.create((3, 4, 2), "float64", "f")
    assert d.strides == (1, 3, 12) and d.is_contiguous("f") and d.ews == 1


def test_padded_buffer_fields_and_offsets():
    d = ShapeDescriptor.create((2, 3), paddings=(1, 2), padding_offsets=(1, 1))
    assert d.padded_shape == (3, 5)
    assert d.strides == (5, 1)
    assert d.offset == 1 * 5 + 1
    assert d.alloc_size == 15
    assert d.has_padded_buffer and d.ews == 0
    assert d.element_offset((1, 2)) == 6 + 5 + 2


def test_strides_are_canonicalised_to_paddings():
    padded = ShapeDescriptor.create((2, 3), paddings=(1, 2), padding_offsets=(1, 1))
    same = ShapeDescriptor.create((2, 3), strides=(5, 1), offset=6, alloc_size=15)
    assert same == padded and hash(same) == hash(padded)
    assert same.explicit is None


def test_f_order_strides_get_f_order():
    d = ShapeDescriptor.create((3, 4), strides=(1, 3))
    assert d.order == "f" and d.explicit is None


def test_explicit_layouts_keep_their_strides():
    d = ShapeDescriptor.create((3, 4), strides=(-4, 1), offset=8)
    assert d.explicit is not None and d.strides == (-4, 1) and d.offset == 8 and d.alloc_size == 12
    assert not d.has_padded_buffer


def test_overlap_detection():
    assert ShapeDescriptor.create((3, 4), strides=(0, 1)).overlaps
    assert ShapeDescriptor.create((3, 4), strides=(2, 1)).overlaps  # rows share elements
    assert not ShapeDescriptor.create((3, 4), strides=(1, 3)).overlaps
    # interleaved but disjoint: the cheap test is inconclusive, enumeration decides
    assert not ShapeDescriptor.create((2, 2), strides=(1, 2), alloc_size=4).overlaps
    assert ShapeDescriptor.create((2, 3), strides=(2, 1)).overlaps


def test_descriptor_is_frozen():
    d = ShapeDescriptor.create((2,))
    with pytest.raises(AttributeError):
        d.shape = (3,)


def test_repr_is_compact():
    d = ShapeDescriptor.create((2, 2, 5, 5), paddings=(0, 0, 1, 1))
    assert repr(d) == "ShapeDescriptor(float32[2,2,5,5]:(72,36,6,1) +0 /144 c paddings=(0,0,1,1)@(0,0,0,0))"


@pytest.mark.parametrize("code", [">f4", "<f4", ">i2", "<u8", ">c8"])
def test_a_dtype_keeps_and_prints_its_byte_order(code):
    """A big-endian buffer is described as it is (from_numpy wraps it, values as numpy reads
    them) and printed with numpy's code, so two descriptors that differ never print alike."""
    x = np.arange(6, dtype=code).reshape(2, 3)
    a = NdArray.from_numpy(x)
    assert a.dtype == x.dtype and np.array_equal(a.numpy(), x) and a.numpy().dtype.str == x.dtype.str
    native = ShapeDescriptor((2, 3), x.dtype.newbyteorder("="))
    assert repr(native) == f"ShapeDescriptor({native.dtype.name}[2,3]:(3,1) +0 /6 c)"
    if x.dtype.isnative:
        assert a.descriptor == native
    else:
        assert a.descriptor != native
        assert repr(a.descriptor) == f"ShapeDescriptor({code}[2,3]:(3,1) +0 /6 c)" != repr(native)
        assert code in repr(a)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(shape=(2, 3, 4, 5), strides=(60, 20, 5)),
         r"strides has 3 entries but shape has rank 4: shape=\(2, 3, 4, 5\), strides=\(60, 20, 5\)"),
        (dict(shape=(2, -1)), r"shape\[1\] is -1, expected a size >= 0"),
        (dict(shape=(2, 3), paddings=(1,)), r"paddings has 1 entries but shape has rank 2"),
        (dict(shape=(2, 3), paddings=(-1, 0)), r"paddings\[0\] is -1, expected >= 0"),
        (dict(shape=(2, 3), paddings=(1, 1), padding_offsets=(2, 0)),
         r"padding_offsets\[0\] is 2, expected 0 <= padding_offsets\[0\] <= paddings\[0\] = 1"),
        (dict(shape=(2, 3), strides=(3, 1), alloc_size=5),
         r"reaches element 5, past the end of the allocation of alloc_size 5 \(expected < 5\)"),
        (dict(shape=(2, 3), strides=(-3, 1)), r"reaches element -3, before the start of the allocation"),
        (dict(shape=(2, 3), strides=(3, 1), paddings=(0, 0)), r"give either paddings/padding_offsets or strides"),
        (dict(shape=(2, 3), order="k"), r"order must be 'c' or 'f', got 'k'"),
        (dict(shape=(2, 3), dtype=object), r"dtype is dtype\('O'\), expected a numeric or boolean scalar dtype"),
    ],
)
def test_invalid_descriptors(kwargs, match):
    with pytest.raises(InvalidLayoutError, match=match):
        ShapeDescriptor.create(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(shape=(2, 3.5)), r"shape\[1\] is 3.5 of type float, expected an integer"),
        (dict(shape=(2, True)), r"shape\[1\] is True, a bool, expected an integer"),
        (dict(shape=(2, 3), strides=(3, False)), r"strides\[1\] is False, a bool, expected an integer"),
        (dict(shape=(2, 3), paddings=(np.bool_(True), 0)), r"paddings\[0\] is .*True.*, a bool"),
        (dict(shape=(2, 3), strides=(3, 1), offset=True), r"offset is True, a bool, expected an integer"),
        (dict(shape="23"), r"shape is '23', expected a sequence of integers"),
    ],
)
def test_wrong_types_are_argument_type_errors(kwargs, match):
    with pytest.raises(ArgumentTypeError, match=match):
        ShapeDescriptor.create(**kwargs)


def test_element_offset_errors():
    d = ShapeDescriptor.create((2, 3))
    with pytest.raises(IndexError, match=r"index\[1\] is 3, expected 0 <= index\[1\] < 3"):
        d.element_offset((0, 3))
    with pytest.raises(IndexError, match=r"index has 1 entries but shape has rank 2"):
        d.element_offset((0,))


# ---------------------------------------------------------------- NdArray


def test_empty_is_aligned_and_padded():
    a = NdArray.empty((2, 2, 5, 5), paddings=(0, 0, 1, 1))
    assert a.base_ptr % 64 == 0
    assert a.allocation.nbytes == 576
    assert a.data_ptr == a.base_ptr


def test_full_fills_elements_and_padding_separately():
    a = NdArray.full((2, 3), 7.0, paddings=(1, 2), padding_offsets=(1, 1), padding_value=-1.0)
    buf = a.buffer().reshape(3, 5)
    expected = np.full((3, 5), -1.0, np.float32)
    expected[1:3, 1:4] = 7.0
    np.testing.assert_array_equal(buf, expected)
    assert a.padding_mask().sum() == 15 - 6


def test_numpy_view_is_zero_copy_and_excludes_padding():
    a = NdArray.zeros((2, 3), paddings=(0, 2))
    v = a.numpy()
    v[...] = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(a.buffer(), [0, 1, 2, 0, 0, 3, 4, 5, 0, 0])
    assert np.shares_memory(v, a.allocation)


def test_fill_padding_never_touches_elements():
    a = NdArray.zeros((2, 3), paddings=(1, 1), padding_offsets=(1, 0))
    a.numpy()[...] = 5
    a.fill_padding(9)
    np.testing.assert_array_equal(a.numpy(), np.full((2, 3), 5))
    assert (a.buffer()[a.padding_mask()] == 9).all()


def test_from_numpy_wraps_without_copy_negative_strides():
    x = np.arange(24.0).reshape(2, 3, 4)
    v = x[:, ::-1, 1:3]
    a = NdArray.from_numpy(v)
    assert a.descriptor.strides == (12, -4, 1)
    # the allocation is x's whole buffer; element (0,0,0) is x[0,2,1], linear index 9
    assert a.descriptor.offset == 9 and a.descriptor.alloc_size == 24
    np.testing.assert_array_equal(a.numpy(), v)
    a.numpy()[0, 0, 0] = -1
    assert x[0, 2, 1] == -1


def test_from_numpy_of_a_slice_recovers_the_padded_buffer():
    x = np.zeros((6, 10), np.float32)
    a = NdArray.from_numpy(x[1:5, 2:7])
    assert a.descriptor.paddings == (2, 5) and a.descriptor.padding_offsets == (1, 2)
    assert a.base_ptr == x.ctypes.data and a.allocation.nbytes == x.nbytes


def test_from_numpy_without_a_dense_owner_spans_only_the_elements():
    raw = np.arange(40, dtype=np.float32)
    strided = np.lib.stride_tricks.as_strided(raw[4:], shape=(3, 2), strides=(40, 4))
    a = NdArray.from_numpy(strided)
    np.testing.assert_array_equal(a.numpy(), strided)


@pytest.mark.parametrize("arr", [np.zeros((2, 0, 3)), np.array(3.5), np.arange(4.0)[2, ...]],
                         ids=["empty", "0-d", "0-d-owner"])
def test_from_numpy_empty_and_0d(arr):
    a = NdArray.from_numpy(arr)
    assert a.shape == arr.shape
    np.testing.assert_array_equal(a.numpy(), arr)


def test_from_numpy_fortran_and_broadcast():
    f = NdArray.from_numpy(np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    assert f.descriptor.order == "f" and f.descriptor.strides == (1, 2)
    b = NdArray.from_numpy(np.broadcast_to(np.arange(3.0), (4, 3)))
    assert b.descriptor.strides == (0, 1) and b.descriptor.overlaps and b.readonly


def test_from_numpy_readonly_stays_readonly():
    x = np.arange(4.0)
    x.flags.writeable = False
    a = NdArray.from_numpy(x)
    assert a.readonly and not a.numpy().flags.writeable
    with pytest.raises(ReadOnlyError, match="needs a writeable NdArray"):
        a.fill_padding(0)


def test_views_share_the_allocation():
    a = NdArray.from_numpy(np.arange(24.0).reshape(2, 3, 4))
    ref = a.numpy()
    for view, expected in [
        (a[1], ref[1]),
        (a[:, ::2, ::-1], ref[:, ::2, ::-1]),
        (a.transpose(2, 0, 1), ref.transpose(2, 0, 1)),
        (a.reshape(6, 4), ref.reshape(6, 4)),
        (a.broadcast_to((5, 2, 3, 4)), np.broadcast_to(ref, (5, 2, 3, 4))),
        (a[1, 2, 3, ...], ref[1, 2, 3, ...]),  # a 0-d view (a[1, 2, 3] is the element)
    ]:
        assert view.allocation.ctypes.data == a.allocation.ctypes.data
        np.testing.assert_array_equal(view.numpy(), expected)


def test_slicing_a_padded_buffer_stays_a_padded_buffer():
    a = NdArray.zeros((4, 6), paddings=(0, 2))
    v = a[1:3, 2:5]
    assert v.descriptor.explicit is None
    assert v.descriptor.paddings == (2, 5) and v.descriptor.padding_offsets == (1, 2)


def test_reshape_that_needs_a_copy_is_refused():
    a = NdArray.from_numpy(np.arange(24.0).reshape(2, 3, 4)).transpose(2, 0, 1)
    with pytest.raises(NotRepresentableError, match=r"reshape from \(4, 2, 3\) to \(24,\) needs a copy"):
        a.reshape(24)


@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.lists(st.integers(0, 1), min_size=4, max_size=4),
       st.permutations(range(4)), st.lists(st.integers(1, 3), min_size=4, max_size=4),
       st.sampled_from([(-1,), (1, -1), (-1, 2), (2, -1, 1), (-1, 1, 1)]))
def test_reshape_refuses_exactly_where_numpy_copies(dims, trims, perm, steps, target):
    """NdArray.reshape's bounds test (np.may_share_memory) refuses exactly the reshapes where
    numpy's own would copy (np.shares_memory, the exact test it replaced): padded buffers,
    their slices with steps, transposes."""
    dims = (dims + [1, 1, 1])[:4]
    a = NdArray.zeros(tuple(d * s for d, s in zip(dims, steps)), "float32", paddings=(0, 0, 1, 2))
    view = a[tuple(slice(t, None, s) for t, s in zip(trims, steps))].transpose(*perm)
    elements = view.numpy()
    try:
        wanted = elements.reshape(target)
    except ValueError:  # no such shape (-1 does not divide): numpy's refusal, not ours
        return
    if wanted.size and not np.shares_memory(wanted, elements):
        with pytest.raises(NotRepresentableError, match="needs a copy"):
            view.reshape(target)
    else:
        got = view.reshape(target)
        assert got.shape == wanted.shape
        np.testing.assert_array_equal(got.numpy(), wanted)


def test_contiguous_copies_in_the_requested_order():
    a = NdArray.from_numpy(np.arange(6.0).reshape(2, 3)).transpose()
    c = a.contiguous("c")
    assert c.descriptor.strides == (2, 1) and c.base_ptr != a.base_ptr
    np.testing.assert_array_equal(c.numpy(), a.numpy())
    f = a.contiguous("f", paddings=(1, 0))
    assert f.descriptor.order == "f" and f.descriptor.strides == (1, 4)
    np.testing.assert_array_equal(f.numpy(), a.numpy())


def test_dlpack_round_trip_keeps_memory():
    a = NdArray.full((2, 3), 1.5, paddings=(0, 2))
    b = from_dlpack(a)
    assert b.data_ptr == a.data_ptr
    assert b.descriptor.strides == (5, 1)
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    n = from_dlpack(np.arange(12, dtype=np.int32).reshape(3, 4)[1:, ::2])
    np.testing.assert_array_equal(n.numpy(), [[4, 6], [8, 10]])
    assert n.descriptor.strides == (4, 2)


def test_from_numpy_rejects_unaligned_strides():
    raw = np.zeros(40, np.uint8)
    odd = np.lib.stride_tricks.as_strided(raw.view(np.float32), shape=(3,), strides=(6,))
    with pytest.raises(NotRepresentableError, match=r"strides\[0\] is 6 bytes, not a multiple of the itemsize 4"):
        NdArray.from_numpy(odd)


def test_ndarray_rejects_short_allocation():
    d = ShapeDescriptor.create((4,))
    with pytest.raises(InvalidLayoutError, match=r"allocation has 8 bytes but the descriptor needs alloc_size_in_bytes 16"):
        NdArray(np.zeros(8, np.uint8), d)


@given(st.lists(st.integers(0, 7), min_size=0, max_size=5),
       st.sampled_from(["float32", "int8", "int32", "uint8", "float16", np.dtype("float64")]))
def test_dense_is_the_value_create_gives(shape, dtype):
    """ShapeDescriptor.dense, the quick way to a dense C-order buffer, gives exactly create()'s value."""
    d, c = ShapeDescriptor.dense(tuple(shape), dtype), ShapeDescriptor.create(tuple(shape), dtype)
    assert d == c and hash(d) == hash(c)
    assert (d.strides, d.offset, d.alloc_size) == (c.strides, 0, d.size)


@pytest.mark.parametrize("shape, dtype, error", [
    ((2, -1), "float32", InvalidLayoutError),  # through create(): a negative size
    ([2, 3], "float32", None),  # a list: create() canonicalises it
    ((2, 3), "object", InvalidLayoutError),
    ((2, 3), "no such dtype", InvalidLayoutError),
    ((2**40, 2**30), "float32", InvalidLayoutError),  # 2**70 elements: past int64
    ((2**31, 2**31), "float64", InvalidLayoutError),  # 2**62 elements, 2**65 bytes
    ((0, 2**62, 4), "float32", InvalidLayoutError),  # no element, but strides[0] past int64
    ((2**31, 2**31 - 1), "int8", None),  # just inside int64: the quick path's own bound
])
def test_dense_refuses_what_create_refuses(shape, dtype, error):
    if error is None:
        assert ShapeDescriptor.dense(shape, dtype) == ShapeDescriptor.create(shape, dtype)
    else:
        with pytest.raises(error):
            ShapeDescriptor.dense(shape, dtype)


@given(st.lists(st.integers(0, 2**21), min_size=0, max_size=6),
       st.sampled_from(["float32", "int8", "int64", np.dtype("complex128")]))
def test_dense_of_large_shapes_is_create_or_its_refusal(shape, dtype):
    """ShapeDescriptor.dense checks bounds without the general path where the bytes fit int64:
    over shapes whose element count straddles 2**63, the same value or the same refusal as create()."""
    try:
        c = ShapeDescriptor.create(tuple(shape), dtype)
    except InvalidLayoutError as e:
        with pytest.raises(InvalidLayoutError, match=re.escape(str(e).split(":")[0])):
            ShapeDescriptor.dense(tuple(shape), dtype)
        return
    d = ShapeDescriptor.dense(tuple(shape), dtype)
    assert d == c and hash(d) == hash(c)
    assert (d.size, d.strides, d.alloc_size, d.alloc_size_in_bytes) == (c.size, c.strides, c.alloc_size, c.alloc_size_in_bytes)


@st.composite
def _views(draw):
    """A padded NdArray (either order, any dtype size) and a basic index or transpose of it."""
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    paddings = tuple(draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank)))
    offsets = tuple(draw(st.integers(0, p)) for p in paddings)
    a = NdArray.empty(shape, draw(st.sampled_from(["float32", "int8", "float64"])), draw(st.sampled_from("cf")),
                      paddings=paddings, padding_offsets=offsets)
    key = tuple(draw(st.one_of(st.integers(0, n - 1), st.builds(slice, st.integers(0, n), st.integers(0, n),
                                                                  st.sampled_from([None, 1, 2, -1]))))
                for n in shape[:draw(st.integers(1, rank))])
    return a, key, draw(st.booleans())


@given(_views())
def test_a_views_descriptor_is_the_factorys(case):
    """NdArray views (indexing, transpose) read a padded buffer's fields off directly
    (descriptor.padded_view) where the factory's first candidate would: the same descriptor as
    ShapeDescriptor(shape, dtype, order, strides=, offset=, alloc_size=) of the numpy view."""
    a, key, transpose = case
    v = a[key]
    if not isinstance(v, NdArray):
        return  # an element
    if transpose:
        v = v.T
    e = np.asarray(v)
    itemsize = e.dtype.itemsize
    start = a.base_ptr
    general = ShapeDescriptor(e.shape, e.dtype, a.descriptor.order, strides=tuple(s // itemsize for s in e.strides),
                              offset=(e.__array_interface__["data"][0] - start) // itemsize if e.size else 0,
                              alloc_size=a.allocation.nbytes // itemsize if e.size else 0)
    assert v.descriptor == general and hash(v.descriptor) == hash(general)
    assert (v.descriptor.order, v.descriptor.explicit) == (general.order, general.explicit)
    # the derived facts padded_view fills in beside the fields are the ones the factory's value computes
    assert _derived(v.descriptor) == _derived(general)
    np.testing.assert_array_equal(np.asarray(v), e)


def _derived(d: ShapeDescriptor) -> tuple:
    return (d.size, d.padded_shape, d.strides, d.strides_in_bytes, d.offset, d.offset_in_bytes, d.alloc_size,
            d.alloc_size_in_bytes, d.overlaps, d.has_padded_buffer, d.ews)


@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_padded_view_is_the_factorys_value_for_any_fields(shape, data):
    """descriptor.padded_view on fields no view gave (offsets anywhere, negative ones and
    allocations too small included): the factory's value where it gives one, with the same
    derived facts, else the factory's refusal or None (not a padded buffer)."""
    from ndarray.descriptor import padded_view
    from ndarray.strides import dense_strides

    rank = len(shape)
    order = data.draw(st.sampled_from("cf"))
    if data.draw(st.booleans()):  # a padded box's dense strides, the allocation some whole outer rows
        padded = tuple(n + data.draw(st.integers(0, 3)) for n in shape)
        strides = dense_strides(padded, order)
        outer = max(range(rank), key=lambda i: strides[i])
        alloc_size = strides[outer] * (padded[outer] + data.draw(st.integers(-1, 2)))
    else:
        strides = tuple(data.draw(st.lists(st.integers(1, 40), min_size=rank, max_size=rank)))
        alloc_size = data.draw(st.integers(1, 400))
    offset = data.draw(st.integers(-5, alloc_size + 5))
    dtype = np.dtype(data.draw(st.sampled_from(["float32", "int8"])))
    try:
        made = padded_view(tuple(shape), dtype, order, strides, offset, alloc_size)
    except InvalidLayoutError:
        with pytest.raises(InvalidLayoutError):
            ShapeDescriptor(tuple(shape), dtype, order, strides=strides, offset=offset, alloc_size=alloc_size)
        return
    if made is None:
        return  # not a padded buffer in this order: the caller asks the factory
    general = ShapeDescriptor(tuple(shape), dtype, order, strides=strides, offset=offset, alloc_size=alloc_size)
    assert made == general and _derived(made) == _derived(general)
