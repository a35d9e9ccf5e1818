"""TFLite's 3-D pooling custom operators and GATHER_ND on ACL (emulated arm64): the
one-operator models of ``test_one_operator_pool3d.py`` and ``test_one_operator_gather_nd.py`` run by the runner and
compared with the numpy executor of the same plan (itself checked on the host against a
reading of TFLite's pooling3d.cc, and against TFLite's interpreter for GATHER_ND). ACL 20.08
has no Pooling3dLayer: there the 3-D pools are refused by ACL and run on the CPU fallback.
int8: GATHER_ND moves stored values (bit for bit); the average pooling within one step of
TFLite's rounding (the count of equal outputs printed, pytest -s)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402

from .test_elementwise_acl import _runner  # noqa: E402
from .test_one_operator_gather_nd import CASES as GATHER_ND  # noqa: E402
from .test_one_operator_pool3d import CASES as POOL3D  # noqa: E402

pytestmark = pytest.mark.acl

NOT_ON_20_08 = "NEPooling3dLayer::validate: ACL 2008 has no Pooling3dLayer function"
# a float average, an int8 average, an int8 max; float32 and int8 GATHER_ND (a reshape view on both sides)
POOL_ROWS = [c for c in POOL3D if c.id in ("avg_same_2x3x2_stride2", "avg_int8_same_3x3x3",
                                            "max_int8_valid_2x2x2_stride2")]
GATHER_ROWS = [c for c in GATHER_ND if c.id in ("rows_of_an_nhwc_image", "int8_pixels")]


def check_pool3d(case, backend: str) -> None:
    """On ``backend`` against the numpy plan; NEON on ACL 20.08: refused by ACL, on the fallback."""
    from acl_bridge import native

    r = _runner(case.model(), backend)
    try:
        if backend == "neon" and native.acl_version().startswith("20."):
            (fb,) = r.plan.fallbacks
            assert fb.kind == "refused by ACL" and NOT_ON_20_08 in fb.reason, fb
        else:
            assert r.plan.fallbacks == () and [s.kind for s in r.plan.steps] == ["pooling_3d"]
        x = case.input()
        got, ref = np.array(r.run(x)["y"]), run_plan(r.plan, x)["y"]
        assert got.shape == ref.shape == case.y and got.dtype == ref.dtype
        if case.dtype == "float32":
            assert np.abs(got - ref).max() <= 1e-5 * max(1.0, float(np.abs(ref).max()))
        else:
            d = np.abs(got.astype(np.int32) - ref)
            print(f"{case.id} on ACL {native.acl_version()} {backend}: {int((d == 0).sum())}/{d.size} equal to "
                  f"TFLite's rounding, max {int(d.max())} step")
            assert d.max() <= (0 if case.opcode.endswith("MaxPool3D") else 1)
    finally:
        r.close()


def check_gather_nd(case, backend: str) -> None:
    """On ``backend``: one gather on ACL, bit for bit with the numpy plan."""
    r = _runner(case.model(), backend)
    try:
        assert r.plan.fallbacks == () and [s.kind for s in r.plan.steps] == ["gather"]
        x = case.input()
        got, ref = np.array(r.run(x)["output"]), run_plan(r.plan, x)["output"]
        assert got.shape == ref.shape == case.y and np.array_equal(got, ref)
    finally:
        r.close()


@pytest.mark.parametrize("case", POOL_ROWS, ids=[c.id for c in POOL_ROWS])
def test_pool3d_on_acl_or_refused_by_acl_20_08(case):
    check_pool3d(case, "neon")


@pytest.mark.parametrize("case", GATHER_ROWS, ids=[c.id for c in GATHER_ROWS])
def test_gather_nd_on_acl_bit_for_bit(case):
    check_gather_nd(case, "neon")
