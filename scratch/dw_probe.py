import sys; sys.path.insert(0, "tests")
import numpy as np
from function_cases import INT8_CASES
from acl_bridge import functions as F
from acl_bridge.executor import negotiate_padding, _spec_desc, layouts_rejected, auto_padding_from_acl
from acl_bridge.layout import PaddingSize
from acl_bridge.mapping import per_channel
case = [c for c in INT8_CASES if c.name.startswith(sys.argv[1])][0]
v = case.inputs(); ref = case.reference(v)
cls = getattr(F, case.kind)
kw = dict(case.kwargs); q = kw.pop("quantization"); layout = kw.pop("data_layout", "NCHW")
arrays, kind, params, quant = cls._call([v.get("src"), v.get("weights"), v.get("bias"), ref["dst"].astype(np.int8)], kw, q)
quant = cls._per_channel(quant, layout)
specs = [None if a is None else (tuple(a.shape), a.dtype, layout, quant[r]) for r, a in zip(cls.roles, arrays)]
pads = negotiate_padding(kind, params, specs)
print("negotiated", pads)
def try_(pads):
    descs = [None if s is None else _spec_desc(s, F.backend_named("neon") if hasattr(F,'backend_named') else None, p) for s, p in zip(specs, pads)]
    return layouts_rejected(kind, params, descs)
from acl_bridge.backend import NEON
def try_(pads):
    descs = [None if s is None else _spec_desc(s, NEON, p) for s, p in zip(specs, pads)]
    return layouts_rejected(kind, params, descs)
print("negotiated ok?", try_(pads))
big = PaddingSize(16, 64, 16, 16)
for i, r in enumerate(cls.roles):
    p = list(pads); p[i] = big.for_rank(len(specs[i][0]))
    print(r, "big ->", try_(p))
allbig = [big.for_rank(len(s[0])) for s in specs]
print("all big ->", try_(allbig))
# without per channel: per-tensor weights
for name, qq in (("float", None),):
    pass
