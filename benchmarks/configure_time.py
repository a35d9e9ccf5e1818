"""Model start-up: the runner's load as it was (every function asks ACL afresh, every
in-place tensor probed) against the load now (ACL's answers reused by content, no probe of
the bridge's own dense buffers), in one process, taking turns, with the configure profile
of each (``TfliteRunner.configure_profile``: phases, native calls, costliest steps).

    python3 benchmarks/configure_time.py [--models face_detection_front] [--rounds 2]
                                         [--cprofile 25] [--operators 5] [--json out.json]

"as it was" is the same code with ``reuse_facts=False`` and the planner's probe rule as
before this change (:func:`acl_bridge.plan._probe_may_stage` answering True for every
tensor): the measurement of what the change saves, not a mode anyone runs. Each load is
followed by its first inference (ACL prepares weights there: time to the first result).
``--cprofile N`` loads once more (now) under cProfile and prints its N costliest functions
(cumulative). One ACL thread. Needs ACL (``./docker/emulate.sh run -- python3
benchmarks/configure_time.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from contextlib import contextmanager

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import _write_json  # noqa: E402

MODELS = ("face_detection_front",)


@contextmanager
def as_it_was():
    """The planner's probe rule before this change: every in-place tensor is probed."""
    from acl_bridge import plan

    saved = plan._probe_may_stage
    plan._probe_may_stage = lambda t: True
    try:
        yield
    finally:
        plan._probe_may_stage = saved


def load(path, before: bool):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    t0 = time.perf_counter()
    if before:
        with as_it_was():
            r = TfliteRunner(path, reuse_facts=False)
    else:
        r = TfliteRunner(path)
    seconds = time.perf_counter() - t0
    x = np.random.default_rng(0).uniform(-1, 1, r.input_shape).astype(np.float32)
    out = {k: v.copy() for k, v in r.run(x).items()}
    profile = r.configure_profile()
    staged = r.staged()
    r.close()
    return seconds, profile, out, staged


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cprofile", type=int, default=0, metavar="N")
    ap.add_argument("--operators", type=int, default=0, metavar="ROUNDS",
                    help="also the per-function inference profile (TfliteRunner.profile) over ROUNDS runs")
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args()
    from acl_bridge import native
    from acl_bridge.models.apps import fetch

    ok, reason = native.native_available()
    if not ok:
        print(f"needs the native ACL layer: {reason}", file=sys.stderr)
        return 2
    native.set_num_threads(1)
    results = {"acl": native.acl_version(), "rounds": args.rounds, "models": {}}
    print(f"ACL {native.acl_version()}; one thread; {args.rounds} rounds, before and now taking turns")
    for model in args.models.split(","):
        path = fetch.model_path(model)
        times: dict = {"before": [], "now": []}
        first: dict = {"before": [], "now": []}
        profiles, outs = {}, {}
        for _ in range(args.rounds):
            for which in ("before", "now"):
                seconds, profile, out, staged = load(path, which == "before")
                times[which].append(seconds)
                first[which].append(profile.first_result_seconds)
                profiles[which], outs[which] = profile, out
                assert staged == [], f"{model} {which}: staged {staged}"
        same = all(np.array_equal(outs["before"][k], outs["now"][k]) for k in outs["now"])
        row: dict = {w: {"load_seconds": times[w], "first_result_seconds": first[w],
                   "median_load_seconds": statistics.median(times[w]),
                   "profile": profiles[w].as_dict()} for w in times}
        row["same_outputs"] = same
        results["models"][model] = row
        for w in ("before", "now"):
            print(profiles[w].text())
            print()
        print(f"{model}: load before {', '.join(f'{t:.2f}' for t in times['before'])} s, now "
              f"{', '.join(f'{t:.2f}' for t in times['now'])} s; first result before "
              f"{', '.join(f'{t:.2f}' for t in first['before'])} s, now {', '.join(f'{t:.2f}' for t in first['now'])} s;"
              f" outputs bit-identical: {same}")
        if args.operators:
            from acl_bridge.models.runtime.tflite_runner import TfliteRunner

            with TfliteRunner(path) as r:
                ops = r.profile(args.operators)
            print(ops.text())
            row["operator_profile"] = ops.as_dict()
        if args.cprofile:
            import cProfile
            import pstats

            from acl_bridge.models.runtime.tflite_runner import TfliteRunner

            pr = cProfile.Profile()
            pr.enable()
            TfliteRunner(path).close()
            pr.disable()
            pstats.Stats(pr).sort_stats("cumulative").print_stats(args.cprofile)
    return _write_json(args, results)


if __name__ == "__main__":
    sys.exit(main())
