set -e
cd /tmp
for m in face_detection_front face_landmark; do
python3 - "$m" <<'PY'
import sys, numpy as np
from acl_bridge.models.fetch import model_path
from acl_bridge import native
native.set_num_threads(1)
m = sys.argv[1]
p = model_path(m)
from acl_bridge.models.tflite_runner import TfliteRunner
r = TfliteRunner(p)
x = np.random.default_rng(1).uniform(-1, 1, r.input_shape).astype(np.float32)
r.run(x)
ops = r.profile(5)
from acl_bridge.models.cli_commands import armnn_beside
v = armnn_beside(str(p), x, ops, r.plan)
print(v.text(top=12)); [print("PADROW", r.op_indices, r.bridge, r.armnn, round(r.bridge_seconds*1e3,3), round(r.armnn_seconds*1e3,3)) for r in v.rows if any("PAD" in b for b in r.bridge) or any("Pad" in a for a in r.armnn)]; import collections; print("KINDS", sorted(collections.Counter(r.bridge[0].split(" ")[1] if r.bridge else "view" for r in v.rows).items())); print("SUMS", round(sum(r.bridge_seconds for r in v.rows if any("PAD" in b for b in r.bridge))*1e3,3), round(sum(r.armnn_seconds for r in v.rows if any("Pad" in a for a in r.armnn))*1e3,3))
PY
done
