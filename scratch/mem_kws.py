import sys, os, gc
mode, model = sys.argv[1], sys.argv[2]
from acl_bridge import native
from acl_bridge.models import fetch
native.set_num_threads(1)
path = fetch.model_path(model)
def rollup():
    d = {}
    for line in open("/proc/self/smaps_rollup"):
        p = line.split()
        if len(p) >= 3 and p[-1] == "kB":
            d[p[0].rstrip(":")] = int(p[1]) * 1024
    return d
def maps_by_file():
    out = {}; cur = None
    for line in open("/proc/self/smaps"):
        p = line.split()
        if "-" in p[0] and len(p) >= 5 and not p[0].endswith(":"):
            cur = p[5] if len(p) > 5 else "[anon]"
        elif p[0] == "Rss:":
            out[cur] = out.get(cur, 0) + int(p[1]) * 1024
    return out
if mode == "armnn":
    from acl_bridge import armnn; armnn.load()
    from acl_bridge.models.armnn_tflite import ArmnnTfliteModel
else:
    from acl_bridge.models.tflite_runner import TfliteRunner
import numpy as np
mods0 = set(sys.modules)
gc.collect()
b, mb = rollup(), maps_by_file()
if mode == "trace":
    import tracemalloc; tracemalloc.start(10)
if mode == "armnn":
    m = ArmnnTfliteModel(str(path)); shape, dt, run = m._input_shape, m.input_dtype, m.run
else:
    r = TfliteRunner(path); shape, dt, run = r.input_shape, r.input_dtype, r.run
for _ in range(2):
    run(np.zeros(shape, dt))
gc.collect()
a, ma = rollup(), maps_by_file()
MiB = 2**20
print(mode, model, {k: round((a[k]-b[k])/MiB, 2) for k in ("Rss", "Anonymous", "Private_Dirty", "Shared_Clean", "Private_Clean")})
grow = sorted(((ma.get(k, 0) - mb.get(k, 0), k) for k in set(ma) | set(mb)), reverse=True)[:12]
for g, k in grow:
    print(f"  {g/MiB:7.2f} MiB  {k}")
new = sorted(set(sys.modules) - mods0)
print("new modules", len(new), [n for n in new if not n.startswith("acl_bridge")][:40])
print("new acl_bridge modules", [n for n in new if n.startswith("acl_bridge")])
if mode == "trace":
    snap = tracemalloc.take_snapshot()
    stats = snap.statistics("filename")
    print("python traced MiB", round(sum(s.size for s in stats)/MiB, 2))
    for s in stats[:15]:
        print(f"  {s.size/MiB:7.2f} MiB {s.count:7d} {s.traceback[0].filename}")
