"""A first start's read and lower on the host, this checkout's Python against another's,
each start a fresh process, taking turns.

    python3 benchmarks/first_read_time.py --base DIR [--models face_detection_front] [--rounds 9]

``DIR`` holds another version's ``acl_bridge`` and ``ndarray`` packages (for instance
``git archive REV acl_bridge ndarray | tar -x -C DIR``); both are byte-compiled first. Per
round and model, one child per side (the order alternating) times, with empty caches:

* ``read``: the first ``read_model`` of the process (the reader's lazy imports included);
* ``read + lower``: then the runners' first-start path, ``numpy_backend._plan_of`` (the plan
  cache missed, the model read, lowered, and kept: encoded, read back, compared, written),
  the reader's imports already paid.

Reported: medians in ms and the median of the rounds' own ratios base / this. No ACL needed:
these phases are pure Python and run as they do in a device's first start, without
emulation's cost.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ("face_detection_front", "face_landmark", "visual_wake_words", "keyword_spotting_alexa")


def child(path: str) -> Dict[str, float]:
    import importlib

    importlib.import_module("numpy")  # imported by both sides before the clock
    from acl_bridge.models.format.tflite_reader import read_model
    from acl_bridge.models.runtime import numpy_backend

    data = open(path, "rb").read()
    t0 = time.perf_counter()
    read_model(data)
    t1 = time.perf_counter()
    numpy_backend._plan_of(path, tempfile.mkdtemp(prefix="first-read-"), True)
    return {"read": t1 - t0, "read + lower": time.perf_counter() - t1}


def _run(python_path: str, path: str) -> Dict[str, float]:
    env = dict(os.environ, PYTHONPATH=python_path)
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", path], capture_output=True, text=True,
                       env=env, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"{path} with {python_path}: exit {r.returncode}: {r.stderr.strip()[-800:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--base", help="the other version's packages (a folder with acl_bridge/ and ndarray/)")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child)))
        return 0
    if not args.base or not os.path.isdir(os.path.join(args.base, "acl_bridge")):
        ap.error("--base DIR: a folder holding another version's acl_bridge/ and ndarray/")
    from acl_bridge.models.apps.fetch import model_path

    for where in (args.base, ROOT):
        for package in ("acl_bridge", "ndarray"):
            compileall.compile_dir(os.path.join(where, package), quiet=2, workers=1)
    for name in [m for m in args.models.split(",") if m]:
        path = str(model_path(name))
        paired_rounds(name, args.rounds, lambda side: _run(args.base if side == "base" else ROOT, path),
                      ("read", "read + lower"))
    return 0


def paired_rounds(name: str, rounds: int, sample: Callable[[str], Dict[str, float]], keys: Sequence[str]) -> None:
    """``rounds`` rounds of ``sample("base")`` and ``sample("this")`` (each a child process's
    seconds by key), the order alternating; prints per key the medians in ms and the median
    of the rounds' own ratios base / this."""
    samples: Dict[str, List[Dict[str, float]]] = {"base": [], "this": []}
    for k in range(rounds):
        for side in (("base", "this") if k % 2 == 0 else ("this", "base")):
            samples[side].append(sample(side))
    for key in keys:
        base = [s[key] for s in samples["base"]]
        this = [s[key] for s in samples["this"]]
        ratio = statistics.median(b / t for b, t in zip(base, this))
        print(f"{name}: {key}: base {statistics.median(base) * 1e3:.1f} ms, this "
              f"{statistics.median(this) * 1e3:.1f} ms, base / this {ratio:.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
