set -e
cd /tmp
for m in face_detection_front face_landmark; do
  p=$(python3 -c "from acl_bridge.models.fetch import model_path; print(model_path('$m'))")
  python3 -c "
import numpy as np
from acl_bridge.models.tflite_reader import read_model
s = read_model('$p'); t = s.tensors[s.inputs[0]]
np.save('in.npy', np.random.default_rng(1).uniform(-1, 1, t.shape).astype(np.float32))"
  python3 -m acl_bridge run-tflite "$p" in.npy --out o.npz --backend acl --profile --armnn-profile --json 2>/dev/null | python3 -c "import json,sys; v=json.load(sys.stdin)[\"armnn_profile\"]; r=[o for o in v[\"operators\"] if any(\"PAD\" in b for b in o[\"bridge\"])]; both=[o for o in v[\"operators\"] if o[\"ratio\"]]; print(\"$m\", round(v[\"bridge_total_median_seconds\"]*1e3,1), round(v[\"armnn_total_median_seconds\"]*1e3,1), \"PAD\", len(r), round(sum(o[\"bridge_median_seconds\"] for o in r)*1e3,2), round(sum(o[\"armnn_median_seconds\"] for o in r)*1e3,2), \"ratios\", min(o[\"ratio\"] for o in both), max(o[\"ratio\"] for o in both))"
  python3 -c "from acl_bridge import native; print('ACL threads', native.num_threads())"
done
