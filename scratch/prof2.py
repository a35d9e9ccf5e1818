import cProfile, pstats, sys, io
from acl_bridge import native
native.set_num_threads(1)
from acl_bridge.models.fetch import model_path
from acl_bridge.models.tflite_runner import TfliteRunner
p = model_path(sys.argv[1])
TfliteRunner(p).close()  # fill caches
pr = cProfile.Profile()
pr.enable()
r = TfliteRunner(p)
pr.disable()
print(r.facts_cache, r.model_cache.state)
s = io.StringIO()
st = pstats.Stats(pr, stream=s)
st.sort_stats("tottime").print_stats(35)
st.sort_stats("cumulative").print_stats(45)
print(s.getvalue())
print(r.configure_profile().text())
