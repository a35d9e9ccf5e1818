"""LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM on the CPU fallback against TFLite's interpreter
(host): one-operator models (lstm_tflite) with every optional part (CIFG, peephole,
projection with and without bias, layer normalization), clips, activations and both time
layouts, the operator forced onto the fallback and run by the numpy executor, compared
element by element; the state starts from zeros at every run, as TFLite's after
reset_all_variables()."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.models.format.tflite_reader import ModelFormatError, UnsupportedModelError, read_model  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from .conftest import host_only_under_emulation, interpreter_outputs, tolerance  # noqa: E402
from .lstm_tflite import lstm_case_model, lstm_model, lstm_operands  # noqa: E402

pytestmark = host_only_under_emulation

SEQ = "UNIDIRECTIONAL_SEQUENCE_LSTM"
# (id, opcode, batch, n_input, n_cell, n_output, keywords of lstm_case_model)
CASES = [
    ("lstm-plain", "LSTM", 2, 3, 4, 4, {}),
    ("lstm-cifg-peephole", "LSTM", 1, 5, 3, 3, {"cifg": True, "peephole": True}),
    ("lstm-projection-clips", "LSTM", 3, 4, 6, 2, {"projection": True, "projection_bias": True, "cell_clip": 0.3,
                                                   "proj_clip": 0.2}),
    ("lstm-layer-norm-peephole", "LSTM", 2, 3, 5, 5, {"layer_norm": True, "peephole": True}),
    ("lstm-relu6", "LSTM", 2, 3, 4, 4, {"activation": "RELU6"}),
    ("seq-batch-major", SEQ, 2, 3, 4, 4, {"time": 5}),
    ("seq-time-major-projection", SEQ, 3, 2, 5, 3, {"time": 4, "time_major": True, "projection": True}),
    ("seq-everything", SEQ, 2, 3, 4, 2, {"time": 3, "cifg": True, "peephole": True, "projection": True,
                                         "layer_norm": True, "cell_clip": 0.5, "proj_clip": 0.3}),
    ("seq-cifg-layer-norm-time-major", SEQ, 1, 4, 3, 3, {"time": 6, "time_major": True, "cifg": True,
                                                         "layer_norm": True, "activation": "RELU"}),
]


def _x(data: bytes) -> np.ndarray:
    shape = read_model(data).tensors[0].shape
    return np.random.default_rng(7).uniform(-2, 2, shape).astype(np.float32)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_fallback_matches_the_interpreter(case):
    _, opcode, batch, n_input, n_cell, n_output, kw = case
    data = lstm_case_model(opcode, batch, n_input, n_cell, n_output, **kw)
    plan = plan_model(read_model(data), fallback=True, acl_refused={0: "forced onto the fallback by the test"})
    assert [f.opcode for f in plan.fallbacks] == [opcode]
    x = _x(data)
    ref = interpreter_outputs(data, x)["output"]
    got = run_plan(plan, x)["output"]
    assert got.shape == ref.shape
    assert np.abs(got - ref).max() <= tolerance(ref)
    assert np.array_equal(run_plan(plan, x)["output"], got)  # every run from the zero state


def test_the_state_tensors_are_read_as_zero_constants():
    data = lstm_case_model("LSTM", 2, 3, 4, 4)
    spec = read_model(data)
    states = [spec.tensors[spec.operators[0].inputs[k]] for k in (18, 19)]
    assert [(s.name, s.shape) for s in states] == [("output_state", (2, 4)), ("cell_state", (2, 4))]
    assert all(s.is_constant and not s.data.any() and not s.data.flags.writeable for s in states)


def _model_with(opcode: str, operands: list, options=None) -> bytes:
    opts = {"FusedActivationFunction": "TANH", **(options or {})}
    if opcode == SEQ:
        return lstm_model(opcode, (2, 3, 3), (2, 3, 4), operands, 2, 4, 4, {"TimeMajor": False, **opts})
    return lstm_model(opcode, (2, 3), (2, 4), operands, 2, 4, 4, opts)


def test_the_basic_kernel_and_sign_bit_are_refused_by_name():
    operands = lstm_operands(3, 4, 4)
    with pytest.raises(UnsupportedModelError, match="BASIC"):
        plan_model(read_model(_model_with("LSTM", operands, {"KernelType": 1})), fallback=True)
    with pytest.raises(UnsupportedModelError, match="SIGN_BIT"):
        plan_model(read_model(_model_with(SEQ, operands, {"FusedActivationFunction": "SIGN_BIT"})), fallback=True)


@pytest.mark.parametrize("k, message", [(2, "input 2 is absent"), (9, "input 9 is present where"),
                                        (7, "input 7 has shape")])
def test_inconsistent_operands_name_the_input(k, message):
    operands = lstm_operands(3, 4, 4)
    operands[k] = None if k == 2 else np.zeros((4, 2) if k == 7 else (4,), np.float32)
    with pytest.raises(ModelFormatError, match=message):
        plan_model(read_model(_model_with("LSTM", operands)), fallback=True)


def test_a_state_that_is_not_variable_is_refused():
    spec = read_model(_model_with("LSTM", lstm_operands(3, 4, 4)))
    live = spec.operators[0].inputs[19]
    tensors = list(spec.tensors)
    tensors[live] = dataclasses.replace(tensors[live], data=None)
    with pytest.raises(UnsupportedModelError, match="input 19 'cell_state' that is not a constant"):
        plan_model(dataclasses.replace(spec, tensors=tuple(tensors)), fallback=True)


@pytest.mark.parametrize("opcode", ["LSTM", SEQ])
def test_an_integer_lstm_runs_on_the_fallback(opcode):
    """TFLite's integer LSTM (int8 input and output, int8 weights, int32 biases, int16 cell
    state) runs on the fallback's integer kernel, equal to TFLite's interpreter bit for bit
    (every option: test_lstm_integer.py); not on ACL (the rule is float32 only: ACL's
    QLSTMLayer is not lowered, docs/models.md says what it would take)."""
    from .lstm_int8_tflite import int8_lstm_case_model

    data = int8_lstm_case_model(opcode, 2, 3, 4, 4, peephole=True, layer_norm=True,
                                **({"time": 3} if opcode == SEQ else {}))
    plan = plan_model(read_model(data), fallback=True)
    assert [(f.opcode, f.kind) for f in plan.fallbacks] == [(opcode, "refused by the rule")]
    x = np.random.default_rng(7).integers(-128, 128, read_model(data).tensors[0].shape).astype(np.int8)
    assert np.array_equal(run_plan(plan, x)["output"], interpreter_outputs(data, x)["output"])


@pytest.mark.parametrize("opcode", ["LSTM", SEQ])
def test_an_integer_lstm_without_intermediates_is_refused_naming_them(opcode):
    """An integer LSTM whose operator lists no intermediates (TFLite's kernel reads its gate and
    hidden scales there) is refused at load naming the operator: written as the float model's
    tensors retyped (the refusal reads the types and the intermediates only)."""
    from acl_bridge.models.format.tflite_reader import Quantization

    spec = read_model(_model_with(opcode, lstm_operands(3, 4, 4)))
    op = spec.operators[0]
    tensors = list(spec.tensors)

    def retyped(i: int, dtype, scale: float) -> None:
        t = tensors[i]
        data = None if t.data is None else np.zeros(t.shape, dtype)
        tensors[i] = dataclasses.replace(t, dtype=np.dtype(dtype), data=data, quantization=Quantization((scale,), (0,)))

    for k, i in enumerate(op.inputs):
        if i >= 0:
            retyped(i, np.int32 if 12 <= k <= 15 else np.int16 if k == 19 else np.int8,
                    2.0 ** -11 if k == 19 else 0.01)
    retyped(op.outputs[0], np.int8, 0.01)
    with pytest.raises(UnsupportedModelError,
                       match=rf"operator #0 {opcode} \(operator #0 {opcode}: an integer LSTM with 0 intermediates "
                             rf"\(TFLite's 8x8_16 kernel reads 5: .*; not on ACL: refused by the rule\)"):
        plan_model(dataclasses.replace(spec, tensors=tuple(tensors)), fallback=True)
