"""A function's kept decisions (acl_bridge.decisions), without ACL: the JSON form gives back
every field, a malformed one is refused with the codec's one error (KeptValueError), and a
decision matches only a call of the same content (kind, parameters, options, each tensor's
layout, origin, free padding and quantization) on the same backend and ACL."""

import base64
import dataclasses
import json
import zlib

import numpy as np
import pytest

from acl_bridge.configure_session import CONFIGURED_PLAN, decode, encode
from acl_bridge.decisions import Decision, KeptDecisions, layout_key
from acl_bridge.decisions import decode as decode_decisions
from acl_bridge.decisions import KeptValueError
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
    assert tuple(decode(CONFIGURED_PLAN, value)) == kept


def _b64_zlib(raw: bytes) -> str:
    return base64.b64encode(zlib.compress(raw)).decode()


@pytest.mark.parametrize("break_it", [
    lambda v: v.pop("plans"),
    lambda v: v.update(descs="not base64!"),
    lambda v: v.update(descs=base64.b64encode(b"not compressed").decode()),
    lambda v: v["plans"][0][3][0].__setitem__(1, "teleported"),
    lambda v: v["facts"][0].__setitem__(2, "yes"),
    lambda v: v.update(tensors=[0]),
    lambda v: v.update(params=None),
    lambda v: v.update(params=_b64_zlib(b"short")),
    lambda v: v["plans"][0][3][0].__setitem__(5, float("inf")),  # JSON's Infinity as a copy count
    lambda v: v["plans"][0][3].pop(),  # a role without its plan
    lambda v: v["tensors"].__setitem__(2, 0),  # absent in the plan, given a layout
    lambda v: v["plans"][0].__setitem__(1, "false"),  # a string where a boolean belongs
    lambda v: v["heads"][0].__setitem__(4, 1),  # an int as an option
    lambda v: v["heads"][0].pop(2),  # no backend
    lambda v: v.update(form="rows"),
    lambda v: v["functions"].__setitem__(1, 5),  # a plan past its table
    lambda v: v["tensors"].__setitem__(0, "0"),
    lambda v: v.update(desc_tails=[[2, "AAAA"]]),  # a tail for an absent tensor
    lambda v: v["layouts"].__setitem__(0, 7),
    lambda v: v.update(desc_tails=[[1, "AAA="]]),  # scales that are no whole float32s
], ids=["no plans", "bad base64", "not compressed", "unknown action", "layout_ok text", "short tensors", "no params",
        "short params", "infinite count", "short plan", "absent with a layout", "string boolean", "int options",
        "no backend", "another form", "index past a table", "text index", "tail of an absent tensor",
        "layout not text", "tail of no whole floats"])
def test_a_malformed_decision_does_not_decode(break_it):
    value = json.loads(json.dumps(encode(CONFIGURED_PLAN, (_decision(), _decision(kind="add")))))
    break_it(value)
    with pytest.raises(KeptValueError, match=r"kept decisions do not decode: \w+: "):
        decode(CONFIGURED_PLAN, value)


def test_decisions_that_are_not_a_dict_do_not_decode():
    for value in ({"not": "columns"}, [], 7, None):
        with pytest.raises(KeptValueError, match=r"kept decisions do not decode: TypeError: decisions are \w+ of form"):
            decode_decisions(value)


def test_kept_decisions_share_what_repeats_and_keep_records_of_a_fixed_size():
    """Columns: one entry per distinct plan, facts and layout; one record per function and per
    tensor (zeros where absent, the bytes past a record kept as its tail); a Decision made
    when indexed equals the one kept."""
    scaled = _decision(descs=(b"\x01" * 120, b"\x02" * 128, None, b"\x00\xff" * 60))
    kept = KeptDecisions.of((_decision(), scaled, _decision(kind="add")))
    assert len(kept.distinct_plans) == 1 and len(kept.distinct_facts) == 1 and len(kept.distinct_layouts) == 2
    assert kept.desc_size == 120 and kept.params_size == 40 and len(kept.desc_blob) == 120 * 12
    assert kept.desc_blob[2 * 120:3 * 120] == bytes(120)  # the absent bias
    assert kept.desc_tails == {1: b"\x02" * 8, 5: b"\x02" * 8, 9: b"\x02" * 8}
    assert kept.starts == (0, 4, 8) and kept.kinds == ("convolution", "convolution", "add")
    assert kept[1] == scaled and kept[-1] == _decision(kind="add") and kept[0:2] == (_decision(), scaled)
    with pytest.raises(IndexError):
        kept[3]
    with pytest.raises(ValueError, match="differ in size"):
        KeptDecisions.of((_decision(), _decision(params=bytes(8))))
    d = _decision()
    for bad in (dataclasses.replace(d, layouts=d.layouts + d.layouts[:1], descs=d.descs + d.descs[:1]),
                dataclasses.replace(d, descs=(None,) + d.descs[1:])):  # a role too many; a layout without its description
        with pytest.raises(ValueError, match="one of each per role"):
            KeptDecisions.of((bad, d))


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


def test_a_per_channel_layout_key_spells_every_scale_exactly_however_it_is_held():
    """The scales' text made once per PerChannelQuantization object (mapping.scales_hex, shared
    with the question ids) is the text spelled afresh: floats by float.hex; scales that are no
    Python floats (numpy's) spelled as their float values, never kept."""
    from acl_bridge.decisions import quantization_text
    from acl_bridge.mapping import PerChannelQuantization, scales_hex

    scales = (0.5, 0.1, 1e-300, 3.0)
    exact, numpy_held = PerChannelQuantization(scales, 3), PerChannelQuantization(tuple(map(np.float32, scales)), 3)
    assert quantization_text(exact) == quantization_text(exact) == "pc(" + ",".join(map(float.hex, scales)) + ";3)"
    assert scales_hex(exact) == ",".join(map(float.hex, scales)) and scales_hex(numpy_held) is None
    assert quantization_text(numpy_held) == "pc(" + ",".join(float.hex(float(np.float32(s))) for s in scales) + ";3)"
    assert quantization_text(PerChannelQuantization((), 0)) == "pc(;0)"


def test_kept_decisions_of_shared_plans_and_facts_equal_those_of_equal_copies():
    """A decision pass hands one plan and facts object to many functions (configure_cold): the
    columns (found by identity first) are those of equal, distinct objects."""
    d = _decision()
    copies = [dataclasses.replace(d, plan=dataclasses.replace(d.plan), facts=dataclasses.replace(d.facts))
              for _ in range(3)]
    other = _decision(kind="add", facts=AclFacts(required_padding={}))
    shared, distinct = KeptDecisions.of((d, d, other, d)), KeptDecisions.of((copies[0], copies[1], other, copies[2]))
    assert encode(CONFIGURED_PLAN, shared) == encode(CONFIGURED_PLAN, distinct)
    assert shared.functions == ((0, 0, 0), (0, 0, 0), (1, 0, 1), (0, 0, 0))


def test_a_layout_key_is_its_memory_part_and_its_quantization_text():
    """layout_key is the repr of one tuple (the memory's fields, then the quantization's text);
    its memory part (layout_prefix), made once per array by a decision pass, joined with the
    quantization's text (layout_key_with) gives the same text."""
    from acl_bridge.decisions import layout_key_with, layout_prefix, quantization_text
    from acl_bridge.mapping import PerChannelQuantization

    explicit = ShapeDescriptor.create((1, 4, 4, 8), "float32", strides=(256, 64, 8, 1), offset=2)
    for d, e in ((PADDED, None), (explicit, ((256, 64, 8, 1), 2, explicit.alloc_size))):
        for q in (None, (0.5, 3), PerChannelQuantization((0.5, 0.25), 0)):
            whole = repr(("user", False, tuple(d.shape), d.dtype.str, d.order, tuple(d.paddings),
                          tuple(d.padding_offsets), e, quantization_text(q)))
            assert layout_key(d, "user", False, q) == layout_key_with(layout_prefix(d, "user", False), q) == whole


def _variants():
    """Plans and facts to share among decisions: two equal objects of each content, two contents."""
    d = _decision()
    other_plan = dataclasses.replace(d.plan, needs_probe=True)
    other_facts = dataclasses.replace(d.facts, layout_ok=False)
    plans = [d.plan, dataclasses.replace(d.plan), other_plan, dataclasses.replace(other_plan)]
    facts = [d.facts, dataclasses.replace(d.facts), other_facts, dataclasses.replace(other_facts)]
    return plans, facts


@pytest.mark.parametrize("picks", [
    [(0, 0)], [(0, 0), (1, 1)], [(2, 3), (0, 0), (3, 2), (1, 1)], [(1, 2), (1, 2), (0, 3)],
    [(3, 0), (2, 1), (1, 2), (0, 3), (3, 3)]])
def test_decisions_tabled_by_object_keep_the_json_of_those_tabled_by_content(picks):
    """KeptDecisions.of(by_identity=True) (a first start's pass: a plan is not hashed field by
    field) gives the same decisions when indexed, and encode() joins its equal plans and facts
    back into the content-tabled JSON: the kept file is the same either way."""
    plans, facts = _variants()
    ds = []
    for k, (p, f) in enumerate(picks):
        d = _decision(plan=plans[p], facts=facts[f], params=bytes([k]) * 40)
        ds.extend([d, d] if k % 2 else [d])  # a repeated content's decision object, as the pass reuses it
    by_object, by_content = KeptDecisions.of(ds, by_identity=True), KeptDecisions.of(ds)
    assert tuple(by_object) == tuple(by_content) == tuple(ds)
    assert encode(CONFIGURED_PLAN, by_object) == encode(CONFIGURED_PLAN, by_content) == encode(CONFIGURED_PLAN, ds)
    assert len(by_content.distinct_plans) == len({d.plan for d in ds})
    assert len(by_object.distinct_plans) == len({id(d.plan) for d in ds})  # (equal objects apart)
