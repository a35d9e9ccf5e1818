"""When a first start hands its kept files to the background writer: at the constructor's end
(``at load``, as before stop 55) or once the first inference has returned (``after first``,
the default), each start in a fresh process with empty caches, the two alternating; medians
and ratios of paired rounds of the configure, the first inference, the first result and the
release itself (the writer's start). Also, in each child, the start of one
``threading.Thread`` and one bare ``_thread`` thread, what the writer's start costs either
way (docs/performance.md Part 12). Needs ACL:

    ./docker/emulate.sh run trixie -- python3 benchmarks/kept_release.py MODEL[,MODEL...] ROUNDS
"""
import json, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keep_later import timed_first_start  # noqa: E402

MODES = ("at load", "after first")


def _thread_starts():
    """Seconds the starter spends starting a threading.Thread, then a bare _thread thread."""
    import _thread
    import threading

    done = threading.Event()
    t0 = time.perf_counter()
    t = threading.Thread(target=lambda: None)
    t.start()
    a = time.perf_counter() - t0
    t.join()
    t0 = time.perf_counter()
    _thread.start_new_thread(done.set, ())
    b = time.perf_counter() - t0
    done.wait()
    return a, b


def child(mode, path):
    from acl_bridge import native
    from acl_bridge.models.runtime import kept_answers
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    native.require_native()
    native.set_num_threads(1)
    released = []
    start = kept_answers.KeptFiles.start

    def timed_start(self):
        t = time.perf_counter()
        start(self)
        released.append(time.perf_counter() - t)

    kept_answers.KeptFiles.start = timed_start
    # (at load: the files handed over at the constructor's end, as before)
    m, _, c, first, fr = timed_first_start(TfliteRunner, path,
                                           (lambda r: r._kept_files.start()) if mode == "at load" else None)
    m.wait_kept()
    thread_start, bare_start = _thread_starts()
    print(json.dumps({"configure": c, "first_inference": first, "first_result": fr, "release": released[0],
                      "thread_start": thread_start, "bare_thread_start": bare_start}))


def main():
    from acl_bridge.models.apps.fetch import model_path
    rounds = int(sys.argv[2])
    fields = ("configure", "first_inference", "first_result", "release", "thread_start", "bare_thread_start")
    for name in sys.argv[1].split(","):
        path = str(model_path(name))
        s = {m: [] for m in MODES}
        for k in range(rounds):
            for mode in (MODES if k % 2 == 0 else MODES[::-1]):
                d = tempfile.mkdtemp()
                env = dict(os.environ, ACL_NDARRAY_MODEL_CACHE=d + "/m", ACL_NDARRAY_FACTS_CACHE=d + "/f")
                r = subprocess.run([sys.executable, __file__, "--child", mode, path], capture_output=True, text=True,
                                   env=env)
                if r.returncode:
                    print(r.stderr[-2000:])
                    sys.exit(1)
                s[mode].append(json.loads(r.stdout.strip().splitlines()[-1]))
        print(f"{name} ({rounds} rounds, medians, ms; paired: after first / at load)")
        for f in fields:
            a = statistics.median(x[f] for x in s["at load"])
            b = statistics.median(x[f] for x in s["after first"])
            paired = statistics.median(y[f] / x[f] for x, y in zip(s["at load"], s["after first"]))
            print(f"  {f:18s} at load {1000 * a:7.1f}  after first {1000 * b:7.1f}  paired {paired:.3f}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
