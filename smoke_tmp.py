import time, numpy as np, warnings, sys, os
from acl_bridge.models import fetch
from acl_bridge.models.tflite_runner import TfliteRunner
from acl_bridge.models.tflite_interpreter import runner as interp
name = sys.argv[1] if len(sys.argv) > 1 else "face_detection_front"
p = fetch.model_path(name)
t=time.perf_counter()
r = TfliteRunner(p, backend="cl", program_cache=os.environ.get("PC", "/tmp/pc"))
print("configure", time.perf_counter()-t, r.program_cache)
x = np.random.default_rng(1).uniform(-1,1,r.input_shape).astype(np.float32)
t=time.perf_counter(); got = {k: v.copy() for k, v in r.run(x).items()}; print("first run", time.perf_counter()-t)
t=time.perf_counter(); r.run(x); print("second run", time.perf_counter()-t)
ref = interp(str(p))[0](x)
for k in got:
    print(k, got[k].shape, float(np.abs(got[k]-ref[k]).max()), float(np.abs(ref[k]).max()))
print(r.summary())
print(r.staged(), r.copied_bytes_per_inference)
