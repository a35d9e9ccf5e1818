"""LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM on ACL (emulated arm64): tiny one-operator models of
``test_lstm_lowering.py`` run by the runner, every step on ACL's LSTMLayer, compared with the
numpy executor of the same plan (itself checked against TFLite's interpreter on the host).
ACL 20.08 refuses the kind (its LSTMLayer's configure did not return: native/acl_shim_lstm.cpp):
there the operator runs on the CPU fallback."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402

from .conftest import tolerance  # noqa: E402
from .lstm_tflite import lstm_case_model  # noqa: E402
from .test_elementwise_acl import _runner  # noqa: E402
from .test_lstm_lowering import CASES  # noqa: E402

pytestmark = pytest.mark.acl

ON_ACL = [c for c in CASES if c[0] in ("lstm-everything-relu", "seq-time-major", "seq-batch-major-batch1-projection")]


@pytest.mark.parametrize("case", ON_ACL, ids=[c[0] for c in ON_ACL])
def test_lstm_on_acl_matches_the_plan(case):
    _, opcode, batch, n_input, n_cell, n_output, kw, steps = case
    from acl_bridge import native

    r = _runner(lstm_case_model(opcode, batch, n_input, n_cell, n_output, **kw), "neon")
    try:
        if native.acl_version().startswith("20."):
            assert [(f.opcode, f.kind) for f in r.plan.fallbacks] == [(opcode, "refused by ACL")], r.plan.fallbacks
            assert "NELSTMLayer::validate: refused on ACL 2008" in r.plan.fallbacks[0].reason and not r.plan.steps
        else:
            assert r.plan.fallbacks == () and [s.kind for s in r.plan.steps] == ["lstm"] * steps
        shape = r.plan.model.tensors[r.plan.model.inputs[0]].shape
        x = np.random.default_rng(9).uniform(-2, 2, shape).astype(np.float32)
        got, ref = np.array(r.run(x)["output"]), run_plan(r.plan, x)["output"]
        again = np.array(r.run(x)["output"])  # every run from the zero state
        assert got.shape == ref.shape
        print(f"{case[0]}: max |ACL - numpy| {np.abs(got - ref).max():.3g}")
        # ACL's vectorised tanh / logistic approximations: 1e-5 of the largest output more
        assert np.abs(got - ref).max() <= tolerance(ref) + 1e-5 * np.abs(ref).max()
        assert np.array_equal(again, got)
    finally:
        r.close()


@pytest.mark.parametrize("opcode", ["LSTM", "UNIDIRECTIONAL_SEQUENCE_LSTM"])
def test_an_int8_lstm_model_runs_on_the_partitioned_runner(opcode):
    """TFLite's integer LSTM: the CPU fallback's integer kernel (bit for bit with TFLite's
    interpreter on the host, test_lstm_integer.py) in the runner on ACL, its int8 output
    equal to the numpy executor's."""
    from .lstm_int8_tflite import int8_lstm_case_model

    data = int8_lstm_case_model(opcode, 2, 3, 4, 4, peephole=True, layer_norm=True,
                                **({"time": 2} if opcode != "LSTM" else {}))
    r = _runner(data, "neon")
    try:
        assert [f.opcode for f in r.plan.fallbacks] == [opcode] and not r.plan.steps
        shape = r.plan.model.tensors[r.plan.model.inputs[0]].shape
        x = np.random.default_rng(9).integers(-128, 128, shape).astype(np.int8)
        got = np.array(r.run(x)["output"])
        assert got.dtype == np.int8 and np.array_equal(got, run_plan(r.plan, x)["output"])
    finally:
        r.close()
