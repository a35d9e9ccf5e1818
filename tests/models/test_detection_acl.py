"""TFLite_Detection_PostProcess on ACL (emulated arm64): the one-operator models of
``test_one_operator_detection.py`` (float32, uint8 and int8) run by the runner, the operator on ACL's
NEDetectionPostProcessLayer (20.08 and 24.11 both have it) where the lowering rule takes it,
else on the CPU fallback, every output compared with the numpy executor of the same plan
(itself equal to TFLite's interpreter on the host)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("flatbuffers.flexbuffers", reason="the flatbuffers package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402

from . import detection_tflite as D  # noqa: E402
from .test_one_operator_detection import CASES, INT8_CASES, ON_FALLBACK, UINT8_CASES, quantized_case  # noqa: E402
from .test_elementwise_acl import _runner  # noqa: E402

pytestmark = pytest.mark.acl

# on ACL, on ACL, on the fallback (the rule's refusal), on ACL (uint8 inputs: QASYMM8), on ACL
# (int8 inputs: QASYMM8_SIGNED, 20.08 and 24.11 alike)
ROWS = ["fast-1class", "regular-2_per_class", "fast-2classes", "uint8-regular", "int8-regular"]


# ACL has no CL detection post-process: on the CL backend the runner falls back
CL_REFUSAL = "ACL has no CL detection post-process function"


def check(name: str, backend: str) -> None:
    """One case of test_one_operator_detection.CASES, UINT8_CASES or INT8_CASES on the runner
    (``backend``): on ACL where the rule takes it (NEON), else on the fallback; every output
    against the numpy plan (quantized: its step dequantizes as ACL does)."""
    if name in UINT8_CASES or name in INT8_CASES:
        data, values, _ = quantized_case(name)
    else:
        n, classes, kw, background, seed = CASES[name]
        kw = dict(dict(num_classes=classes), **kw)
        m = kw.get("max_detections", 4) * kw.get("max_classes_per_detection", 1)
        data = D.model(n, classes, D.options(**kw), m, background)
        values = list(D.inputs(n, classes, seed, background))
    r = _runner(data, backend)
    try:
        if name in ON_FALLBACK:
            assert [f.kind for f in r.plan.fallbacks] == ["custom"] and not r.plan.steps
        elif backend == "cl":
            assert [f.kind for f in r.plan.fallbacks] == ["refused by ACL"] and CL_REFUSAL in r.plan.fallbacks[0].reason
        else:
            assert r.plan.fallbacks == () and [s.kind for s in r.plan.steps] == ["detection_post_process"]
        got, ref = r.run(values), run_plan(r.plan, values)
        assert list(got) == list(ref) == ["det_boxes", "det_classes", "det_scores", "num"]
        assert float(np.asarray(ref["num"])[0]) >= 1
        for key in ref:
            # ACL decodes in float (TFLite in double): the boxes within float32 rounding
            np.testing.assert_allclose(np.asarray(got[key]), ref[key], rtol=1e-6, atol=1e-6, err_msg=key)
    finally:
        r.close()


@pytest.mark.parametrize("name", ROWS)
def test_one_operator_detection_on_acl_matches_the_plan(name):
    check(name, "neon")
