"""LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM lowered to ``lstm`` steps (acl_bridge/models/lowering/
rules/lstm.py): the plan carried out by numpy against TFLite's interpreter element by
element (host), its steps bound to the bridge's Lstm function, the sequence's time steps
read and written as views of the input and output (no copy step), and the refusals the
fallback takes over."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.models.format.tflite_reader import UnsupportedModelError, read_model  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from .conftest import host_only_under_emulation, interpreter_outputs, tolerance  # noqa: E402
from .lstm_tflite import lstm_case_model  # noqa: E402
from .test_plan import assert_steps_bind  # noqa: E402

SEQ = "UNIDIRECTIONAL_SEQUENCE_LSTM"
# (id, opcode, batch, n_input, n_cell, n_output, keywords of lstm_case_model, lstm steps)
CASES = [
    ("lstm-plain", "LSTM", 2, 3, 4, 4, {}, 1),
    ("lstm-everything-relu", "LSTM", 2, 4, 5, 3, {"cifg": True, "peephole": True, "projection": True,
                                                  "projection_bias": True, "layer_norm": True, "cell_clip": 0.4,
                                                  "proj_clip": 0.3, "activation": "RELU"}, 1),
    ("seq-time-major", SEQ, 2, 3, 4, 4, {"time": 3, "time_major": True}, 5),
    ("seq-batch-major-batch1-projection", SEQ, 1, 3, 5, 2, {"time": 4, "projection": True, "peephole": True}, 7),
    ("seq-time-major-layer-norm-cifg", SEQ, 3, 2, 4, 4, {"time": 2, "time_major": True, "cifg": True,
                                                         "layer_norm": True}, 3),
]


def _x(data: bytes) -> np.ndarray:
    return np.random.default_rng(9).uniform(-2, 2, read_model(data).tensors[0].shape).astype(np.float32)


@host_only_under_emulation
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_lowered_plan_matches_the_interpreter(case):
    _, opcode, batch, n_input, n_cell, n_output, kw, steps = case
    data = lstm_case_model(opcode, batch, n_input, n_cell, n_output, **kw)
    plan = plan_model(read_model(data))
    assert [s.kind for s in plan.steps] == ["lstm"] * steps  # the time steps' slices are views: no copy step
    x = _x(data)
    ref = interpreter_outputs(data, x)["output"]
    got = run_plan(plan, x)["output"]
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() <= tolerance(ref)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_lstm_steps_bind_to_the_bridge_function(case, monkeypatch):
    _, opcode, batch, n_input, n_cell, n_output, kw, _ = case
    assert_steps_bind(plan_model(read_model(lstm_case_model(opcode, batch, n_input, n_cell, n_output, **kw))),
                      monkeypatch)


def test_each_sequence_step_writes_one_output_and_leaves_out_the_rest():
    plan = plan_model(read_model(lstm_case_model(SEQ, 2, 3, 4, 4, time=2, time_major=True)))
    absent = [set(s.param("absent")) & {"output_state_out", "cell_state_out", "dst"} for s in plan.steps]
    assert absent == [{"output_state_out", "dst"}, {"output_state_out", "cell_state_out"},
                      {"output_state_out", "cell_state_out"}]
    assert {"cell_to_forget_weights", "projection_weights", "input_layer_norm_weights"} <= set(plan.steps[0].param("absent"))
    first, later = plan.steps[1], plan.steps[2]
    assert {"output_state_in", "cell_state_in"} <= {r for r, _ in first.constants}  # the zero state
    assert not {"output_state_in", "cell_state_in"} & {r for r, _ in later.constants}
    assert later.inputs[1:] == (first.output, plan.steps[0].output)  # h[0] and c[0]


def test_batch_major_batches_are_refused_so_the_fallback_runs_them():
    data = lstm_case_model(SEQ, 2, 3, 4, 4, time=3)
    with pytest.raises(UnsupportedModelError, match="batch-major input of batch 2"):
        plan_model(read_model(data))
    plan = plan_model(read_model(data), fallback=True)
    assert [f.opcode for f in plan.fallbacks] == [SEQ] and not plan.steps


def test_the_rule_names_the_bridge_functions_roles():
    """The lowering names no bridge module (import contracts): its copy of the roles is Lstm's."""
    from acl_bridge.families.lstm import Lstm
    from acl_bridge.models.lowering.rules import lstm as rule

    assert rule.ROLES + rule.OUTPUTS == Lstm.roles and rule.OUTPUTS == Lstm.outputs
