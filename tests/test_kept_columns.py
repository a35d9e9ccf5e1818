"""KeptDecisions.of in one loop (stop 53, issue 40), on the host: its columns are exactly those
the table-by-name version before it made (kept below as the reference), plans and facts tabled
by content or by object, shared and equal-but-separate plans, facts, options and layouts (texts
and lazy keys), absent roles, per-channel tails; and its refusals are the reference's."""

from __future__ import annotations

import dataclasses
from typing import Dict, List

from hypothesis import given
from hypothesis import strategies as st

from acl_bridge.decisions import (Decision, KeptDecisions, LazyLayoutKey, _facts_key, _layout_index, _record_sizes,
                                  layout_parts, quantization_key)
from acl_bridge.layout import PaddingSize
from acl_bridge.plan import AclFacts, Action, FunctionPlan, PlanOptions, Reason, TensorPlan
from ndarray import ShapeDescriptor


def _reference_columns_of(k: int, d: Decision, idx, desc_size: int, plan_key, facts_key) -> tuple:
    if not len(d.plan.tensors) == len(d.layouts) == len(d.descs) or any(
            (t.action is Action.ABSENT) != (lay is None) or (lay is None) != (desc is None)
            for t, lay, desc in zip(d.plan.tensors, d.layouts, d.descs)):
        raise ValueError(f"decision {k} ({d.kind}) has {len(d.plan.tensors)} planned tensors, "
                         f"{len(d.layouts)} layouts and {len(d.descs)} descriptions, expected one of each "
                         f"per role, absent alike")
    row = (idx("head", (d.kind, d.data_layout, d.backend, d.acl, d.options)), idx("plan", d.plan, plan_key),
           idx("facts", d.facts, facts_key))
    layouts, records, tails = [], [], []
    for at, (layout, desc) in enumerate(zip(d.layouts, d.descs)):
        layouts.append(-1 if layout is None else idx("layout", layout, _layout_index))
        if desc is None:
            records.append(bytes(desc_size))
            continue
        records.append(desc[:desc_size])
        if len(desc) > desc_size:
            tails.append((at, desc[desc_size:]))
    return row, layouts, records, tails


def _reference_of(decisions, by_identity: bool = False) -> KeptDecisions:
    """KeptDecisions.of as it was (main at c163877)."""
    index: Dict[str, Dict[object, int]] = {"head": {}, "plan": {}, "facts": {}, "layout": {}}
    values: Dict[str, list] = {name: [] for name in index}
    plan_key, facts_key = (id, id) if by_identity else (None, _facts_key)
    seen: Dict[str, Dict[int, int]] = {"plan": {}, "facts": {}, "layout": {}}

    def idx(table: str, value: object, key=None) -> int:
        ids = seen.get(table)
        if ids is not None:
            i = ids.get(id(value))
            if i is not None:
                return i
        key = value if key is None else key(value)
        i = index[table].get(key)
        if i is None:
            i = index[table][key] = len(values[table])
            values[table].append(value)
        if ids is not None:
            ids[id(value)] = i
        return i

    functions: List[tuple] = []
    tensors: List[int] = []
    tails: Dict[int, bytes] = {}
    desc_size, params_size = _record_sizes(decisions)  # (its first lines, unchanged, shared)
    records: list = []
    rows: Dict[int, tuple] = {}
    for k, d in enumerate(decisions):
        made = rows.get(id(d))
        if made is None:
            made = rows[id(d)] = _reference_columns_of(k, d, idx, desc_size, plan_key, facts_key)
        row, layouts, recs, own_tails = made
        for at, tail in own_tails:
            tails[len(tensors) + at] = tail
        functions.append(row)
        tensors.extend(layouts)
        records.extend(recs)
    return KeptDecisions(values["head"], values["plan"], values["facts"], values["layout"],
                         functions, tensors, b"".join(d.params for d in decisions), params_size, b"".join(records),
                         desc_size, tails)


def _columns(k: KeptDecisions) -> tuple:
    """Every column, the distinct values by identity (which object each table keeps)."""
    return (k.heads, [id(h[4]) for h in k.heads], [id(p) for p in k.distinct_plans],
            [id(f) for f in k.distinct_facts], [id(x) for x in k.distinct_layouts], k.functions, k.tensors,
            k.params_blob, k.params_size, k.desc_blob, k.desc_size, k.desc_tails, k.plans, k.kinds, k.starts)


_D = ShapeDescriptor.create((1, 4, 4, 8), "int8")
_PLANS = [FunctionPlan("add", (TensorPlan("a", Action.IN_PLACE), TensorPlan("b", Action.ABSENT),
                               TensorPlan("dst", Action.IN_PLACE, PaddingSize(1, 0, 1, 0))), False)]
_PLANS += [dataclasses.replace(_PLANS[0]), dataclasses.replace(_PLANS[0], needs_probe=True)]
_PLANS += [FunctionPlan("add", (TensorPlan("a", Action.IN_PLACE), TensorPlan("b", Action.IN_PLACE),
                                TensorPlan("dst", Action.STAGED, PaddingSize(), Reason.PADDING_MISSING, "x", 1)),
                        False)]
_FACTS = [AclFacts(required_padding={"a": PaddingSize()}), AclFacts(required_padding={"a": PaddingSize()}),
          AclFacts(required_padding={"a": PaddingSize(1, 1, 1, 1)}, writes_outside={"a": True}, layout_ok=False)]
_OPTIONS = [PlanOptions(True, False), PlanOptions(True, False), PlanOptions(False, True)]
_LAZY = [LazyLayoutKey(layout_parts(_D, "bridge", True), None, quantization_key(None)) for _ in range(2)]
_LAYOUTS = ["k0", "k1", _LAZY[0], _LAZY[1], "".join(["k", "0"])]  # (two lazy keys of one text; two equal strs)
_DESCS = [b"\x01" * 16, b"\x02" * 16, b"\x03" * 16 + b"\x09" * 8, b"\x04" * 16 + b"\x08" * 4]

decisions_drawn = st.lists(st.tuples(
    st.integers(0, len(_PLANS) - 1), st.integers(0, len(_FACTS) - 1), st.integers(0, len(_OPTIONS) - 1),
    st.sampled_from(["add", "sub"]), st.sampled_from(["NHWC", "NCHW"]), st.integers(0, len(_LAYOUTS) - 1),
    st.integers(0, len(_LAYOUTS) - 1), st.integers(0, len(_DESCS) - 1), st.integers(0, len(_DESCS) - 1),
    st.integers(0, 2)), min_size=0, max_size=8)


def _made(drawn) -> List[Decision]:
    out: List[Decision] = []
    for p, f, o, kind, layout, la, lb, da, db, repeat in drawn:
        plan = _PLANS[p]
        absent_b = plan.tensors[1].action is Action.ABSENT
        d = Decision(kind, bytes([p, f, o]) * 4, layout, _OPTIONS[o],
                     (_LAYOUTS[la], None if absent_b else _LAYOUTS[lb], _LAYOUTS[lb]), plan, _FACTS[f],
                     (_DESCS[da], None if absent_b else _DESCS[db], _DESCS[db]), "neon", "ACL 24.11")
        out.extend([d] * (1 + repeat))  # a content decided once and handed to several functions
    return out


@given(decisions_drawn, st.booleans())
def test_the_columns_of_one_loop_are_the_reference_s(drawn, by_identity):
    ds = _made(drawn)
    assert _columns(KeptDecisions.of(ds, by_identity=by_identity)) == _columns(_reference_of(ds, by_identity))


@given(decisions_drawn, st.integers(0, 7), st.sampled_from(["layouts", "descs", "params"]), st.booleans())
def test_the_refusals_of_one_loop_are_the_reference_s(drawn, at, broken, by_identity):
    ds = _made(drawn)
    if not ds:
        return
    k = at % len(ds)
    d = ds[k]
    if broken == "layouts":  # a layout where the plan has an absent role, or one too few
        ds[k] = dataclasses.replace(d, layouts=d.layouts[:-1] if d.layouts[1] is not None else
                                    (d.layouts[0], "x", d.layouts[2]))
    elif broken == "descs":
        ds[k] = dataclasses.replace(d, descs=(None,) + d.descs[1:])
    else:
        ds[k] = dataclasses.replace(d, params=d.params + b"\x00")
    assert _outcome(KeptDecisions.of, ds, by_identity) == _outcome(_reference_of, ds, by_identity)


def _outcome(of, ds, by_identity) -> object:
    """The columns ``of`` makes of ``ds``, or its ValueError's message."""
    try:
        return _columns(of(ds, by_identity=by_identity))
    except ValueError as e:
        return str(e)
