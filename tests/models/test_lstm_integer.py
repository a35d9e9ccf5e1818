"""TFLite's integer LSTM (8x8_16) on the host: the reader keeps the operator's
``intermediates`` (through the parsed-model and plan caches), and the fallback's numpy kernel
(acl_bridge.models.fallback.lstm_integer) equals TFLite's interpreter bit for bit on
one-operator LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM models (lstm_int8_tflite) with every
optional part: CIFG, peepholes (with n_output != n_cell, where TFLite's kernel reads the
peephole over n_output cells), projection with and without bias, layer normalization
(n_cell a power of two and not), clips, a hidden zero point, both time layouts; run by the
numpy executor and by the runner on numpy, every run from the zero state."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.models.fallback.lstm_integer import sigmoid_table, tanh_table  # noqa: E402
from acl_bridge.models.format import model_cache  # noqa: E402
from acl_bridge.models.format.tflite_reader import ModelFormatError, UnsupportedModelError, read_model  # noqa: E402
from acl_bridge.models.planning import plan_cache  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from .conftest import host_only_under_emulation, interpreter_outputs  # noqa: E402
from .lstm_int8_tflite import int8_lstm_case_model, int8_lstm_model  # noqa: E402
from .lstm_tflite import lstm_operands  # noqa: E402

pytestmark = host_only_under_emulation

SEQ = "UNIDIRECTIONAL_SEQUENCE_LSTM"
# (id, opcode, batch, n_input, n_cell, n_output, keywords of int8_lstm_case_model)
CASES = [
    ("lstm-plain", "LSTM", 2, 3, 4, 4, {}),
    ("lstm-cifg", "LSTM", 2, 3, 4, 4, {"cifg": True}),
    ("lstm-peephole", "LSTM", 2, 3, 4, 4, {"peephole": True}),
    ("lstm-peephole-projection", "LSTM", 3, 4, 8, 5, {"peephole": True, "projection": True}),
    ("lstm-projection-bias-hidden-zp", "LSTM", 2, 3, 5, 3, {"projection": True, "projection_bias": True,
                                                             "hidden_q": (2.0 ** -9, 5)}),
    ("lstm-hidden-zp", "LSTM", 2, 3, 4, 4, {"hidden_q": (2.0 ** -7, -2)}),
    ("lstm-layer-norm", "LSTM", 2, 3, 4, 4, {"layer_norm": True}),
    ("lstm-layer-norm-5-cells", "LSTM", 2, 3, 5, 5, {"layer_norm": True, "peephole": True}),
    ("lstm-clips", "LSTM", 2, 3, 5, 3, {"projection": True, "cell_clip": 0.3, "proj_clip": 0.2}),
    ("seq-batch-major", SEQ, 2, 3, 4, 4, {"time": 5}),
    ("seq-batch-major-peephole", SEQ, 3, 4, 8, 5, {"time": 4, "peephole": True, "projection": True}),
    ("seq-time-major-everything", SEQ, 3, 2, 5, 3, {"time": 4, "time_major": True, "cifg": True, "peephole": True,
                                                    "projection": True, "layer_norm": True}),
    ("seq-layer-norm-clips", SEQ, 2, 3, 4, 2, {"time": 3, "peephole": True, "projection": True,
                                               "projection_bias": True, "layer_norm": True, "cell_clip": 0.5,
                                               "proj_clip": 0.3, "hidden_q": (2.0 ** -8, -40)}),
]


def _x(data: bytes, seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).integers(-128, 128, read_model(data).tensors[0].shape).astype(np.int8)


def _model(case) -> bytes:
    _, opcode, batch, n_input, n_cell, n_output, kw = case
    return int8_lstm_case_model(opcode, batch, n_input, n_cell, n_output, **kw)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_integer_kernel_equals_the_interpreter_bit_for_bit(case):
    data = _model(case)
    plan = plan_model(read_model(data), fallback=True)
    assert [f.opcode for f in plan.fallbacks] == [case[1]]
    for seed in (3, 4):
        x = _x(data, seed)
        ref = interpreter_outputs(data, x)["output"]
        got = run_plan(plan, x)["output"]
        assert got.dtype == np.int8 and got.shape == ref.shape
        assert np.array_equal(got, ref), f"{int((got != ref).sum())} of {ref.size} differ"
        assert np.array_equal(run_plan(plan, x)["output"], got)  # every run from the zero state


def test_the_reader_keeps_the_intermediates_through_both_caches():
    data = _model(CASES[6])
    spec = read_model(data)
    op = spec.operators[0]
    assert [spec.tensors[i].name for i in op.intermediates] == [f"gate{g}_matmul" for g in range(4)] + \
        ["effective_hidden"]
    assert [spec.tensors[i].quantization.scale[0] for i in op.intermediates] == \
        [pytest.approx(1e-4)] * 4 + [2.0 ** -7]
    key = {"test": 1}
    assert model_cache.decode(model_cache.encode(spec, key), key).operators == spec.operators
    plan = plan_model(spec, fallback=True)
    assert plan_cache.decode(plan_cache.encode(plan, key), key).model.operators == spec.operators
    # a model without intermediates encodes its operators as before (plans of other models unchanged)
    float_spec = read_model(int8_lstm_case_model("LSTM", 1, 2, 2, 2, intermediates=0))
    assert float_spec.operators[0].intermediates == ()
    assert len(model_cache.encode_spec(float_spec, model_cache._Data())["operators"][0]) == 5


def test_the_runner_on_numpy_runs_it_from_the_plan_cache(tmp_path, monkeypatch):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    monkeypatch.setenv(model_cache.DIR_ENV, str(tmp_path))
    data = _model(CASES[11])
    x = _x(data)
    ref = interpreter_outputs(data, x)["output"]
    for _ in range(2):  # the second load reads the plan from the cache
        runner = TfliteRunner(data, backend="numpy")
        assert np.array_equal(runner.run(x)["output"], ref)
    assert len(list(tmp_path.glob("*.aclplan"))) == 1


def test_an_intermediate_outside_the_graph_is_refused_naming_it():
    operands = lstm_operands(3, 4, 4)
    data = int8_lstm_model("LSTM", (2, 3), (2, 4), operands, 2, 4, 4, {"FusedActivationFunction": "TANH"},
                           intermediate_ids=(1, 2, 3, 4, 999))
    with pytest.raises(ModelFormatError, match="operator #0 LSTM intermediate 4 is 999, expected an index in"):
        read_model(data)


@pytest.mark.parametrize("count, message", [(0, "an integer LSTM with 0 intermediates"),
                                            (12, "an integer LSTM with 12 intermediates")])
def test_other_than_five_intermediates_is_refused_at_load(count, message):
    """TFLite's 8x8_16 kernel reads 5 intermediates; 12 is its 8x8_8 kernel, not run here."""
    data = int8_lstm_case_model("LSTM", 2, 3, 4, 4, intermediates=count)
    with pytest.raises(UnsupportedModelError, match=rf"operator #0 LSTM .*{message}"):
        plan_model(read_model(data), fallback=True)


@pytest.mark.parametrize("scale", [2.0 ** -8, 3e-4])
def test_a_cell_state_scale_tflite_does_not_take_is_refused_at_load(scale):
    """TFLite's integer LSTM takes a cell state of scale 2^n, n <= -9 (lstm.cc's CheckedLog2)."""
    data = int8_lstm_model("LSTM", (2, 3), (2, 4), lstm_operands(3, 4, 4), 2, 4, 4,
                           {"FusedActivationFunction": "TANH"}, cell_scale=scale)
    stored = float(np.float32(scale))  # the file's float32
    with pytest.raises(UnsupportedModelError, match=rf"a cell state of scale {stored} \(TFLite's integer LSTM takes "
                                                    rf"2\^n, n <= -9\)"):
        plan_model(read_model(data), fallback=True)


def test_the_fixed_point_activations_follow_the_functions():
    """gemmlowp's int16 sigmoid (Q3.12 in) and tanh (Q0-Q6 in) tables over every input against
    float64, in LSB of Q0.15 (measured: sigmoid 6.4, tanh at most 12.05); the model cases
    above pin the bits."""
    q = np.arange(-32768, 32768)
    assert sigmoid_table(3)[32768] == 16384 and tanh_table(3)[32768] == 0
    assert np.abs(sigmoid_table(3) - 2.0 ** 15 / (1 + np.exp(-q / 2.0 ** 12))).max() <= 6.5
    for bits in range(7):
        assert np.abs(tanh_table(bits) - 2.0 ** 15 * np.tanh(q / 2.0 ** (15 - bits))).max() <= 12.1
    assert math.isclose(tanh_table(4)[32768 + 2048] / 2.0 ** 15, math.tanh(1.0), abs_tol=4e-4)
