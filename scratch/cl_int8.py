"""One small check: the int8 rows on ACL's CL backend (dense numpy buffers), per row: the
result vs the numpy reference (exact / one step) or ACL's refusal."""
import sys, warnings
sys.path[:0] = [".", "tests"]
import numpy as np
from function_cases import INT8_CASES
from acl_bridge import functions as F, opencl, native
warnings.simplefilter("ignore")
opencl.cl_init()
dev = next(d for d in opencl.cl_devices() if d.selected)
print("ACL", native.acl_version(), "device:", dev)
for case in INT8_CASES:
    v = case.inputs()
    want = case.reference(v)["dst"]
    cls = getattr(F, case.kind)
    args = [v.get(r) if r != "dst" else np.zeros(want.shape, case.outputs["dst"]) for r in cls.roles]
    try:
        f = cls(*args, backend="cl", **case.kwargs)
        f.run()
    except Exception as e:  # report what CL says
        print(f"{case.name}: REFUSED {type(e).__name__}: {str(e)[-200:]}")
        continue
    got = args[-1]
    d = np.abs(got.astype(np.float64) - want)
    desc = f.tensors["weights"].info.data_type if "weights" in f.tensors and f.tensors["weights"] is not None else ""
    print(f"{case.name}: {d.size} elements, {int((d == 0).sum())} exact, max diff {d.max():.3g} {desc} staged={f.staged}")
    f.close()
