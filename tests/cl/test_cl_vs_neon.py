"""ACL's CL backend against its NEON backend on the same plan, in one process: MediaPipe's front
face model loaded once per backend (the same lowered steps and views), the same inputs, every
output of CL within the model tests' tolerance of NEON's, each with only its input copied and
one native call per inference. Needs a build with both backends and an OpenCL device: arm64
with ACL 24.11 (the emulated OpenCL stage of docker/emulate.sh, PoCL under QEMU); the x86 ACL
is the CL backend alone, so there it skips, saying so. The function rows compare CL with NEON
row by row (tests/acl/helpers.py ``run_case``)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl.helpers import neon_available  # noqa: E402
from models.conftest import model_file, tolerance  # noqa: E402

pytestmark = pytest.mark.cl

MODEL = "face_detection_front"


def same_steps(a, b) -> bool:
    """The two plans lower the model to the same steps (constants included) and views."""
    if len(a.steps) != len(b.steps) or a.views != b.views:
        return False
    for s, t in zip(a.steps, b.steps):
        if (s.op_index, s.opcode, s.kind, s.inputs, s.output, s.params) != \
                (t.op_index, t.opcode, t.kind, t.inputs, t.output, t.params):
            return False
        if [r for r, _ in s.constants] != [r for r, _ in t.constants] or \
                not all(np.array_equal(u, v) for (_, u), (_, v) in zip(s.constants, t.constants)):
            return False
    return True


def test_face_model_on_cl_matches_neon_on_the_same_plan():
    if not neon_available():
        pytest.skip("needs ACL's NEON functions beside the CL ones (an arm64 build); this ACL is the CL backend alone")
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    cl = TfliteRunner(model_file(MODEL), backend="cl")
    neon = TfliteRunner(model_file(MODEL), backend="neon")
    try:
        assert (cl.backend.name, neon.backend.name) == ("cl", "neon")
        assert same_steps(cl.plan, neon.plan)
        rng = np.random.default_rng(23)
        worst = 0.0
        for x in (rng.uniform(-1, 1, cl.input_shape).astype(np.float32),
                  rng.uniform(0, 1, cl.input_shape).astype(np.float32)):
            got = {k: v.copy() for k, v in cl.run(x).items()}
            want = {k: v.copy() for k, v in neon.run(x).items()}
            assert sorted(got) == sorted(want)
            for k, ref in want.items():
                err = float(np.abs(got[k] - ref).max())
                assert err <= tolerance(ref), f"{k}: CL differs from NEON by {err} (|NEON| <= {np.abs(ref).max():.3g})"
                worst = max(worst, err)
        for r in (cl, neon):
            assert r.staged() == [] and r.schedule.native_calls_per_run == 1
            assert r.copied_bytes_per_inference["total"] == x.nbytes
        print(f"{MODEL}: CL against NEON on the same plan, max difference {worst:.3g}")
    finally:
        cl.close()
        neon.close()
