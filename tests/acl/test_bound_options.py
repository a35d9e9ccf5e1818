"""A function's options given by keyword are bound without ``inspect.Signature.bind``
(acl_bridge.functions._keyword_options, a model's first start binds every function's twice):
for the keywords of every row of the function table, the kind, the native parameters (as
bytes) and the quantization per role are those ``Signature.bind`` gives."""

from __future__ import annotations

import inspect

import pytest

from function_cases import CASES, INT8_CASES

pytestmark = pytest.mark.acl

# the constructor's keywords that are not the kind's options (AclFunction._prepare)
_COMMON = ("data_layout", "quantization", "allow_copy", "allow_padding_writes", "backend", "workspace")


def _by_signature_bind(cls, options, quantization):
    bound = inspect.signature(cls._params).bind(**options)
    quant = dict(quantization or {})
    quant.update(cls._quantization(**bound.arguments))
    return cls._kind(**bound.arguments), cls._params(*bound.args, **bound.kwargs), {r: quant.get(r) for r in cls.roles}


def test_options_by_keyword_are_bound_as_signature_bind_binds_them():
    from acl_bridge.families import function_class
    from acl_bridge.functions import AclFunction
    from acl_bridge.native import require_native

    ffi, _ = require_native()
    checked = 0
    for case in (*CASES, *INT8_CASES):
        cls = function_class(case.kind)
        options = {k: v for k, v in case.kwargs.items() if k not in _COMMON and k not in cls.roles}
        quantization = case.kwargs.get("quantization")
        # the binding itself: AclFunction's _call (a kind's override adds checks of its tensors)
        _, kind, params, quant = AclFunction._call.__func__(cls, tuple(None for _ in cls.roles), dict(options),
                                                              quantization)
        kind_b, params_b, quant_b = _by_signature_bind(cls, options, quantization)
        assert (kind, ffi.buffer(params)[:], quant) == (kind_b, ffi.buffer(params_b)[:], quant_b), case.name
        checked += 1
    assert checked == len(CASES) + len(INT8_CASES)


def test_a_call_made_from_the_negotiations_binding_still_checks_gather_indices():
    """The negotiation binds ShapeDescriptors (no values); a first start's call made from that
    binding (``_prepare(bound=...)``) still refuses indices outside the gathered axis, as the
    constructor does, before anything native is made, every buffer untouched."""
    import numpy as np

    from acl_bridge.families import function_class
    from ndarray import NdArray, ShapeDescriptor
    from ndarray.errors import IndexOutOfRangeError

    cls = function_class("Gather")
    src = NdArray.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    dst = NdArray.from_numpy(np.full((3, 2), 7, np.float32))
    descs = (ShapeDescriptor.dense((3, 4), np.float32), ShapeDescriptor.dense((2,), np.int32),
             ShapeDescriptor.dense((3, 2), np.float32))
    kind, params, quant, _ = cls._bound_specs(descs, {"axis": 1}, None, "NHWC")
    for bad in ([0, 4], [-1, 0]):
        idx = NdArray.from_numpy(np.array(bad, np.int32))
        with pytest.raises(IndexOutOfRangeError, match=r"Gather: indices holds (4|-1), expected 0\.\.3"):
            cls.__new__(cls)._prepare((src, idx, dst), data_layout="NHWC", bound=(kind, params, quant))
        assert (dst.numpy() == 7).all() and (src.numpy() == np.arange(12).reshape(3, 4)).all()
    from ndarray.errors import ArgumentTypeError

    idx = NdArray.from_numpy(np.array([0, 1], np.int32))
    with pytest.raises(ArgumentTypeError, match=r"Gather: a call made from a binding takes one tensor per role"):
        cls.__new__(cls)._prepare((src, idx, dst), bound=(kind, params, quant), axis=1)  # options given twice
    with pytest.raises(ArgumentTypeError, match=r"not 2 tensors"):
        cls.__new__(cls)._prepare((src, idx), bound=(kind, params, quant))
    good = NdArray.from_numpy(np.array([3, 0], np.int32))
    call = cls.__new__(cls)._prepare((src, good, dst), data_layout="NHWC", bound=(kind, params, quant))
    assert call.kind == kind
