"""Without non-uniform work-groups and without the layer, a CL function fails with this
library's own error, saying what is missing and how to enable the layer (run in a fresh
interpreter: the ICD loader reads OPENCL_LAYERS once per process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.cl

SCRIPT = textwrap.dedent("""
    import numpy as np
    from acl_bridge import Activation
    from acl_bridge.errors import AclNoDeviceError
    from acl_bridge import opencl
    dev = opencl.cl_devices()[0]
    if dev.native_non_uniform_work_groups:
        print("NATIVE", dev.name)
        raise SystemExit(0)
    x = np.zeros((3, 5), np.float32)
    try:
        Activation(x, np.empty_like(x), "relu", backend="cl")
    except AclNoDeviceError as e:
        print("ERROR", e)
    else:
        print("NO ERROR")
""")


def test_without_layer_the_error_says_what_is_missing_and_how_to_enable_it():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENCL_LAYERS", "ACL_NDARRAY_CL_LAYER")}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=root, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    line = next(line for line in out.stdout.splitlines() if line.split(" ", 1)[0] in ("NATIVE", "ERROR", "NO"))
    if line.startswith("NATIVE"):
        pytest.skip(f"the device runs non-uniform work-groups itself: {line}")
    assert line.startswith("ERROR"), out.stdout
    assert "has no non-uniform work-group support" in line
    assert "cl_arm_non_uniform_work_group_size" in line and "CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT" in line
    assert "ACL_NDARRAY_CL_LAYER=1" in line and "use_software_opencl_layer()" in line
