"""What the caches' trust checks cost the batch of a second start, in one process per model:
second starts with and without the checks, alternating round by round.

    PROF_ROUNDS=7 python3 benchmarks/trust_checks.py face_detection_front visual_wake_words ...

Per model, a first start in a process of its own fills both caches; then one process makes
``TfliteRunner`` PROF_ROUNDS times in each mode, the modes alternating (the checks taken out
as ``start_time.without_trust_checks`` takes them out, never by the library), and times the
constructor and, apart, ``configure_kept`` (the batch's comparisons) and ``decode_spec`` (the
parsed-model decoders' checks; 0 where the process keeps the parsed model in memory). It
prints the medians (the first round of each mode left out) and their differences: the
checks' cost in milliseconds and as a share of the unchecked constructor. Needs ACL:
``./docker/emulate.sh run trixie -- python3 benchmarks/trust_checks.py MODEL...``; a tool for
finding where the checks cost, beside ``start_time.py``'s paired ratios across processes."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
HERE = os.path.abspath(__file__)
def child(path, rounds):
    import gc
    from acl_bridge import native
    native.require_native(); native.set_num_threads(1)
    import acl_bridge.configure_batch as cb, acl_bridge.facts_cache as fc, acl_bridge.models.format.model_cache as mc
    import acl_bridge.models.runtime.tflite_runner as tr
    T = {}
    def wrap(mod, name):
        f = getattr(mod, name)
        def w(*a, **k):
            t = time.perf_counter()
            try: return f(*a, **k)
            finally: T[name] = T.get(name, 0.0) + time.perf_counter() - t
        setattr(mod, name, w)
    wrap(cb, "configure_kept"); tr.configure_kept = cb.configure_kept
    wrap(mc, "decode_spec")
    sys.path.insert(0, os.path.dirname(HERE))
    from start_time import read_as_it_is as read
    names = {mc: ["read_trusted", "check_quantization", "_queue_values", "_values_hold", "_runs_to_check", "_check_runs"],
             fc: ["read_trusted"], cb: ["_not_this_call", "_expected_desc", "_descs_not_the_calls"]}
    checked = {(m, n): getattr(m, n) for m, ns in names.items() for n in ns if hasattr(m, n)}
    off = {"read_trusted": read, "check_quantization": lambda *a: None, "_queue_values": lambda *a: True,
           "_values_hold": lambda *a: True, "_runs_to_check": lambda *a: (0, 0, 0, 0, 0, 0), "_check_runs": lambda *a: True,
           "_not_this_call": lambda *a: ("", {}), "_expected_desc": lambda *a: b"", "_descs_not_the_calls": lambda *a: ""}
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    out = {"checked": [], "unchecked": []}
    for r in range(rounds):
        for mode in (("checked", "unchecked") if r % 2 else ("unchecked", "checked")):
            for (m, n), f in checked.items():
                setattr(m, n, f if mode == "checked" else off[n])
            T.clear(); gc.collect()
            t = time.perf_counter()
            runner = TfliteRunner(path)
            total = time.perf_counter() - t
            assert runner.model_cache.state == "warm" and runner.facts_cache.state == "warm", (runner.model_cache, runner.facts_cache)
            out[mode].append((total, T.get("decode_spec", 0.0), T.get("configure_kept", 0.0)))
            runner.close() if hasattr(runner, "close") else None
            del runner
    print(json.dumps(out))
if sys.argv[1] == "--child":
    child(sys.argv[2], int(sys.argv[3])); sys.exit()
from acl_bridge.models.apps.fetch import model_path
rounds = int(os.environ.get("PROF_ROUNDS", "6"))
for name in sys.argv[1:]:
    p = str(model_path(name)); d = tempfile.mkdtemp()
    env = dict(os.environ, ACL_NDARRAY_MODEL_CACHE=d + "/m", ACL_NDARRAY_FACTS_CACHE=d + "/f")
    subprocess.run([sys.executable, "-c", f"import numpy as np; from acl_bridge import native; native.set_num_threads(1); from acl_bridge.models.runtime.tflite_runner import TfliteRunner; m = TfliteRunner({p!r}); m.run(np.zeros(m.input_shape, m.input_dtype))"], env=env, check=True)
    r = subprocess.run([sys.executable, HERE, "--child", p, str(rounds)], env=env, capture_output=True, text=True)
    if r.returncode:
        print(name, "failed", r.stderr[-1500:]); continue
    out = json.loads(r.stdout.strip().splitlines()[-1])
    med = {m: [statistics.median(x[i] for x in out[m][1:]) * 1e3 for i in range(3)] for m in out}
    c, u = med["checked"], med["unchecked"]
    print(f"{name}: constructor {c[0]:.1f} / {u[0]:.1f} ms (checked / unchecked, medians of {rounds - 1} after the first), "
          f"decode_spec {c[1]:.1f} / {u[1]:.1f}, configure_kept {c[2]:.1f} / {u[2]:.1f}; "
          f"checks: decode {c[1]-u[1]:.1f} ms + batch {c[2]-u[2]:.1f} ms = {c[1]-u[1]+c[2]-u[2]:.1f} ms = "
          f"{100*(c[1]-u[1]+c[2]-u[2])/u[0]:.1f}% of the unchecked constructor; constructor ratio {c[0]/u[0]:.3f}", flush=True)
