"""The runner's constant shortcuts (issue 40, a model's first start) against the general path:
``NdArray._of_dense`` makes what ``NdArray(bytes, descriptor)`` makes of a dense numpy array,
``constant_array`` describes a constant by ``ShapeDescriptor.dense``'s one descriptor, and hands
ACL the same array as before (the model's memory, or a padded copy). Pure numpy: the host stage
runs it."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge.executor import origin_of
from acl_bridge.layout import PaddingSize as P
from acl_bridge.models.runtime.buffers import constant_array
from ndarray import NdArray, ShapeDescriptor

DTYPES = ["float32", "int8", "uint8", "int16", "int32", "float16", "float64", "bool"]


@st.composite
def _dense_values(draw):
    """Dense aligned numpy arrays as a model's constants come: views of a file's bytes
    (read-only), of a larger buffer at an aligned offset, fresh writeable ones, 0-d ones."""
    rank = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    n = int(np.prod(shape)) * dtype.itemsize
    how = draw(st.sampled_from(["bytes", "offset_in_bytes", "writeable", "flagged_readonly"]))
    raw = bytes(range(256)) * (n // 256 + 2)
    if how == "bytes":
        return np.ndarray(shape, dtype, raw, 0)
    if how == "offset_in_bytes":
        return np.ndarray(shape, dtype, raw, dtype.itemsize * draw(st.integers(1, 3)))
    v = np.frombuffer(bytearray(raw[:n]), dtype).reshape(shape)
    if how == "flagged_readonly":
        v.flags.writeable = False
    return v


def _state(a: NdArray):
    e = a._elements
    return (a.descriptor, a.readonly, a._root, a.allocation.nbytes, a.allocation.ctypes.data,
            a.allocation.flags.writeable, a.allocation.tobytes(), e.shape, e.dtype, e.strides,
            e.ctypes.data, e.flags.writeable, a.numpy().tobytes())


@given(_dense_values())
def test_of_dense_makes_what_the_general_constructor_makes(value):
    d = ShapeDescriptor.dense(value.shape, value.dtype)
    fast = NdArray._of_dense(value, d)
    general = NdArray(value.reshape(-1).view(np.uint8), d)
    assert _state(fast) == _state(general)
    assert origin_of(fast) is origin_of(general)
    if fast.readonly:  # read-only for good, as the general path's: no view re-flagged writeable
        view = fast.numpy()
        assert not view.flags.writeable
        for a in (view, fast.allocation):
            with pytest.raises(ValueError):  # numpy's own refusal
                a.flags.writeable = True
    else:  # a write through it reaches the value's memory, as through the general path's
        fast.numpy()[...] = 1
        assert np.array_equal(value, np.ones_like(value))


@given(_dense_values())
def test_a_shared_constant_is_described_by_the_dense_one(value):
    d = constant_array(_Conv, "weights", value, P(), True).descriptor
    assert d == ShapeDescriptor.dense(value.shape, value.dtype) == ShapeDescriptor.create(value.shape, value.dtype)
    assert constant_array(_Conv, "weights", value, P(), True).descriptor is d \
        is ShapeDescriptor.dense(value.shape, value.dtype)  # one object


class _Conv:
    const_roles = ("weights", "bias")


@given(_dense_values(), st.sampled_from(["weights", "other"]), st.booleans(), st.booleans())
def test_constant_array_hands_acl_what_the_general_path_did(value, role, share, padded):
    pad = P(right=2) if padded else P()
    got = constant_array(_Conv, role, value, pad, share)
    assert got.numpy().tobytes() == value.tobytes() and got.dtype == value.dtype
    in_place = share and role == "weights" and not pad.for_rank(value.ndim)
    if in_place:  # the model's memory, as NdArray(bytes, dense descriptor) described it
        general = NdArray(value.reshape(-1).view(np.uint8), ShapeDescriptor.dense(value.shape, value.dtype))
        assert _state(got) == _state(general)
    else:  # a bridge copy with the padding asked
        assert origin_of(got) is not origin_of(NdArray(value.reshape(-1).view(np.uint8),
                                                       ShapeDescriptor.dense(value.shape, value.dtype)))
        assert got.allocation.ctypes.data != value.ctypes.data


def test_a_subclass_goes_the_general_way():
    """A numpy subclass (not what the reader makes) is wrapped by the checked constructor."""
    class Sub(np.ndarray):
        pass

    value = np.arange(6, dtype=np.int32).reshape(2, 3).view(Sub)
    got = constant_array(_Conv, "weights", value, P(), True)
    assert got.descriptor == ShapeDescriptor.dense((2, 3), np.int32)
    assert got.allocation.ctypes.data == value.ctypes.data and np.array_equal(got.numpy(), value)
