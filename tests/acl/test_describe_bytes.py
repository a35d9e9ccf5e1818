"""A tensor's native description as bytes (acl_bridge.tensor.desc_content_of_fields), packed
from its AclTensorInfo's fields in one call, is byte for byte what the cffi struct gives
(``desc_content(native_desc(info))``): every data type the shim takes, ranks 1-6, quantization
per tensor, per channel (the scales appended) and symmetric, both backends' marks, and the infos
native_desc refuses refused in its words."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.acl


def _fields(info) -> tuple:
    """The info's fields in its constructor's order (what mapping.tensor_info_fields gives)."""
    return tuple(getattr(info, f) for f in info.__dataclass_fields__)


def _both(info, backend=None):
    """(the bytes packed from the info's fields, the struct's)."""
    from acl_bridge.backend import NEON
    from acl_bridge.tensor import desc_content, desc_content_of_fields, native_desc

    backend = backend or NEON
    return desc_content_of_fields(_fields(info), backend), desc_content(native_desc(info, None, backend))


@pytest.mark.parametrize("dtype,quantization", [
    ("float32", None), ("float16", None), ("int32", None), ("uint8", (0.5, 3)), ("int8", (0.25, -7)),
    ("int16", None), ("uint16", None),
])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (1, 7, 7, 8), (2, 1, 3, 1, 2), (1, 2, 1, 3, 1, 2)])
def test_packed_bytes_are_the_structs(dtype, quantization, shape):
    from acl_bridge.mapping import tensor_info
    from ndarray import ShapeDescriptor

    d = ShapeDescriptor.dense(shape, dtype)
    for layout in ("NCHW", "NHWC"):
        info = tensor_info(d, layout, quantization)
        packed, made = _both(info)
        assert packed == made


def test_per_channel_weights_carry_their_scales_and_a_bias_none():
    from acl_bridge.mapping import per_channel, tensor_info
    from ndarray import ShapeDescriptor

    scales = tuple(float(s) for s in np.random.default_rng(3).uniform(1e-4, 0.1, 16))
    w = tensor_info(ShapeDescriptor.dense((16, 3, 3, 8), "int8"), "NHWC", per_channel((scales, 0), 0))
    packed, made = _both(w)
    assert packed == made and len(packed) > len(_both(tensor_info(ShapeDescriptor.dense((16,), "float32")))[0])
    b = tensor_info(ShapeDescriptor.dense((16,), "int32"), "NHWC", per_channel((scales, 0), 0))
    assert _both(b)[0] == _both(b)[1]


def test_symmetric_and_the_cl_mark():
    from acl_bridge.backend import backend_named
    from acl_bridge.mapping import SymmetricQuantization, tensor_info
    from acl_bridge.native import native_available
    from ndarray import ShapeDescriptor

    info = tensor_info(ShapeDescriptor.dense((4, 6), "int16"), "NCHW", SymmetricQuantization(2.0 ** -12))
    assert _both(info)[0] == _both(info)[1]
    try:
        cl = backend_named("cl")
    except Exception:  # a shim built without OpenCL: the NEON mark only
        return
    assert native_available()[0]
    packed, made = _both(info, cl)
    assert packed == made


def test_an_info_native_desc_refuses_is_refused_the_same_way():
    from dataclasses import replace

    from acl_bridge.mapping import tensor_info
    from acl_bridge.native import AclInvalidArgumentError
    from acl_bridge.tensor import desc_content_of_fields, native_desc
    from ndarray import ShapeDescriptor

    info = replace(tensor_info(ShapeDescriptor.dense((2, 3), "float32")), data_type="F64")
    with pytest.raises(AclInvalidArgumentError) as packed:
        desc_content_of_fields(_fields(info))
    with pytest.raises(AclInvalidArgumentError) as made:
        native_desc(info)
    assert str(packed.value) == str(made.value)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 9), min_size=1, max_size=6), offset=st.integers(0, 4096),
       dtype=st.sampled_from(["float32", "int8", "uint8", "int32", "float16"]))
def test_any_dense_or_offset_layout_packs_as_the_struct(shape, offset, dtype):
    from acl_bridge.mapping import tensor_info
    from ndarray import ShapeDescriptor

    dense = ShapeDescriptor.dense(tuple(shape), dtype)
    d = ShapeDescriptor(tuple(shape), dtype, strides=dense.strides, offset=offset, alloc_size=dense.size + offset)
    q = (0.125, 1) if dtype in ("int8", "uint8") else None
    info = tensor_info(d, "NHWC", q)
    assert _both(info)[0] == _both(info)[1]
