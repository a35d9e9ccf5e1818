"""A function's kept decisions (acl_bridge.decisions), without ACL: the JSON form gives back
every field, a malformed one is refused with the codec's errors (ValueError, TypeError), and a
decision matches only a call of the same content (kind, parameters, options, each tensor's
layout, origin, free padding and quantization) on the same backend and ACL."""

import json

import numpy as np
import pytest

from acl_bridge.configure_session import CONFIGURED_PLAN, decode, encode
from acl_bridge.decisions import Decision, layout_key
from acl_bridge.decisions import decode as decode_decisions
from acl_bridge.layout import PaddingSize
from acl_bridge.plan import AclFacts, Action, FunctionPlan, PlanOptions, Reason, TensorPlan
from ndarray import ShapeDescriptor

PADDED = ShapeDescriptor.create((1, 4, 4, 8), "float32", paddings=(0, 1, 1, 0), padding_offsets=(0, 1, 1, 0))
DENSE = ShapeDescriptor.create((3, 3, 8, 8), "float32")


def _decision(**changes) -> Decision:
    plan = FunctionPlan("convolution", (
        TensorPlan("src", Action.IN_PLACE, PaddingSize(1, 1, 1, 1), may_write_padding=True),
        TensorPlan("weights", Action.STAGED, PaddingSize(0, 4, 0, 0), Reason.PADDING_MISSING, "ACL needs padding", 1,
                   True),
        TensorPlan("bias", Action.ABSENT),
        TensorPlan("dst", Action.IN_PLACE)), needs_probe=False, renegotiated=True)
    facts = AclFacts(required_padding={"src": PaddingSize(1, 1, 1, 1), "weights": PaddingSize()},
                     writes_outside={"src": True, "weights": False}, layout_ok=True,
                     renegotiate="Insufficient Padding!", auto_padding={"src": PaddingSize(4, 36, 4, 4)},
                     writes_beyond={"src": False})
    fields = dict(kind="convolution", params=bytes(range(40)), data_layout="NHWC",
                  options=PlanOptions(allow_copy=True, allow_padding_writes=False),
                  layouts=(layout_key(PADDED, "bridge", True), layout_key(DENSE, "user", True), None,
                           layout_key(PADDED, "bridge", True)),
                  plan=plan, facts=facts, descs=(b"\x01" * 120, b"\x02" * 128, None, b"\x00\xff" * 60),
                  backend="neon", acl="ACL 24.11, shim ABI 10")
    fields.update(changes)
    return Decision(**fields)


def test_decisions_round_trip_through_json():
    kept = (_decision(), _decision(kind="add", facts=AclFacts(required_padding={})))
    value = json.loads(json.dumps(encode(CONFIGURED_PLAN, kept)))
    assert decode(CONFIGURED_PLAN, value) == kept


@pytest.mark.parametrize("break_it", [
    lambda v: v[0].pop("plan"),
    lambda v: v[0].update(descs=["not base64!", None, None, None]),
    lambda v: v[0]["plan"][3][0].__setitem__(1, "teleported"),
    lambda v: v[0]["facts"].__setitem__(2, "yes"),
    lambda v: v[0].update(layouts=[None]),
    lambda v: v[0].update(params=None),
    lambda v: v.__setitem__(0, 7),
    lambda v: v[0]["plan"][3][0].__setitem__(5, float("inf")),  # JSON's Infinity as a copy count
    lambda v: v[0]["plan"][3].pop(),  # a role without its plan
    lambda v: v[0]["layouts"].__setitem__(2, "('bridge',)"),  # absent in the plan, given a layout
    lambda v: v[0]["plan"].__setitem__(1, "false"),  # a string where a boolean belongs
    lambda v: v[0].update(options=[1, 0]),
    lambda v: v[0].pop("backend"),
], ids=["no plan", "bad base64", "unknown action", "layout_ok text", "short layouts", "no params", "not a dict",
        "infinite count", "short plan", "absent with a layout", "string boolean", "int options", "no backend"])
def test_a_malformed_decision_does_not_decode(break_it):
    value = json.loads(json.dumps(encode(CONFIGURED_PLAN, (_decision(),))))
    break_it(value)
    with pytest.raises((ValueError, TypeError)):
        decode(CONFIGURED_PLAN, value)


def test_decisions_that_are_not_a_list_do_not_decode():
    with pytest.raises((ValueError, TypeError)):
        decode_decisions({"not": "a list"})


def test_a_decision_matches_only_a_call_of_the_same_content():
    d = _decision()
    same = dict(kind=d.kind, params=d.params, data_layout="NHWC", options=d.options, layouts=list(d.layouts),
                backend="neon", acl=d.acl)
    assert d.matches(**same)
    for field, other in (("kind", "depthwise"), ("params", bytes(40)), ("data_layout", "NCHW"),
                         ("options", PlanOptions(allow_copy=False)),
                         ("layouts", (layout_key(DENSE, "bridge", True),) + d.layouts[1:]),
                         ("layouts", (layout_key(PADDED, "bridge", True, (0.5, 3)),) + d.layouts[1:]),
                         ("backend", "cl"), ("acl", "ACL 20.08, shim ABI 10")):
        assert not d.matches(**dict(same, **{field: other})), (field, other)


def test_quantization_is_part_of_a_layout_key():
    from acl_bridge.mapping import PerChannelQuantization

    keys = {layout_key(DENSE, "user", True, q) for q in (
        None, (0.5, 3), (0.5, 4), (0.25, 3), PerChannelQuantization((0.5, 0.25), 0),
        PerChannelQuantization((0.5, 0.25), 3), PerChannelQuantization((0.5, 0.125), 0))}
    assert len(keys) == 7
    assert layout_key(DENSE, "user", True, (np.float32(0.5), np.int64(3))) == layout_key(DENSE, "user", True, (0.5, 3))
    with pytest.raises(TypeError):
        layout_key(DENSE, "user", True, "per tensor")


def test_a_layout_key_names_every_field_a_decision_depends_on():
    base = layout_key(PADDED, "bridge", True)
    assert base == layout_key(ShapeDescriptor.create((1, 4, 4, 8), np.float32, paddings=(0, 1, 1, 0),
                                                     padding_offsets=(0, 1, 1, 0)), "bridge", True)
    others = [layout_key(PADDED, "user", True), layout_key(PADDED, "bridge", False),
              layout_key(ShapeDescriptor.create((1, 4, 4, 8), "float32", paddings=(0, 2, 1, 0),
                                                padding_offsets=(0, 1, 1, 0)), "bridge", True),
              layout_key(ShapeDescriptor.create((1, 4, 4, 8), "int8", paddings=(0, 1, 1, 0),
                                                padding_offsets=(0, 1, 1, 0)), "bridge", True),
              layout_key(ShapeDescriptor.create((1, 4, 4, 8), "float32", strides=(256, 64, 8, 1)), "bridge", True),
              layout_key(ShapeDescriptor.create((1, 4, 4, 8), "float32", paddings=(0, 1, 1, 0),
                                                padding_offsets=(0, 0, 1, 0)), "bridge", True),
              layout_key(ShapeDescriptor.create((1, 4, 4, 8), "float32", "f"), "bridge", True),
              layout_key(ShapeDescriptor.create((1, 4, 4, 8), "float32", strides=(256, 64, 8, 1), offset=2),
                         "bridge", True),
              layout_key(ShapeDescriptor.create((1, 4, 4, 8), "float32", strides=(256, 64, 8, 1), alloc_size=300),
                         "bridge", True)]
    assert len({base, *others}) == 1 + len(others)
