import json, sys, numpy as np, warnings
warnings.simplefilter("ignore")
from acl_bridge import native
from acl_bridge.models.armnn_tflite import ArmnnTfliteModel
from acl_bridge.models.fetch import model_path
native.set_num_threads(1)
m = ArmnnTfliteModel(str(model_path(sys.argv[1] if len(sys.argv) > 1 else "face_detection_front")), number_of_threads=1)
p = m.runtime.GetProfiler(m.net_id)
p.EnableProfiling(True)
x = np.zeros(m._input_shape, m.input_dtype)
for _ in range(2):
    m.run(x)
j = p.as_json()

print(len(j))
print("@@JSON@@"); print(j); print("@@END@@")
