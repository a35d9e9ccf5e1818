import sys, warnings
sys.path[:0] = [".", "tests"]
import numpy as np
from function_cases import INT8_CASES
from acl_bridge import functions as F, opencl
from ndarray import NdArray, ShapeDescriptor
warnings.simplefilter("ignore")
opencl.cl_init()
case = [c for c in INT8_CASES if c.name.startswith("int8-depthwise-k3s1p1m1")][0]
v = case.inputs(); want = case.reference(v)["dst"]
def padded(a, offset):
    rank = a.ndim
    pads = [0] * rank; offs = [0] * rank
    if offset:
        pads[-1], offs[-1] = 5, 2
        if rank >= 2: pads[-2], offs[-2] = 3, 1
    d = ShapeDescriptor.create(a.shape, a.dtype, paddings=pads, padding_offsets=offs)
    n = NdArray.allocate(d); n.numpy()[...] = a; return n
for which in ("src", "weights", "bias", "dst", "none"):
    arrs = {r: padded(v[r] if r != "dst" else np.zeros(want.shape, np.int8), r == which) for r in ("src", "weights", "bias", "dst")}
    f = F.DepthwiseConvolution(*arrs.values(), backend="cl", **case.kwargs); f.run()
    d = np.abs(arrs["dst"].numpy().astype(float) - want)
    print(which, "offset: wrong", int((d > 1).sum()), "staged", f.staged, "layout_ok", f.layout_ok, "writes", f.writes_outside)
