"""A first start's configure and first inference with its kept files written in the background
(``acl_bridge.keep_writer``, the default) or during the load (``fg``:
``ACL_NDARRAY_KEEP_IN_FOREGROUND=1``), each also with a thread started right after the imports
(``+thread``: whether QEMU's switch to code for several threads is a cost). Each start in a
fresh process with empty caches, the modes rotated each round; medians, and ratios to ``fg`` of
paired rounds (docs/performance.md, issue 40 part 8k). Needs ACL:

    ./docker/emulate.sh run trixie -- python3 benchmarks/keep_later.py MODEL[,MODEL...] ROUNDS
"""
import json, os, statistics, subprocess, sys, tempfile, time

MODES = ["fg", "bg", "fg+thread", "bg+thread"]


def timed_first_start(runner_class, path, after_load=None):
    """A first start of ``path``: (the runner, its input, configure s, first inference s, first
    result s); ``after_load(runner)`` runs inside the configure's time."""
    import numpy as np
    t1 = time.perf_counter()
    m = runner_class(path)
    if after_load is not None:
        after_load(m)
    c = time.perf_counter() - t1
    x = np.zeros(m.input_shape, m.input_dtype)
    t2 = time.perf_counter()
    m.run(x)
    first = time.perf_counter() - t2
    return m, x, c, first, time.perf_counter() - t1


def child(mode, path):
    import numpy as np
    t0 = time.perf_counter()
    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    native.require_native()
    tasks = len(os.listdir("/proc/self/task"))
    import_s = time.perf_counter() - t0
    if mode.endswith("+thread"):
        import threading
        t = threading.Thread(target=lambda: None)
        t.start(); t.join()
    native.set_num_threads(1)
    m, x, c, first, fr = timed_first_start(TfliteRunner, path)
    pending = m.kept_pending
    t3 = time.perf_counter()
    m.wait_kept()
    waited = time.perf_counter() - t3
    t4 = time.perf_counter()
    m.run(x)
    second = time.perf_counter() - t4
    print(json.dumps({"configure": c, "first_inference": first, "first_result": fr, "second_inference": second,
                      "pending_after_first": pending, "waited": waited, "tasks_after_import": tasks,
                      "import": import_s}))


def main():
    from acl_bridge.models.apps.fetch import model_path
    models = sys.argv[1].split(",")
    rounds = int(sys.argv[2])
    for name in models:
        path = str(model_path(name))
        s = {m: [] for m in MODES}
        for k in range(rounds):
            order = MODES[k % 4:] + MODES[:k % 4]
            for mode in order:
                d = tempfile.mkdtemp()
                env = dict(os.environ, ACL_NDARRAY_MODEL_CACHE=d + "/m", ACL_NDARRAY_FACTS_CACHE=d + "/f")
                if mode.startswith("fg"):
                    env["ACL_NDARRAY_KEEP_IN_FOREGROUND"] = "1"
                r = subprocess.run([sys.executable, __file__, "--child", mode, path], capture_output=True, text=True,
                                   env=env)
                if r.returncode:
                    print(r.stderr[-2000:]); sys.exit(1)
                s[mode].append(json.loads(r.stdout.strip().splitlines()[-1]))
        print(name, "tasks after import:", s["bg"][0]["tasks_after_import"])
        for mode in MODES:
            med = {f: statistics.median(x[f] for x in s[mode]) for f in ("configure", "first_inference", "first_result", "second_inference", "waited")}
            pend = sum(x["pending_after_first"] for x in s[mode])
            ratios = {f: statistics.median(a[f] / b[f] for a, b in zip(s[mode], s["fg"])) for f in ("configure", "first_inference", "first_result")}
            print(f"  {mode:10s} " + " ".join(f"{f} {v:.3f}" for f, v in med.items())
                  + f" pending-after-first {pend}/{rounds} | /fg: " + " ".join(f"{f} {v:.3f}" for f, v in ratios.items()),
                  flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
