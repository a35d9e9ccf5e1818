"""The neural-network layers of issue 37 on ACL (emulated arm64): the one-operator models of
``test_one_operator.py`` whose rules are ``rules/nn.py`` (TRANSPOSE_CONV, L2_POOL_2D,
L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION, LOG_SOFTMAX, RESIZE_NEAREST_NEIGHBOR,
BATCH_MATMUL, CONV_3D), run by the runner and compared with the numpy executor of the same plan (itself
checked against TFLite's interpreter on the host), as ``test_elementwise_acl.py`` does. ACL
20.08 has no MatMul and no Conv3D: there BATCH_MATMUL and CONV_3D must be refused by ACL and run
on the CPU fallback."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402

from .test_elementwise_acl import _runner, check_float, check_int8  # noqa: E402
from .test_one_operator import CASES, INT8_CASES, _int8_input  # noqa: E402
from .tiny_tflite import one_operator_model  # noqa: E402

pytestmark = pytest.mark.acl

NN = {"TRANSPOSE_CONV", "L2_POOL_2D", "L2_NORMALIZATION", "LOCAL_RESPONSE_NORMALIZATION", "LOG_SOFTMAX",
      "RESIZE_NEAREST_NEIGHBOR", "BATCH_MATMUL", "CONV_3D"}
# what ACL 20.08 has no function for: the shim's refusal (as ACL's), the fallback runs it
NOT_ON_20_08 = {"BATCH_MATMUL": "NEMatMul::validate: ACL 2008 has no MatMul function",
                "CONV_3D": "NEConv3D::validate: ACL 2008 has no Conv3D function"}
FLOAT = [c for c in CASES if c.opcode in NN and c.opcode not in NOT_ON_20_08]
MATMUL = [c for c in CASES if c.opcode in NOT_ON_20_08]
INT8 = [c for c in INT8_CASES if c.opcode in NN]


@pytest.mark.parametrize("case", FLOAT, ids=[c.id for c in FLOAT])
def test_float_layer_on_acl_matches_the_plan(case):
    check_float(case, "neon")


# int8 cases ACL 20.08 refuses (measured on bookworm): its deconvolution takes per-tensor int8
# weights only ("Tensors have different data types" for QSYMM8_PER_CHANNEL)
INT8_NOT_ON_20_08 = {"transpose_conv_per_channel": "Tensors have different data types"}


def _refused_by_20_08(case, reason: str, data: bytes, x) -> None:
    """On ACL 20.08: the operator refused by ACL (``reason`` in its refusal), the CPU fallback's
    numpy kernels run it (pinned: TFLite's interpreter, the other engine, rounds its float
    kernels its own way), the output the numpy plan's."""
    r = _runner(data, "neon", fallback_engine="numpy")
    try:
        refused = [f for f in r.plan.fallbacks if f.kind == "refused by ACL"]
        assert len(refused) == 1 and reason in refused[0].reason, refused
        got, ref = np.array(r.run(x)["output"]), run_plan(r.plan, x)["output"]
        assert got.shape == ref.shape == case.y and np.array_equal(got, ref)
    finally:
        r.close()


@pytest.mark.parametrize("case", INT8, ids=[c.id for c in INT8])
def test_int8_layer_on_acl_within_a_step_of_tflite(case):
    from acl_bridge import native

    if native.acl_version().startswith("20.") and case.id in INT8_NOT_ON_20_08:
        _refused_by_20_08(case, INT8_NOT_ON_20_08[case.id], case.model(), _int8_input(case))
        return
    check_int8(case, "neon")


@pytest.mark.parametrize("case", MATMUL, ids=[c.id for c in MATMUL])
def test_on_acl_or_refused_by_acl_20_08(case):
    """24.11: on ACL's MatMul / Conv3D; 20.08 (neither): refused by ACL, the CPU fallback runs it."""
    from acl_bridge import native

    if native.acl_version().startswith("20."):
        data = one_operator_model(case.opcode, case.x, case.y, case.inputs, case.options, case.version)
        x = np.random.default_rng(3).uniform(*case.x_range, case.x).astype(np.float32)
        _refused_by_20_08(case, NOT_ON_20_08[case.opcode], data, x)
        return
    check_float(case, "neon")
