"""How the NdArray's memory reaches the OpenCL device, proved on the device itself: the
buffer ACL's CLTensor uses maps back to the NdArray's own address, a kernel's results are
in the NdArray's bytes when run() returns, and no byte is copied."""

from __future__ import annotations

import numpy as np
import pytest

from acl.helpers import Guarded, arange_values

pytestmark = pytest.mark.cl


def test_tensor_memory_is_the_ndarrays_allocation():
    from acl_bridge import AclTensor
    from acl_bridge.opencl import tensor_memory

    g = Guarded((2, 2, 5, 5), "float32", "padded").set(arange_values((2, 2, 5, 5)))
    t = AclTensor(g.array, backend="cl")
    before = tensor_memory(t)
    assert before.route == "none" and before.backend == "cl"
    t.import_memory()
    m = tensor_memory(t)
    assert m.backend == "cl"
    assert m.route in ("CL_MEM_USE_HOST_PTR", "cl_arm_import_memory"), m
    assert m.base_address == g.array.base_ptr
    assert m.size_in_bytes == g.array.descriptor.alloc_size_in_bytes
    assert m.mapped_address == m.base_address and m.zero_copy and m.bytes_staged_per_run == 0, m
    t.close()


def test_results_change_the_bytes_in_place_without_copies():
    """Fill writes through the device buffer; the NdArray (same base pointer, same numpy
    view) holds the value when run() returns; padding cells and guard bytes are unchanged."""
    from acl_bridge import Fill
    from acl_bridge.opencl import memory_report

    g = Guarded((2, 2, 5, 5), "float32", "padded").set(0.0)
    view = g.numpy()
    base = g.array.base_ptr
    f = Fill(g.array, 3.25, backend="cl")
    assert f.staged == () and f.copy_count == 0
    f.run()
    assert g.array.base_ptr == base
    assert np.all(view == 3.25)  # the numpy view made before the run sees the result
    assert g.untouched()
    (mem,) = memory_report(f).values()
    assert mem.zero_copy and mem.mapped_address == base
    assert f.copy_count == 0
    # host writes between runs are seen by the device (no stale device copy)
    view[...] = -1.0
    g.set(view.copy())
    f.run()
    assert np.all(view == 3.25) and g.untouched()
    f.close()


def test_host_inputs_written_after_configure_are_used():
    from acl_bridge import Activation

    src = Guarded((3, 7), "float32", "offset").set(arange_values((3, 7)))
    dst = Guarded((3, 7), "float32", "offset")
    f = Activation(src.array, dst.array, "relu", backend="cl")
    for k in range(3):
        x = arange_values((3, 7), shift=5 * k)
        src.set(x)
        dst._snapshot = dst.raw.copy()
        f.run()
        np.testing.assert_array_equal(dst.numpy(), np.maximum(x, 0))
        assert dst.untouched() and src.untouched()
    assert f.copy_count == 0
    f.close()


def test_devices_report_what_acl_needs():
    from acl_bridge import opencl

    devices = opencl.cl_devices()
    assert devices, "cl_init succeeded, so there is a device"
    (selected,) = [d for d in devices if d.selected]
    assert selected.non_uniform_work_groups  # ACL accepted it
    assert selected.layer_active == opencl.layer_requested() or selected.native_non_uniform_work_groups
    if selected.layer_active:
        assert "cl_arm_non_uniform_work_group_size" in selected.extensions
    assert str(selected).startswith(f"[{selected.platform_index}.{selected.device_index}] {selected.name}")
    assert "OpenCL:" in opencl.describe()


def test_unknown_backend_is_refused():
    from acl_bridge import Fill
    from ndarray.errors import UnsupportedOptionError

    g = Guarded((4,), "float32")
    with pytest.raises(UnsupportedOptionError, match=r"backend is 'gpu', expected one of \['cl', 'neon'\]"):
        Fill(g.array, 1.0, backend="gpu")


def test_schedule_of_cl_functions_runs_in_one_native_call():
    """relu then add on CL, chained through a bridge-owned intermediate, in one native call."""
    from acl_bridge import Activation, Add, AclFunction, Schedule

    x = Guarded((2, 2, 5, 5), "float32", "padded").set(arange_values((2, 2, 5, 5), modulo=11))
    b = Guarded((2, 2, 5, 5), "float32", "offset").set(arange_values((2, 2, 5, 5), scale=0.5))
    out = Guarded((2, 2, 5, 5), "float32", "padded")
    pad = Activation.required_padding(x.array.descriptor, x.array.descriptor, backend="cl")["dst"]
    mid = AclFunction.padded_empty((2, 2, 5, 5), "float32", pad)
    schedule = Schedule([Activation(x.array, mid, "relu", backend="cl"), Add(mid, b.array, out.array, backend="cl")])
    assert schedule.native_calls_per_run == 1
    schedule.run()
    np.testing.assert_allclose(out.numpy(), np.maximum(x.numpy(), 0) + b.numpy(), rtol=1e-6)
    assert out.untouched() and x.untouched() and b.untouched()


def test_memory_only_4_byte_aligned_still_reaches_the_device():
    """A float32 NdArray whose allocation starts 4 bytes past a 64-byte boundary: the device
    takes it (CL_MEM_USE_HOST_PTR) or the shim stages it, and says which; results are right."""
    from acl_bridge import Fill
    from acl_bridge.opencl import memory_report
    from ndarray import NdArray, ShapeDescriptor

    raw = NdArray.allocate(ShapeDescriptor.create((4 * 37 + 64,), "uint8")).allocation
    d = ShapeDescriptor.create((37,), "float32")
    a = NdArray(raw[4:4 + d.alloc_size_in_bytes], d)
    assert a.base_ptr % 64 == 4
    f = Fill(a, 1.5, backend="cl")
    f.run()
    assert np.all(a.numpy() == 1.5) and np.all(raw[:4] == 0) and np.all(raw[4 + 4 * 37:] == 0)
    (mem,) = memory_report(f).values()
    if mem.route == "staged":
        assert mem.bytes_staged_per_run == 2 * mem.size_in_bytes and not mem.zero_copy
    else:
        assert mem.route == "CL_MEM_USE_HOST_PTR" and mem.base_address == a.base_ptr and mem.zero_copy, mem
    f.close()


STAGED_SCRIPT = """
import numpy as np
from acl_bridge import Activation, opencl
opencl.use_software_opencl_layer()
x = np.arange(-10, 11, dtype=np.float32).reshape(3, 7)
y = np.full_like(x, 9.0)
f = Activation(x, y, "relu", backend="cl")
for k in range(3):
    x += 1
    f.run()
    assert np.array_equal(y, np.maximum(x, 0)), (k, y)
report = opencl.memory_report(f)
assert {m.route for m in report.values()} == {"staged"}, report
assert all(m.bytes_staged_per_run == 2 * m.size_in_bytes and not m.zero_copy for m in report.values())
print("STAGED OK", report)
"""


def test_staged_route_copies_in_and_out_and_says_so():
    """The third route (a device that refuses host memory), forced with ACL_NDARRAY_CL_MEMORY."""
    import os
    import subprocess
    import sys

    from acl_bridge import opencl

    if opencl.layer_path() is None:
        pytest.skip("the layer was not built")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENCL_LAYERS", "ACL_NDARRAY_CL_LAYER")}
    env["ACL_NDARRAY_CL_MEMORY"] = "staged"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", STAGED_SCRIPT], env=env, cwd=root, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and "STAGED OK" in out.stdout, out.stdout + out.stderr[-2000:]
