"""The OpenCL layer by itself (native/cl_layer/test_ranges.c, compiled here): kernels over
non-uniform 1-, 2- and 3-D ranges, with and without global offsets and events, visit every
work-item exactly once; the extension, the build option and PoCL's convert_ clash."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.cl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(ROOT, "native", "cl_layer", "test_ranges.c")


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None or not os.path.exists("/usr/include/CL/cl.h"):
        pytest.skip("needs a C compiler and the OpenCL headers (opencl-c-headers, ocl-icd-opencl-dev)")
    exe = str(tmp_path_factory.mktemp("cl_layer") / "test_ranges")
    subprocess.run([cc, "-O1", "-o", exe, SOURCE, "-I" + os.path.dirname(SOURCE), "-lOpenCL"], check=True)
    return exe


def _run(exe, layer: bool):
    from acl_bridge import opencl

    env = {k: v for k, v in os.environ.items() if k not in ("OPENCL_LAYERS", "ACL_NDARRAY_CL_LAYER")}
    if layer:
        path = opencl.layer_path()
        if path is None:
            pytest.skip("the layer was not built (setup.py builds it where CL/cl_layer.h is installed)")
        env["OPENCL_LAYERS"] = path
    out = subprocess.run([exe] + ([] if layer else ["--expect-no-layer"]), env=env, capture_output=True, text=True,
                         timeout=300)
    return out.returncode, out.stdout


def test_non_uniform_ranges_with_the_layer(program):
    rc, out = _run(program, layer=True)
    assert "FAIL" not in out and rc == 0, out
    passed = [line for line in out.splitlines() if line.startswith("PASS")]
    for dims in ("1D", "2D", "3D"):
        assert any(f"{dims} global" in line and "every work-item once" in line for line in passed), out
    assert any("offset" in line for line in passed) and any("(event)" in line for line in passed)


def test_the_driver_alone_lacks_what_the_layer_adds(program):
    rc, out = _run(program, layer=False)
    assert rc == 0 and "PASS no layer marker without the layer" in out, out
