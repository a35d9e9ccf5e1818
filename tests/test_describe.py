"""A tensor's description for the planner (acl_bridge.executor.describe_request and
acl_bridge.mapping.tensor_info, issue 40), on the host: each shortcut for a dense C-order
buffer gives exactly what the general path gives, refusals included (the same exception type
and message), over dense, padded, Fortran-order and explicit (strided, transposed) layouts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge import mapping
from acl_bridge.executor import _is_dense, _is_dense_general, bridge_allocate, describe_request
from acl_bridge.mapping import MAX_U32, PerChannelQuantization, _acl_layout, _acl_layout_general, _integer_range
from ndarray import NdArray, ShapeDescriptor
from ndarray.errors import AclNdarrayError, LayoutError

DTYPES = ["float32", "float16", "int8", "uint8", "int16", "int32", "int64", "bool"]


@st.composite
def descriptors(draw, max_rank=7):
    """Dense, padded (either order) and explicit layouts; ranks past ACL's 6 and dimensions
    of size 0 or 1 included (the refusals)."""
    rank = draw(st.integers(0, max_rank))
    shape = tuple(draw(st.lists(st.integers(0, 4) | st.just(1), min_size=rank, max_size=rank)))
    dtype = draw(st.sampled_from(DTYPES))
    kind = draw(st.sampled_from(["dense", "padded", "explicit"]))
    if kind == "dense" or rank == 0:
        return ShapeDescriptor.dense(shape, dtype)
    if kind == "padded":
        paddings = tuple(draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank)))
        offsets = tuple(draw(st.integers(0, p)) for p in paddings)
        return ShapeDescriptor.create(shape, dtype, draw(st.sampled_from(["c", "f"])), paddings=paddings,
                                      padding_offsets=offsets)
    base = np.zeros(tuple(n * 2 for n in shape), dtype)
    view = base[tuple(slice(None, None, 2) for _ in shape)] if draw(st.booleans()) else base
    view = view.transpose(draw(st.permutations(range(rank))))
    return NdArray.from_numpy(view).descriptor


def _outcome(f, *args):
    """What ``f(*args)`` gives: its value, or the type and text of what it raises."""
    try:
        return f(*args)
    except LayoutError as e:
        return type(e), str(e)


@given(descriptors(), st.booleans())
def test_the_dense_layout_is_the_general_one(d, padding_is_free):
    assert _outcome(_acl_layout, d, padding_is_free) == _outcome(_acl_layout_general, d, padding_is_free)


def test_the_dense_layout_refuses_as_the_general_one_at_the_limits():
    big = ShapeDescriptor.dense((2, MAX_U32 // 2), "int8")  # its outer stride is 2**31, its size 2**32
    wide = ShapeDescriptor.dense((MAX_U32, 1), "int8")  # an outer stride of 1 byte, 2**32 bytes in all
    for d in (big, wide, ShapeDescriptor.dense((1,) * 7, "float32"), ShapeDescriptor.dense((2, 0, 3), "float32")):
        assert _outcome(_acl_layout, d, True) == _outcome(_acl_layout_general, d, True)
    huge = ShapeDescriptor.dense((2, MAX_U32), "int8")  # an outer stride of 2**32 bytes
    with pytest.raises(LayoutError, match=r"strides_in_bytes\[0\] is 4294967296, expected < 2\*\*32"):
        _acl_layout(huge, True)


@given(descriptors(max_rank=5), st.sampled_from(["NCHW", "NHWC"]))
def test_a_dense_tensor_info_is_the_general_one(d, data_layout):
    mapping.clear_description_caches()
    got = _outcome(mapping._tensor_info_uncached, d, data_layout, None, True)
    shape_strides = _outcome(mapping.acl_shape_and_strides, d)
    if isinstance(got, tuple):  # refused: by the general path's checks, in its words
        assert got == shape_strides or got[0] is not None and "total_size_in_bytes" in got[1]
        return
    assert (got.tensor_shape, got.strides_in_bytes) == shape_strides
    assert got.padding == mapping._available_padding(d, *shape_strides)


def _raised(f, *args):
    """What ``f(*args)`` gives: its value, or the type and text of the library's exception."""
    try:
        return f(*args)
    except AclNdarrayError as e:
        return type(e), str(e)


QUANTIZATIONS = st.sampled_from([None, (0.25, 3), (0.5, 0), (0.5, -200), (0.0, 1), (float("nan"), 0), (0.5, 3.0),
                                  PerChannelQuantization((0.5, 0.25), 0), PerChannelQuantization((0.5,), 0),
                                  ((0.5, 0.25), 0), mapping.SymmetricQuantization(2.0 ** -12),
                                  mapping.SymmetricQuantization(-1.0)])


@given(descriptors(max_rank=5), st.sampled_from(["NCHW", "NHWC", "NDHWC"]), QUANTIZATIONS)
def test_the_info_s_fields_are_the_info_s(d, data_layout, quantization):
    """tensor_info_fields (a first start's description of a tensor it describes once) is
    tensor_info's answer field by field, refusals as tensor_info's (type and text), for the
    descriptor, memory brought in with it (its padding not free) and, where the bridge can
    allocate it, the bridge's buffer (its padding free)."""
    arrays = [d, NdArray(np.zeros(max(d.alloc_size_in_bytes, 1), np.uint8), d)]
    if d.explicit is None:
        arrays.append(bridge_allocate(d))
    for x in arrays:
        mapping.clear_description_caches()
        info = _raised(mapping.tensor_info, x, data_layout, quantization)
        fields = _raised(mapping.tensor_info_fields, x, data_layout, quantization)
        if isinstance(info, mapping.AclTensorInfo):
            assert mapping.AclTensorInfo(*fields) == info
            assert fields == tuple(getattr(info, f) for f in info.__dataclass_fields__)
        else:
            assert fields == info


@given(descriptors())
def test_a_dense_buffer_is_seen_dense_as_by_the_general_test(d):
    if d.explicit is None:
        a = bridge_allocate(d)
    else:  # an explicit layout over memory of its allocation's size
        a = NdArray(np.zeros(max(d.alloc_size_in_bytes, 1), np.uint8), d)
    assert _is_dense(a) is _is_dense_general(d)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"])
def test_the_integer_ranges_are_numpy_s(dtype):
    if dtype == "bool":
        with pytest.raises(ValueError):
            _integer_range(np.dtype(dtype))
        return
    info = np.iinfo(np.dtype(dtype))
    assert _integer_range(np.dtype(dtype)) == (info.min, info.max)
    low, high = _integer_range(np.dtype(dtype))
    assert type(low) is int and type(high) is int


def test_a_zero_point_outside_the_range_is_refused_naming_it():
    with pytest.raises(LayoutError, match=r"quantization offset is 128, expected -128 <= offset <= 127 for int8"):
        mapping.check_quantization((0.5, 128), np.dtype("int8"))
    assert mapping.check_quantization((0.5, -128), np.dtype("int8")) == (0.5, -128)


@pytest.mark.parametrize("quantization, dtype", [(None, "float32"), ((0.25, 3), "int8"), ((0.5, 0), "int32"),
                                                 (PerChannelQuantization((0.5, 0.25), 0), "int8")])
def test_describe_request_of_dense_buffers_and_constants(quantization, dtype):
    """A bridge-owned buffer and a model's constant (the caller's memory, dense), both dense:
    the request says so, with ACL's layout reversed and no padding offered."""
    d = ShapeDescriptor.dense((2, 3, 4), dtype)
    owned = bridge_allocate(d)
    constant = NdArray(np.zeros(d.alloc_size_in_bytes, np.uint8), d)
    for a in (owned, constant):
        r = describe_request("weights", a, is_output=False, data_layout="NHWC", quantization=quantization)
        assert r.dense and r.problem is None
        assert r.info.tensor_shape == (4, 3, 2)
        assert r.info.strides_in_bytes == (d.itemsize, 4 * d.itemsize, 12 * d.itemsize)
        assert r.info.padding == mapping.PaddingSize() == r.acl_padding
        assert r.info.total_size_in_bytes == 24 * d.itemsize
