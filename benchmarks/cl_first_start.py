"""Benchmark: a model's first start on ACL's OpenCL backend against its second start, where
ACL's program compilation is not the cost (issue 40's OpenCL part).

Per model, two warm-up starts fill the OpenCL program cache (acl_bridge/cl_program_cache.py),
the driver's own cache (left on) and the kept files (plan, ACL's answers); then ``--rounds``
rounds, each a ``first`` start (fresh model and facts cache folders: nothing kept, the program
cache warm) and a ``second`` start (the kept files of the warm-up), taking turns, every start a
fresh process. Per start: ``configure`` = seconds of ``TfliteRunner(..., backend="cl")``,
``first result`` = configure and the first inference, and the load's phases
(``configure_profile()``, with ACL's calls by category). ``--cl-init-apart`` opens the OpenCL
device (``opencl.cl_init``) before the clock starts and reports it as ``cl_init``: on a
discrete GPU the driver's start is a large constant of every process.

    python3 benchmarks/cl_first_start.py --models face_detection_front,keyword_spotting_alexa
        [--rounds 4] [--cl-init-apart] [--json out.json]

A model is a fetched model's name (acl_bridge.models.apps.fetch) or a .tflite path. Results:
docs/opencl.md, "A first start without kept answers".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent


def child(model: str, program_cache: str, cl_init_apart: bool) -> Dict[str, object]:
    """One start in this process: its seconds, phases and the caches' states (acl_bridge as
    installed or on PYTHONPATH, else this checkout's, built in place)."""
    sys.path.append(str(ROOT))
    import numpy as np

    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    native.require_native()
    cl_init_s = 0.0
    if cl_init_apart:
        from acl_bridge import opencl

        t = time.perf_counter()
        opencl.cl_init()
        cl_init_s = time.perf_counter() - t
    path = model if model.endswith(".tflite") else str(_fetched(model))
    t1 = time.perf_counter()
    m = TfliteRunner(path, backend="cl", program_cache=program_cache)
    configure_s = time.perf_counter() - t1
    m.run(np.zeros(m.input_shape, m.input_dtype))
    first_s = time.perf_counter() - t1
    phases: Dict[str, float] = {}
    for p in m.configure_profile().phases:
        phases[p.phase] = phases.get(p.phase, 0.0) + p.seconds
        for n in p.native:
            key = f"{p.phase}: ACL {n.category}"
            phases[key] = phases.get(key, 0.0) + n.seconds
    return {"cl_init_s": cl_init_s, "configure_s": configure_s, "first_result_s": first_s, "phases": phases,
            "caches": [m.model_cache.state if m.model_cache is not None else "none",
                       m.facts_cache.state if m.facts_cache is not None else "none"]}


def _fetched(name: str) -> Path:
    from acl_bridge.models.apps.fetch import model_path

    return model_path(name)


def start(model: str, program_cache: str, model_cache: str, facts_cache: str,
          cl_init_apart: bool) -> Optional[Dict[str, object]]:
    """One start in a fresh process, or None (its error printed)."""
    env = dict(os.environ, ACL_NDARRAY_MODEL_CACHE=model_cache, ACL_NDARRAY_FACTS_CACHE=facts_cache)
    args = [sys.executable, __file__, "--child", model, program_cache] + (["--cl-init-apart"] if cl_init_apart else [])
    r = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0 or not r.stdout.strip():
        print(f"{model}: a start failed (exit {r.returncode}): {r.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


def measure(model: str, rounds: int, cl_init_apart: bool, work: str) -> Dict[str, object]:
    name = Path(model).stem
    program_cache = os.path.join(work, name + ".programs")
    kept_model, kept_facts = os.path.join(work, name + ".model"), os.path.join(work, name + ".facts")
    warm = [start(model, program_cache, kept_model, kept_facts, cl_init_apart) for _ in range(2)]
    rows: Dict[str, List[Dict[str, object]]] = {"first": [], "second": []}
    for r in range(rounds):
        for mode in (("first", "second") if r % 2 == 0 else ("second", "first")):
            if mode == "first":
                fresh = tempfile.mkdtemp(dir=work)
                got = start(model, program_cache, fresh + "/model", fresh + "/facts", cl_init_apart)
            else:
                got = start(model, program_cache, kept_model, kept_facts, cl_init_apart)
            if got is not None:
                rows[mode].append(got)
    out: Dict[str, object] = {"model": name, "warm_up_configure_s": [w["configure_s"] if w else None for w in warm]}
    for mode, rs in rows.items():
        if not rs:
            continue
        keys = sorted({k for x in rs for k in x["phases"]})  # type: ignore[union-attr]
        out[mode] = {"n": len(rs), "caches": rs[0]["caches"],
                     **{f: statistics.median(x[f] for x in rs) for f in ("cl_init_s", "configure_s", "first_result_s")},  # type: ignore[misc]
                     "phases": {k: statistics.median(x["phases"].get(k, 0.0) for x in rs) for k in keys}}  # type: ignore[union-attr]
    pairs = list(zip(rows["first"], rows["second"]))
    if pairs:
        ratios = [a["configure_s"] / b["configure_s"] for a, b in pairs]  # type: ignore[operator]
        out["first_over_second_configure"] = {"median": statistics.median(ratios), "min": min(ratios), "max": max(ratios)}
    return out


def report(result: Dict[str, object]) -> None:
    name = result["model"]
    for mode in ("first", "second"):
        m = result.get(mode)
        if not m:
            continue
        print(f"{name} {mode} (n={m['n']}, caches {m['caches']}): cl_init {m['cl_init_s']:.3f} s, configure "
              f"{m['configure_s']:.3f} s, first result {m['first_result_s']:.3f} s")
        print("    phases (medians, s): " + ", ".join(f"{k} {v:.4f}" for k, v in m["phases"].items()))
    r = result.get("first_over_second_configure")
    if r:
        print(f"{name} first / second start, configure: {r['median']:.2f} ({r['min']:.2f}-{r['max']:.2f}) paired")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="face_detection_front,keyword_spotting_alexa")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--cl-init-apart", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    work = tempfile.mkdtemp(prefix="cl_first_start-")
    results = [measure(m, args.rounds, args.cl_init_apart, work) for m in args.models.split(",")]
    for r in results:
        report(r)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2], sys.argv[3], "--cl-init-apart" in sys.argv[4:])))
    else:
        sys.exit(main())
