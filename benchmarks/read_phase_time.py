"""A first start's read phase, this checkout's Python against another's, each sample a fresh
process, the two taking turns (needs no ACL: runs on the host or under QEMU alike).

    python3 benchmarks/read_phase_time.py --base DIR [--rounds 7] [--models a,b] [--profile a,b]

``DIR`` holds the other version's ``acl_bridge`` and ``ndarray`` packages; this checkout's are
the ones Python imports (``--this DIR`` to name them). Per round and model, one child per side
(the order alternating) imports the runner's modules (``acl_bridge.models.runtime.tflite_runner``),
then, with empty caches, times:

* ``phase``: what the runner's ``read`` phase does on a first start: the plan cache's key and
  miss (``read_plan_cached``, the file read included), then ``read_model_cached`` (the file to
  a ModelSpec, its constant DEQUANTIZEs folded);
* ``read_model``: a second ``read_model`` of the same bytes in that process.

Reported: medians in ms and the median of the rounds' own ratios base / this; ``--profile``
prints a cProfile of one start of each side for the models named.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import List, Optional

from first_read_time import paired_rounds  # (this folder is the script's: sys.path[0])

MODELS = "face_detection_front,face_landmark,visual_wake_words,keyword_spotting_alexa"


def child(path: str, profile: bool) -> None:
    os.environ["ACL_NDARRAY_MODEL_CACHE"] = tempfile.mkdtemp(prefix="read-phase-")
    import importlib
    import inspect

    for module in ("numpy", "acl_bridge.models.runtime.tflite_runner"):  # the runner's imports before the clock
        importlib.import_module(module)
    from acl_bridge.models.format.model_cache import read_model_cached
    from acl_bridge.models.format.tflite_reader import read_model
    from acl_bridge.models.planning.plan_cache import read_plan_cached

    passes_md5 = "model_md5" in inspect.signature(read_model_cached).parameters  # as the runner does, where it can

    def phase():
        _, plans, data, _ = read_plan_cached(path, True, None)
        md5 = {"model_md5": plans.key["model_md5"]} if passes_md5 and plans is not None else {}
        return read_model_cached(data, True, dequantized=True, keep=plans is None, **md5)

    if profile:
        import cProfile
        import io
        import pstats

        pr = cProfile.Profile()
        pr.enable()
        phase()
        pr.disable()
        out = io.StringIO()
        pstats.Stats(pr, stream=out).sort_stats("cumtime").print_stats(28)
        print(out.getvalue())
        return
    t0 = time.perf_counter()
    phase()
    t1 = time.perf_counter()
    data = open(path, "rb").read()
    t2 = time.perf_counter()
    read_model(data)
    t3 = time.perf_counter()
    print(json.dumps({"phase": t1 - t0, "read_model": t3 - t2}))


def _run(python_path: Optional[str], path: str, profile: bool) -> str:
    env = dict(os.environ)
    if python_path:
        env["PYTHONPATH"] = python_path
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", path] + (["--profile", "1"] if profile else []),
                       capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"{path} with {python_path}: exit {r.returncode}: {r.stderr.strip()[-800:]}")
    return r.stdout


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--base", help="the other version's packages (a folder with acl_bridge/ and ndarray/)")
    ap.add_argument("--this", default=None, help="this version's packages (default: those Python imports)")
    ap.add_argument("--models", default=MODELS)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--profile", default="", help="models to print a cProfile of (one start per side)")
    args = ap.parse_args(argv)
    if args.child:
        child(args.child, bool(args.profile))
        return 0
    if not args.base or not os.path.isdir(os.path.join(args.base, "acl_bridge")):
        ap.error("--base DIR: a folder holding another version's acl_bridge/ and ndarray/")
    for where in (args.base, args.this):
        for package in ("acl_bridge", "ndarray"):
            if where and os.path.isdir(os.path.join(where, package)):
                compileall.compile_dir(os.path.join(where, package), quiet=2, workers=1)
    from acl_bridge.models.apps.fetch import model_path

    sides = {"base": os.path.abspath(args.base), "this": args.this and os.path.abspath(args.this)}
    for name in [m for m in args.models.split(",") if m]:
        path = str(model_path(name))
        paired_rounds(name, args.rounds,
                      lambda side: json.loads(_run(sides[side], path, False).strip().splitlines()[-1]),
                      ("phase", "read_model"))
        if name in args.profile.split(","):
            for side in ("base", "this"):
                print(f"--- cProfile of {name}, {side}\n{_run(sides[side], path, True)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
