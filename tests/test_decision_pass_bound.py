"""The decision pass's shortcuts of stop 53 (acl_bridge.configure_cold, issue 40), on the host:
a call made from the negotiation's binding without a function object is the one the
constructor's first half makes from that binding (the same fields, or the same refusal), and
the layout keys and quantization types of a call made in one pass over its roles are those
``call_layouts`` and the types one role at a time give (the same objects within a pass)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge.backend import NEON
from acl_bridge.configure_cold import Bound, Decided, _call, _layouts, _quantization_types
from acl_bridge.executor import Call, bridge_allocate, call_layouts
from acl_bridge.families import Add, Convolution
from acl_bridge.layout import PaddingSize
from acl_bridge.mapping import PerChannelQuantization, SymmetricQuantization, padded_descriptor, per_channel
from acl_bridge.plan import plan_options
from acl_bridge.workspace import Workspace
from ndarray import NdArray, ShapeDescriptor

# the constructor's keywords a call bound by the negotiation still takes (AclFunction._prepare)
_CALL_KEYWORDS = ("data_layout", "allow_copy", "allow_padding_writes", "backend", "workspace")


def _prepared(cls, args, kwargs, bound):
    """What the pass made before: the constructor's first half on a throw-away object, given
    the call keywords alone; (the Call, None) or (None, (exception type, message))."""
    try:
        return cls.__new__(cls)._prepare(args, bound=bound.call,
                                         **{k: v for k, v in kwargs.items() if k in _CALL_KEYWORDS}), None
    except Exception as e:  # noqa: BLE001  (compared with the shortcut's)
        return None, (type(e), str(e))


def _made(cls, args, kwargs, bound):
    try:
        return _call(cls, args, kwargs, bound), None
    except Exception as e:  # noqa: BLE001
        return None, (type(e), str(e))


def _same_call(a: Call, b: Call) -> bool:
    fields = ("kind", "params", "roles", "outputs", "data_layout", "quantization", "options", "backend", "workspace",
              "const_roles")
    return all(getattr(a, f) == getattr(b, f) for f in fields) and list(a.arrays) == list(b.arrays) and all(
        (x is None and y is None) or (x is not None and y is not None and x.base_ptr == y.base_ptr
                                      and x.descriptor == y.descriptor and x.readonly == y.readonly)
        for x, y in zip(a.arrays.values(), b.arrays.values()))


def _tensor(kind: str, shared: np.ndarray):
    if kind == "none":
        return None
    if kind == "numpy":
        return np.zeros((2, 3), np.float32)
    if kind == "readonly":
        x = np.zeros((2, 3), np.float32)
        x.flags.writeable = False
        return NdArray.from_numpy(x)
    if kind == "bridge":
        return bridge_allocate(padded_descriptor((2, 3), np.float32, PaddingSize(0, 1, 0, 1)))
    if kind == "shared":  # one array given for two roles: in place for an element-wise kind, refused otherwise
        return NdArray.from_numpy(shared)
    if kind == "window":  # overlapping the shared array without being it
        return NdArray.from_numpy(shared.reshape(-1)[1:4])
    return NdArray.from_numpy(np.zeros((2, 3), np.float32))


tensors = st.sampled_from(["own", "numpy", "readonly", "bridge", "shared", "window", "none"])
keywords = st.fixed_dictionaries({}, optional={
    "data_layout": st.sampled_from(["NCHW", "NHWC", "nchw"]), "allow_copy": st.sampled_from([True, False, 0, 1]),
    "allow_padding_writes": st.sampled_from([True, False, 0, 1]), "backend": st.sampled_from(["neon", NEON, "gpu"]),
    "workspace": st.sampled_from([None, "w", "workspace"]), "quantization": st.just({"a": (0.5, 3)}),
    "activation": st.just("relu"), "stride": st.just((2, 2))})


@given(st.sampled_from([Add, Convolution]), st.lists(tensors, min_size=2, max_size=5), keywords)
def test_a_call_made_from_a_binding_is_the_constructor_s(cls, kinds, kwargs):
    shared = np.zeros((2, 3), np.float32)
    args = tuple(_tensor(k, shared) for k in kinds)
    if kwargs.get("workspace") == "workspace":
        kwargs["workspace"] = Workspace.__new__(Workspace)  # (a real one needs the native module)
    params = object()  # the binding's native parameters: carried as they are
    bound = Bound((cls.kind, params, {r: None for r in cls.roles}), [], (), True)
    (before, refused_before), (now, refused_now) = _prepared(cls, args, kwargs, bound), _made(cls, args, kwargs, bound)
    assert refused_now == refused_before
    if before is not None:
        assert _same_call(now, before) and now.params is params


def test_a_call_made_from_a_binding_keeps_the_arrays_and_options_it_was_given():
    a, b, dst = (NdArray.from_numpy(np.zeros((2, 3), np.float32)) for _ in range(3))
    bound = Bound(("add", "params", {"a": (0.5, 3), "b": None, "dst": None}), [], (), True)
    call = _call(Add, (a, b, dst), {"data_layout": "NHWC", "allow_copy": False, "activation": "relu"}, bound)
    assert call.arrays == {"a": a, "b": b, "dst": dst} and all(call.arrays[r] is x for r, x in zip(Add.roles, (a, b, dst)))
    assert (call.kind, call.params, call.data_layout, call.options) == ("add", "params", "NHWC", plan_options(False, False))
    assert call.backend is NEON and call.workspace is None and call.quantization is bound.call[2]


def _quantizations():
    return [None, (0.5, 3), (0.5, 3.0), per_channel(((0.5, 0.25, 0.125), 0), 0),
            PerChannelQuantization((0.5, 0.25), 0), SymmetricQuantization(0.5), (1.0, 2, 3), [0.5, 3]]


def _arrays():
    raw = np.zeros(4 * 4 * 8 * 4 + 1, np.uint8)
    d = ShapeDescriptor.create((1, 4, 4, 8), "int8", paddings=(0, 1, 1, 0), padding_offsets=(0, 1, 1, 0))
    return [None, NdArray.allocate(d), NdArray.allocate(d), bridge_allocate(ShapeDescriptor.dense((3, 8), np.int8)),
            NdArray.from_numpy(np.zeros((3, 8), np.int8)),
            NdArray.from_numpy(raw[1:].view(np.float32).reshape(1, 4, 4, 8))]  # misaligned


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 7)), min_size=1, max_size=4), st.integers(0, 3))
def test_a_call_s_layouts_in_one_pass_are_call_layouts_and_the_types_role_by_role(rows, earlier):
    arrays, qs = _arrays(), _quantizations()
    roles = tuple(f"r{i}" for i in range(len(rows)))
    call = Call("add", None, roles, roles[-1:], {r: arrays[i] for r, (i, _) in zip(roles, rows)}, "NHWC",
                {r: qs[j] for r, (_, j) in zip(roles, rows)}, plan_options(True, False))
    memo = Decided()
    for i in range(earlier):  # keys made by earlier calls of the pass
        a = arrays[1 + i]
        if a is not None:
            memo.layout_key(a, qs[i])
    made = _layouts(call, memo)
    expected = call_layouts(call, memo.layout_key)
    if expected is None:
        assert made is None
        return
    keys, types = made
    assert all(k is e for k, e in zip(keys, expected)) and len(keys) == len(expected)  # the pass's very objects
    assert types == tuple(_quantization_types(Decided(), call.quantization[r]) for r in roles)
    fresh = call_layouts(call, Decided().layout_key)  # and the texts a fresh pass spells
    assert [None if k is None else k.text for k in keys] == [None if k is None else k.text for k in fresh]


def test_a_call_with_a_misaligned_tensor_or_a_quantization_without_text_has_no_layouts():
    arrays, roles = _arrays(), ("src", "dst")
    for a, q in ((arrays[5], None), (arrays[1], (1.0, 2, 3))):
        call = Call("add", None, roles, ("dst",), {"src": a, "dst": arrays[2]}, "NHWC", {"src": q, "dst": None},
                    plan_options(True, False))
        assert _layouts(call, Decided()) is None and call_layouts(call, Decided().layout_key) is None
