"""Partitioned plans on ACL's OpenCL backend: CL segments with the CPU fallback between
them on the same NdArrays (the CLTensors' host memory), outputs against the numpy executor
of the same plan (itself checked against TFLite's interpreter on the host)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from models.conftest import model_file, tolerance  # noqa: E402
from models.graph_tflite import chain  # noqa: E402
from models.test_mltk_models import FALLBACKS, noise  # noqa: E402

pytestmark = pytest.mark.cl

SHAPE = (1, 4, 4, 3)


def _step(plan, name) -> float:
    """One step of a float output made by DEQUANTIZE (its input's scale), else 0."""
    m = plan.model
    out = next(i for i in m.outputs if m.tensors[i].name == name)
    src = next((op.inputs[0] for op in m.operators if out in op.outputs and op.opcode == "DEQUANTIZE"), None)
    return 0.0 if src is None else float(m.tensors[src].quantization.scale[0])


def _check(r, x):
    """float32 within the tolerance (and 2 steps of a dequantized int8 output: ACL's CL int8
    kernels round some requantizations differently, tests/cl/test_cl_int8_models.py); int8
    within 2 steps."""
    got = {k: np.array(v) for k, v in r.run(x).items()}
    ref = run_plan(r.plan, x)
    for k in ref:
        atol = tolerance(ref[k]) + 2 * _step(r.plan, k) if ref[k].dtype.kind == "f" else 2
        np.testing.assert_allclose(got[k].astype(np.float64), ref[k].astype(np.float64), rtol=0, atol=atol, err_msg=k)


# a chain, and the CL maps at its fallback boundaries: one after each CL step whose output a
# fallback operator reads, one before each CL step that reads a fallback operator's output
@pytest.mark.parametrize("opcodes, boundary_maps", [(["RELU", "COS", "RELU"], 2), (["COS", "RELU", "COS", "RELU"], 3)],
                         ids=["middle", "alternating"])
def test_cl_segments_with_the_fallback_between(opcodes, boundary_maps):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    from acl_bridge.opencl import memory_report

    r = TfliteRunner(chain(opcodes, SHAPE), backend="cl", model_cache=False, facts_cache=False)
    try:
        assert r.backend.name == "cl" and r.plan.fallbacks
        rng = np.random.default_rng(5)
        for _ in range(2):  # a second run on other values: nothing stale on either side of a boundary
            _check(r, rng.standard_normal(SHAPE).astype(np.float32))
        assert r.copied_bytes_per_inference["fallback_boundaries"] == 0
        # two RELU functions (src, dst), every buffer on CL_MEM_USE_HOST_PTR: mapped before and after each run
        assert [sorted(memory_report(f)) for f in r.functions] == [["dst", "src"]] * 2
        assert {m.route for f in r.functions for m in memory_report(f).values()} == {"CL_MEM_USE_HOST_PTR"}
        assert r.cl_maps_per_inference == {"total": 8, "fallback_boundaries": boundary_maps}
        assert f"CL buffers mapped per inference: 8 ({boundary_maps} at fallback boundaries)" in r.summary()
    finally:
        r.close()


@pytest.mark.parametrize("name", ["anomaly_detection", "autoencoder_example"])
def test_cl_mltk_model_with_fallback_operators(name):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    r = TfliteRunner(model_file(name), backend="cl", model_cache=False, facts_cache=False)
    try:
        assert [(f.opcode, f.kind) for f in r.plan.fallbacks if f.kind != "refused by ACL"] == FALLBACKS.get(name, [])
        for seed in range(2):
            _check(r, noise(r.plan.model.tensors[r.plan.model.inputs[0]], seed))
    finally:
        r.close()


def test_run_tflite_reports_the_cl_maps_at_fallback_boundaries(capsys, tmp_path):
    import json

    from acl_bridge.cli import main

    path, x = tmp_path / "chain.tflite", tmp_path / "x.npy"
    path.write_bytes(chain(["RELU", "COS", "RELU"], SHAPE))
    np.save(x, np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32))
    code = main(["run-tflite", str(path), str(x), "--out", str(tmp_path / "y.npz"), "--backend", "cl", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["fallback"]["cl_maps_per_inference"] == {"total": 8, "fallback_boundaries": 2}
    assert "CL buffers mapped per inference: 8 (2 at fallback boundaries)" in err
