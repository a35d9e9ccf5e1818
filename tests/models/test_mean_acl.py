"""MEAN on ACL (emulated arm64): the one-operator MEAN models of ``test_one_operator.py``
(float32; int8 / uint8 with equal and unequal input and output scales, nonzero zero points,
keep_dims true and false) run by the runner, against TFLite's arithmetic run on the model file
itself (``tflite_int8_oracle.Int8Oracle``: not the bridge's plan, so a lowering bug that ACL
and the numpy plan would share is seen; bit for bit with TFLite's reference kernels on the host,
``test_tflite_int8_oracle.py``). The plan is one global average ``pooling``
step; without keep_dims the output is a view of the plan's (N, 1, 1, C) tensor: no copy step
(and on 24.11 nothing staged).

ACL's quantized average pooling is not TFLite's MEAN arithmetic. Measured on ACL 24.11
(QEMU max; every output of the cases below over 30 inputs each reproduced exactly by this
float model, fitted on the host): with different input and output quantization it adds the
raw int8 values (sum ``s`` of ``n``), and writes ``round(s / new_scale) + new_offset`` with
``new_scale = (out_scale / in_scale) * n`` in float32 and ``new_offset = out_zero_point -
trunc(in_zero_point / (out_scale / in_scale))`` truncated toward zero; with equal
quantization ``round(s / n)`` of the raw values (ties to even). TFLite's reference MEAN
rescales ``s - n * in_zero_point`` by one fixed-point multiplier and adds the output zero
point. The truncated offset moves every output by less than one step (and ties round
otherwise): at most 1 step from TFLite's arithmetic, on many outputs where the truncated
fraction is large (0.0203 -> 0.0334 with zero points -128: 432 of 480 outputs). The bounds
below are measured (``MEAN_BOUND_LSB``), the counts printed (pytest -s).

ACL 20.08 (measured): 1 step with different quantization, 2 with equal quantization (34 of
90 and 66 of 210 outputs equal); its pooling asks for padding on outputs of fewer than 16
channels, which the bridge stages (3 to 12 bytes per inference here, counted); the two batch-2
cases it refused at load ("Insufficient Padding!") until issue 36 (the pooled (2, 1, 1, C)
tensor's size-1 rows hid the right padding 20.08 asks: mapping.size1_strides) now run
(measured: the int8 one within 1 step, 24 of 240 outputs equal)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("flatbuffers", reason="the 'flatbuffers' package is not installed")

from .conftest import tolerance  # noqa: E402
from .tflite_int8_oracle import Int8Oracle  # noqa: E402
from .test_one_operator import CASES, MEAN_CASES, mean_inputs, one_operator_model  # noqa: E402

pytestmark = pytest.mark.acl

FLOAT_MEAN = [c for c in CASES if c.opcode == "MEAN" and c.kinds == ("pooling",)]  # (reduce_mean: test_elementwise_acl.py)
# output steps (LSB) from TFLite's arithmetic, per ACL version: measured, see the docstring
MEAN_BOUND_LSB = {"24.11": 1, "20.08": 2}


def _acl_version():
    from acl_bridge import native

    return "20.08" if native.acl_version().startswith("20.08") else "24.11"


def _runner(data):
    """The runner with nothing on the fallback (``fallback=False``: a refusal fails the test)."""
    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    native.set_num_threads(1)
    return TfliteRunner(data, fallback=False)


def _check_copies(r, x):
    """One pooling step, no copy step; on 24.11 nothing staged (20.08 stages what its
    pooling wants padded: counted, printed)."""
    c = r.copied_bytes_per_inference
    assert c["input"] == x.nbytes and c["copy_steps"] == 0, r.summary()
    assert [s.kind for s in r.plan.steps] == ["pooling"]
    if _acl_version() == "24.11":
        assert c["staged"] == 0, r.summary()
    print(f"  copied per inference: {c}")


@pytest.mark.parametrize("case", FLOAT_MEAN, ids=[c.id for c in FLOAT_MEAN])
def test_float_mean_on_acl(case):
    data = one_operator_model(case.opcode, case.x, case.y, case.inputs, case.options, case.version)
    oracle = Int8Oracle(data)
    r = _runner(data)
    try:
        rng = np.random.default_rng(3)
        for _ in range(5):
            x = rng.uniform(-3, 3, case.x).astype(np.float32)
            got, ref = np.array(r.run(x)["output"]), oracle.run(x)["output"]
            assert got.shape == ref.shape == case.y
            assert np.abs(got - ref).max() <= tolerance(ref)
        _check_copies(r, x)
    finally:
        r.close()


@pytest.mark.parametrize("case", MEAN_CASES, ids=[c.id for c in MEAN_CASES])
def test_int8_mean_on_acl_within_the_measured_steps(case):
    data = case.model()
    oracle = Int8Oracle(data)
    r = _runner(data)
    try:
        worst = differ = total = 0
        for x in mean_inputs(case, 30):
            got, ref = np.array(r.run(x)["output"]), oracle.run(x)["output"]
            assert got.dtype == ref.dtype and got.shape == ref.shape == case.y
            d = np.abs(got.astype(np.int64) - ref.astype(np.int64))
            worst, differ, total = max(worst, int(d.max())), differ + int((d > 0).sum()), total + d.size
        print(f"{case.id} on ACL {_acl_version()}: {total - differ}/{total} outputs equal to TFLite's reference "
              f"arithmetic, max {worst} LSB")
        assert worst <= MEAN_BOUND_LSB[_acl_version()]
        _check_copies(r, x)
    finally:
        r.close()
