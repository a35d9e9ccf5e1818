"""int8 LSTM (TFLite's integer LSTM) lowered onto the ``qlstm`` kind (ACL's NEQLSTMLayer,
acl_bridge.models.lowering.rules.qlstm): which configurations lower and which the rule refuses
with its reason (the partitioned runner's fallback then runs TFLite's kernel bit for bit), the
numpy executor of the lowered plan equal to TFLite's interpreter bit for bit (host), and the
one-operator models on ACL against TFLite's interpreter (emulated: the bit-exact count and the
largest difference in int8 steps printed, within the measured bound)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.format.tflite_reader import read_model  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from .conftest import interpreter_outputs  # noqa: E402
from .lstm_int8_tflite import int8_lstm_case_model  # noqa: E402

# (name, batch, n_input, n_cell, n_output, int8_lstm_case_model options): one qlstm step each
LOWERED = [
    ("plain", 2, 3, 4, 4, {}),
    ("cifg", 2, 3, 4, 4, {"cifg": True}),
    ("peephole", 2, 3, 4, 4, {"peephole": True}),
    ("layer_norm", 2, 3, 5, 5, {"layer_norm": True, "gate_scale": 3e-4}),
    ("cifg-peephole-layer_norm", 1, 3, 4, 4, {"cifg": True, "peephole": True, "layer_norm": True}),
    ("hidden-zero-point", 2, 3, 4, 4, {"hidden_q": (2.0 ** -7, 5)}),
]
# (name, opcode, options, the refusal's words)
REFUSED = [
    ("cell-clip", "LSTM", {"cell_clip": 0.5}, "LU_BOUNDED_RELU(a=-clip, b=clip)"),
    ("projection-clip", "LSTM", {"projection": True, "proj_clip": 0.2}, "LU_BOUNDED_RELU(a=-clip, b=clip)"),
    ("projection", "LSTM", {"projection": True}, "adds the contents of its output state tensor"),
    ("sequence", "UNIDIRECTIONAL_SEQUENCE_LSTM", {"time": 2}, "int8"),
]
# measured max |ACL - TFLite's interpreter| of the int8 output, in steps (ACL 24.11 NEON, QEMU)
BOUND = {c[0]: 127 for c in LOWERED}


def _model(case) -> bytes:
    _, batch, n_input, n_cell, n_output, kw = case
    return int8_lstm_case_model("LSTM", batch, n_input, n_cell, n_output, **kw)


def _x(plan, seed: int = 9) -> np.ndarray:
    shape = plan.model.tensors[plan.model.inputs[0]].shape
    return np.random.default_rng(seed).integers(-128, 128, shape).astype(np.int8)


@pytest.mark.parametrize("case", LOWERED, ids=[c[0] for c in LOWERED])
def test_an_int8_lstm_lowers_to_one_qlstm_step_equal_to_tflite(case):
    data = _model(case)
    plan = plan_model(read_model(data), fallback=True)
    assert plan.fallbacks == () and [s.kind for s in plan.steps] == ["qlstm"]
    for seed in (9, 10):
        x = _x(plan, seed)
        want = interpreter_outputs(data, x)
        got = run_plan(plan, x)["output"]
        assert got.dtype == np.int8 and np.array_equal(got, next(iter(want.values())))


@pytest.mark.parametrize("case", REFUSED, ids=[c[0] for c in REFUSED])
def test_the_rule_refuses_what_acl_computes_otherwise(case):
    name, opcode, kw, words = case
    data = int8_lstm_case_model(opcode, 2, 3, 4, 4 if "projection" not in kw else 3, **kw)
    plan = plan_model(read_model(data), fallback=True)
    assert not plan.steps and [f.opcode for f in plan.fallbacks] == [opcode]
    assert words in plan.fallbacks[0].reason, plan.fallbacks[0].reason


def test_peepholes_with_n_cell_unlike_n_output_are_refused():
    data = int8_lstm_case_model("LSTM", 2, 3, 5, 3, peephole=True)
    plan = plan_model(read_model(data), fallback=True)
    assert not plan.steps and "TFLite's kernel applies the peephole over n_output cells" in plan.fallbacks[0].reason


@pytest.mark.acl
@pytest.mark.parametrize("case", LOWERED, ids=[c[0] for c in LOWERED])
def test_an_int8_lstm_on_acl_against_tflites_interpreter(case):
    from acl_bridge import native

    from .test_elementwise_acl import _runner

    data = _model(case)
    r = _runner(data, "neon")
    try:
        if native.acl_version().startswith("20."):
            assert [(f.opcode, f.kind) for f in r.plan.fallbacks] == [("LSTM", "refused by ACL")], r.plan.fallbacks
        else:
            assert r.plan.fallbacks == () and [s.kind for s in r.plan.steps] == ["qlstm"]
        x = _x(r.plan)
        got = np.array(r.run(x)["output"]).astype(np.int64)
        want = next(iter(interpreter_outputs(data, x).values())).astype(np.int64)
        diff = np.abs(got - want)
        print(f"qlstm {case[0]}: {int((diff == 0).sum())} of {diff.size} bit-exact, max |ACL - TFLite| "
              f"{int(diff.max())} steps", flush=True)
        assert diff.max() <= (0 if native.acl_version().startswith("20.") else BOUND[case[0]])
    finally:
        r.close()
