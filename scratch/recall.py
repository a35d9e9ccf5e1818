import tempfile, time
from acl_bridge.models.fetch import model_path
from acl_bridge.models.tflite_runner import TfliteRunner
for m in ("keyword_spotting_alexa", "visual_wake_words", "face_landmark"):
    d = tempfile.mkdtemp()
    TfliteRunner(model_path(m), facts_cache=d).close()
    r = TfliteRunner(model_path(m), facts_cache=d)
    print(m, "recalled", r.negotiation_recalled, r._negotiation_key() is not None)
