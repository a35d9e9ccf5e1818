import warnings
import numpy as np
from acl_bridge import functions as F
from acl_bridge.errors import AclStatusError
warnings.simplefilter("ignore")
def t(name, xdt, wq, pad, m=1, bias=True, c=4):
    x = np.zeros((1, 6, 7, c), xdt); w = np.zeros((3, 3, c * m), np.int8 if xdt == np.int8 else xdt)
    b = np.zeros(c * m, np.int32 if xdt != np.float32 else np.float32) if bias else None
    y = np.zeros((1, 6 - 2 + 2 * pad, 7 - 2 + 2 * pad, c * m), xdt)
    q = None
    if xdt != np.float32:
        q = {"src": (0.1, 0), "dst": (0.2, 0), "weights": wq}
        if bias: q["bias"] = ((0.01,) * (c * m), 0) if isinstance(wq[0], tuple) else (0.01, 0)
    try:
        F.DepthwiseConvolution(x, w, b, y, padding=pad, depth_multiplier=m, data_layout="NHWC", quantization=q).run()
        print(name, "OK")
    except AclStatusError as e:
        print(name, "REFUSED", e.message[-110:])
for c in (4, 16):
    t(f"c{c} int8 per-channel pad1", np.int8, ((0.01,) * c, 0), 1, c=c)
    t(f"c{c} int8 per-channel pad0", np.int8, ((0.01,) * c, 0), 0, c=c)
    t(f"c{c} int8 per-tensor pad1", np.int8, (0.01, 0), 1, c=c)
    t(f"c{c} int8 per-tensor pad0 nobias", np.int8, (0.01, 0), 0, bias=False, c=c)
    t(f"c{c} uint8 per-tensor pad1", np.uint8, (0.01, 0), 1, c=c)
    t(f"c{c} float pad1", np.float32, None, 1, c=c)
t("int8 per-channel pad1 m2", np.int8, ((0.01,) * 8, 0), 1, m=2)
