"""Partitioning (host): which operators run on ACL and which on the CPU fallback, as small
graphs (graph_tflite) whose plans are checked segment by segment and run by the numpy
executor against TFLite's interpreter; the fallback's writes into padded buffers (the
runner's bridge-owned NdArrays) leave every padding cell and guard byte as it was."""

import dataclasses

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.mapping import PaddingSize, padded_descriptor  # noqa: E402
from acl_bridge.models.planning import plan_cache  # noqa: E402
from acl_bridge.models.fallback import prepare  # noqa: E402
from acl_bridge.models.lowering.partition import ACL_REFUSED, NO_RULE, RULE_REFUSED, decide, partition  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import graph_inputs, plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import UnsupportedModelError, read_model  # noqa: E402
from ndarray import NdArray  # noqa: E402

from .conftest import host_only_under_emulation, interpreter, tolerance  # noqa: E402
from .graph_tflite import chain, graph_model  # noqa: E402

# planning and the numpy executor: the host stage (the images' TFLite interpreter lacks CEIL)
pytestmark = host_only_under_emulation

ACL, FALLBACK = "RELU", "COS"  # RELU has a lowering rule, COS has none: the fallback runs it
SHAPE = (1, 4, 4, 3)


def _reference(data: bytes, inputs):
    """TFLite's interpreter on every graph input (by tensor name): outputs by name."""
    it = interpreter(data)
    for d in it.get_input_details():
        it.set_tensor(d["index"], inputs[d["name"]])
    it.invoke()
    return {d["name"]: it.get_tensor(d["index"]).copy() for d in it.get_output_details()}


def _sides(plan):
    return tuple((side, len(ks)) for side, ks in plan.segments())


CHAINS = [
    ("first", [FALLBACK, ACL, ACL], (("fallback", 1), ("acl", 2))),
    ("last", [ACL, ACL, FALLBACK], (("acl", 2), ("fallback", 1))),
    ("middle", [ACL, FALLBACK, ACL], (("acl", 1), ("fallback", 1), ("acl", 1))),
    ("alternating", [FALLBACK, ACL, FALLBACK, ACL, FALLBACK, ACL, FALLBACK],
     (("fallback", 1), ("acl", 1), ("fallback", 1), ("acl", 1), ("fallback", 1), ("acl", 1), ("fallback", 1))),
    ("only-fallback", [FALLBACK, "CEIL"], (("fallback", 2),)),
]


@pytest.mark.parametrize("case", CHAINS, ids=[c[0] for c in CHAINS])
def test_chain_segments_and_results(case):
    _, opcodes, sides = case
    data = chain(opcodes, SHAPE)
    plan = plan_model(read_model(data), fallback=True)
    assert _sides(plan) == sides
    assert all(f.kind == NO_RULE and f.opcode in (FALLBACK, "CEIL") for f in plan.fallbacks)
    x = np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32)
    got, ref = run_plan(plan, x)["y"], _reference(data, {"x": x})["y"]
    np.testing.assert_allclose(got, ref, atol=tolerance(ref))


def _fan_out():
    """t1 = COS(x) (fallback) feeds two ACL segments: t2 = RELU(t1); t3 = CEIL(t2) (fallback);
    y = ADD(t1, t3) (ACL)."""
    t = [(n, SHAPE, "float32", None, None) for n in ("x", "t1", "t2", "t3", "y")]
    ops = [("COS", ["x"], ["t1"], None), ("RELU", ["t1"], ["t2"], None), ("CEIL", ["t2"], ["t3"], None),
           ("ADD", ["t1", "t3"], ["y"], None)]
    return graph_model(t, ops, ["x"], ["y"])


def test_a_fallback_output_feeds_two_acl_segments():
    data = _fan_out()
    plan = plan_model(read_model(data), fallback=True)
    assert _sides(plan) == (("fallback", 1), ("acl", 1), ("fallback", 1), ("acl", 1))
    t1 = 1
    assert [s.kind for s in plan.steps] == ["activation", "add"] and t1 in plan.steps[0].inputs + plan.steps[1].inputs
    # the memory plan sees the fallback operators: t1 lives from operator 0 to the ADD
    steps = plan.for_memory_plan().steps
    assert [s.kind for s in steps] == ["fallback", "activation", "fallback", "add"]
    x = np.random.default_rng(2).standard_normal(SHAPE).astype(np.float32)
    np.testing.assert_allclose(run_plan(plan, x)["y"], _reference(data, {"x": x})["y"], atol=1e-6)


def _two_inputs():
    """s = ADD(x, z) (ACL); y = COS(s) (fallback, a graph output); w = FLOOR_MOD(x, z) (fallback,
    a graph output made from two graph inputs)."""
    t = [(n, SHAPE, "float32", None, None) for n in ("x", "z", "s", "y", "w")]
    ops = [("ADD", ["x", "z"], ["s"], None), ("COS", ["s"], ["y"], None), ("FLOOR_MOD", ["x", "z"], ["w"], None)]
    return graph_model(t, ops, ["x", "z"], ["y", "w"])


def test_two_graph_inputs_and_graph_outputs_made_by_the_fallback():
    data = _two_inputs()
    model = read_model(data)
    plan = plan_model(model, fallback=True)
    assert _sides(plan) == (("acl", 1), ("fallback", 2))
    rng = np.random.default_rng(3)
    x, z = (rng.standard_normal(SHAPE).astype(np.float32) for _ in range(2))
    ref = _reference(data, {"x": x, "z": z})
    for given in ({"x": x, "z": z}, [x, z], (x, z)):
        got = run_plan(plan, given)
        for name in ("y", "w"):
            np.testing.assert_allclose(got[name], ref[name], atol=1e-6)
    with pytest.raises(ValueError, match=r"one array given, the model has 2 inputs: \['x', 'z'\]"):
        graph_inputs(model, x)
    with pytest.raises(ValueError, match=r"inputs are named \['q', 'x'\], the model's are \['x', 'z'\] "
                                         r"\(unknown: \['q'\]\) \(missing: \['z'\]\)"):
        graph_inputs(model, {"x": x, "q": z})
    with pytest.raises(ValueError, match=r"1 inputs given, the model has 2"):
        graph_inputs(model, [x])


def test_without_the_fallback_a_refusal_names_every_operator_that_does_not_lower():
    """Issue 39: a refusal named only the first of several unsupported operators."""
    model = read_model(chain([ACL, FALLBACK, ACL, "CEIL"], SHAPE))
    every = (r"^2 of the model's 4 operators are not supported: operator #1 COS: the operator \(supported "
             r"operators: .*; operator #3 CEIL: the operator \(supported operators: ")
    with pytest.raises(UnsupportedModelError, match=every):
        plan_model(model)
    with pytest.raises(UnsupportedModelError, match=every):
        partition(model, strict=True)
    one = read_model(chain([ACL, FALLBACK], SHAPE))  # one alone: its reason as it is
    with pytest.raises(UnsupportedModelError, match=r"^operator #1 COS: the operator \(supported operators: "):
        plan_model(one)


def test_the_predicate_names_every_reason():
    model = read_model(chain([ACL, FALLBACK], SHAPE))
    relu, absolute = model.operators
    assert decide(relu, model).on_acl and decide(relu, model).lowered
    d = decide(absolute, model)
    assert (d.on_acl, d.kind) == (False, NO_RULE) and d.reason.startswith("operator #1 COS: the operator (supported")
    refused = decide(relu, model, {0: "operator #0 RELU is refused by ACL 0.0: no"})
    assert (refused.kind, refused.reason) == (ACL_REFUSED, "operator #0 RELU is refused by ACL 0.0: no")
    int8 = dataclasses.replace(model.tensors[1], dtype=np.dtype("int8"))
    mixed = dataclasses.replace(model, tensors=(model.tensors[0], int8) + model.tensors[2:])
    d = decide(relu, mixed)
    assert d.kind == RULE_REFUSED and "tensor types #0 float32, #1 int8" in d.reason
    with pytest.raises(ValueError, match="a decision is ACL"):
        type(d)(0, "RELU", None)


def test_acl_refusals_are_replanned_onto_the_fallback():
    data = chain([ACL, ACL, ACL], SHAPE)
    plan = plan_model(read_model(data), fallback=True, acl_refused={1: "operator #1 RELU is refused by ACL: test"})
    assert _sides(plan) == (("acl", 1), ("fallback", 1), ("acl", 1))
    assert plan.fallbacks[0].kind == ACL_REFUSED and plan.fallbacks[0].reason.endswith("test")
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
    np.testing.assert_allclose(run_plan(plan, x)["y"], np.maximum(x, 0))


def test_operators_neither_side_runs_are_refused_at_load_all_named():
    model = read_model(chain([FALLBACK, ACL, FALLBACK, ACL], SHAPE))
    ops = list(model.operators)
    ops[0] = dataclasses.replace(ops[0], opcode="CUSTOM:MyOp")
    ops[2] = dataclasses.replace(ops[2], opcode="NON_MAX_SUPPRESSION_V5")
    model = dataclasses.replace(model, operators=tuple(ops))
    with pytest.raises(UnsupportedModelError, match=r"2 operator\(s\) run neither on ACL nor on the CPU fallback: "
                                                    r"operator #0 CUSTOM:MyOp \(no fallback kernel for the operator; "
                                                    r"not on ACL: custom\); operator #2 NON_MAX_SUPPRESSION_V5 "
                                                    r"\(no fallback kernel for the operator; not on ACL: no rule\)"):
        plan_model(model, fallback=True)


def test_a_partitioned_plan_reads_back_from_the_plan_cache_as_itself():
    plan = plan_model(read_model(_fan_out()), fallback=True)
    key = {"test": 1}
    back = plan_cache.decode(memoryview(plan_cache.encode(plan, key)), key)
    assert plan_cache.same_plan(plan, back) and back.fallbacks == plan.fallbacks
    whole = plan_model(read_model(chain([ACL, ACL], SHAPE)), fallback=True)
    assert whole.fallbacks == () and whole == dataclasses.replace(whole, fallbacks=())
    assert not plan_cache.same_plan(plan, dataclasses.replace(plan, fallbacks=plan.fallbacks[:1]))


def _padded(shape, pad: PaddingSize, fill: int, guard_bytes: int = 64):
    """A padded NdArray whose padding holds ``fill``, inside an allocation with ``guard_bytes``
    more of ``fill`` after it (the guard)."""
    d = padded_descriptor(tuple(shape), np.dtype(np.float32), pad)
    raw = np.full(d.alloc_size_in_bytes + guard_bytes, fill, np.uint8)
    return NdArray(raw[:d.alloc_size_in_bytes], d), raw


def test_the_fallback_writes_elements_only_padding_and_guard_bytes_untouched():
    """At a boundary the fallback reads and writes the bridge's padded buffers through numpy
    views: an ACL-padded input and output (as the runner's negotiation gives them), a kernel
    run on them, every padding cell and the guard bytes after the allocation as they were,
    nothing copied (the views are the buffers' own memory)."""
    model = read_model(chain([FALLBACK], SHAPE))
    op = model.operators[0]
    x, x_raw = _padded(SHAPE, PaddingSize(top=1, right=2, bottom=1, left=3), 0x5A)
    y, y_raw = _padded(SHAPE, PaddingSize(top=2, right=1, bottom=0, left=1), 0xA5)
    value = np.random.default_rng(5).standard_normal(SHAPE).astype(np.float32)
    x.numpy()[...] = value
    before_x, before_y = x_raw.copy(), y_raw.copy()
    views = {op.inputs[0]: x.numpy(), op.outputs[0]: y.numpy()}
    assert np.shares_memory(views[op.outputs[0]], y_raw)
    prepare(op, model, views)()
    np.testing.assert_array_equal(y.numpy(), np.cos(value))
    pad_y = y.padding_mask()
    assert pad_y.any()
    assert (y.buffer().view(np.uint8).reshape(-1, 4)[pad_y] == before_y[:y.allocation.nbytes].reshape(-1, 4)[pad_y]).all()
    assert (y_raw[y.allocation.nbytes:] == 0xA5).all()  # the guard
    np.testing.assert_array_equal(x_raw, before_x)  # the input: not a byte changed
