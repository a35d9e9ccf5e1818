"""Benchmark: start-up and inference of the face models on ACL's OpenCL backend, with and
without the OpenCL program cache (acl_bridge/cl_program_cache.py), per driver.

Every start is a fresh process (ACL's compiled programs live per process). Per driver and
model, with the driver's own caches off (PoCL ``POCL_KERNEL_CACHE=0``, Mesa
``MESA_SHADER_CACHE_DISABLE=true``) and then on (in fresh directories of this run):

* ``off/cold``  ACL program cache empty, driver caches off: everything compiled;
* ``off/warm``  the program cache ``off/cold`` saved, driver caches off;
* ``on/first``  driver caches on but empty, no program cache: fills the driver caches;
* ``on/cold``   driver caches warm, ACL program cache empty;
* ``on/warm``   driver caches warm, the program cache ``on/cold`` saved.

Per start: ``ready`` = seconds from ``TfliteRunner(...)`` to the configured runner (includes
restoring the program cache; the save after a cold configure is ``save``, also paid in the
constructor); the first inference (drivers may compile work-group variants at the first
launch); the median of ``--runs`` further inferences. One start per cell (they are slow:
tens of seconds cold); warm/cold is the ratio of ``ready``.

Run inside the native OpenCL root (both drivers are installed there)::

    ./docker/cl-native.sh run -- env ACL_NDARRAY_CL_LAYER=1 python3 benchmarks/cl_models.py \\
        --json /tmp/cl_models.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ("face_detection_front", "face_detection_back", "face_detection_full_range", "face_landmark")
DRIVERS = {"pocl": "/etc/OpenCL/vendors/pocl.icd", "rusticl": "/etc/OpenCL/vendors/rusticl.icd"}

CHILD = textwrap.dedent("""
    import json, statistics, sys, time
    import numpy as np
    sys.path.insert(0, sys.argv[4])
    from acl_bridge.models.apps import fetch
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    model, cache, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    t0 = time.perf_counter()
    r = TfliteRunner(fetch.model_path(model), backend="cl", program_cache=False if cache == "off" else cache)
    ready = time.perf_counter() - t0
    x = np.random.default_rng(0).uniform(-1, 1, r.input_shape).astype(np.float32)
    t = time.perf_counter(); r.run(x); first = time.perf_counter() - t
    times = []
    for _ in range(runs):
        t = time.perf_counter(); r.run(x); times.append(time.perf_counter() - t)
    rep = r.program_cache
    print("RESULT " + json.dumps({"ready_s": ready, "configure_s": r.configure_seconds, "first_run_s": first,
                                  "run_median_s": statistics.median(times), "functions": len(r.functions),
                                  "state": rep.state, "restored": rep.programs_restored, "saved": rep.programs_saved,
                                  "restore_s": rep.restore_seconds, "save_s": rep.save_seconds,
                                  "copied": r.copied_bytes_per_inference["total"]}))
""")


def start(model: str, cache: str, runs: int, env: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, model, cache, str(runs), str(ROOT)], env=env,
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"{model} ({cache}) failed:\n{done.stderr[-3000:]}")
    return json.loads(next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))[7:])


def driver_env(driver: str, caches_on: bool, scratch: Path, shared_caches: bool = False) -> dict:
    # each driver's own cache switch: PoCL, Mesa, and NVIDIA's compute cache (CUDA_CACHE_*,
    # which its OpenCL driver uses too); the others' variables are harmless to each driver
    env = dict(os.environ, OCL_ICD_VENDORS=DRIVERS[driver], RUSTICL_ENABLE="llvmpipe", ACL_NDARRAY_CL_LAYER="1")
    for k in ("POCL_KERNEL_CACHE", "MESA_SHADER_CACHE_DISABLE", "CUDA_CACHE_DISABLE"):
        env.pop(k, None)
    if caches_on and shared_caches:  # the driver's usual cache directories, as they are
        env.update(POCL_KERNEL_CACHE="1", MESA_SHADER_CACHE_DISABLE="false", CUDA_CACHE_DISABLE="0")
    elif caches_on:
        env.update(POCL_CACHE_DIR=str(scratch / "pocl"), MESA_SHADER_CACHE_DIR=str(scratch / "mesa"),
                   CUDA_CACHE_PATH=str(scratch / "nv"), POCL_KERNEL_CACHE="1", MESA_SHADER_CACHE_DISABLE="false",
                   CUDA_CACHE_DISABLE="0")
    else:
        env.update(POCL_KERNEL_CACHE="0", MESA_SHADER_CACHE_DISABLE="true", CUDA_CACHE_DISABLE="1",
                   POCL_CACHE_DIR=str(scratch / "pocl-off"))
    return env


def measure(driver: str, model: str, runs: int, scratch: Path, say, only=None, shared_caches=False) -> dict:
    out = {}
    off = driver_env(driver, False, scratch)
    on = driver_env(driver, True, scratch, shared_caches)
    steps = (("off/cold", off, "off-cache"), ("off/warm", off, "off-cache"), ("on/first", on, "off"),
             ("on/cold", on, "on-cache"), ("on/warm", on, "on-cache"))
    for name, env, cache in steps:
        if only and name not in only:
            continue
        r = start(model, cache if cache == "off" else str(scratch / cache), runs, env)
        out[name] = r
        say(f"{driver:8s} {model:26s} {name:9s} ready {r['ready_s']:7.2f} s (save {r['save_s']:5.2f} s, "
            f"restored {r['restored']:3d}, saved {r['saved']:3d}); first run {r['first_run_s'] * 1e3:8.1f} ms; "
            f"run median {r['run_median_s'] * 1e3:8.1f} ms")
    return out


def table(results: dict) -> str:
    rows = ["| driver | model | ready, driver caches off: cold / warm (ratio) | ready, driver caches on: first / cold / "
            "warm (ratio) | programs | save (cold) | first run (warm) | inference median |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for driver, models in results.items():
        for model, r in models.items():
            if len(r) < 5:  # --steps: the cells measured
                rows.append(f"| {driver} | {model} | " + "; ".join(
                    f"{k} ready {v['ready_s']:.2f} s (save {v['save_s']:.2f} s, restored {v['restored']})"
                    for k, v in r.items()) + f" | | | | | {r[next(iter(r))]['saved']} saved | "
                    f"{list(r.values())[-1]['run_median_s'] * 1e3:.1f} ms |")
                continue
            oc, ow = r["off/cold"]["ready_s"], r["off/warm"]["ready_s"]
            nf, nc, nw = r["on/first"]["ready_s"], r["on/cold"]["ready_s"], r["on/warm"]["ready_s"]
            rows.append(f"| {driver} | {model} | {oc:.2f} s / {ow:.2f} s ({ow / oc:.3f}x) | {nf:.2f} s / {nc:.2f} s / "
                        f"{nw:.2f} s ({nw / nc:.3f}x) | {r['off/cold']['saved']} | {r['off/cold']['save_s']:.2f} s | "
                        f"{r['on/warm']['first_run_s'] * 1e3:.1f} ms | {r['on/warm']['run_median_s'] * 1e3:.1f} ms |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--drivers", default="pocl,rusticl", help="comma-separated: pocl, rusticl, or a name of --icd")
    ap.add_argument("--icd", action="append", default=[], metavar="NAME=FILE",
                    help="another driver: its ICD file (a GPU machine's NVIDIA driver, say)")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--runs", type=int, default=5, help="inferences timed after the first (median)")
    ap.add_argument("--json", metavar="PATH", help="also write every measurement as JSON")
    ap.add_argument("--steps", help="only these starts, e.g. on/cold,on/warm (default: all five)")
    ap.add_argument("--shared-driver-caches", action="store_true",
                    help="'on' starts use the drivers' usual cache directories as they are (warm from earlier "
                         "use) instead of fresh ones")
    args = ap.parse_args(argv)
    for spec in args.icd:
        name, sep, path = spec.partition("=")
        if not sep or not name or not os.path.isfile(path):
            ap.error(f"--icd {spec!r}: expected NAME=FILE with an existing ICD file")
        DRIVERS[name] = path
    results: dict = {}
    for driver in args.drivers.split(","):
        results[driver] = {}
        for model in args.models.split(","):
            with tempfile.TemporaryDirectory(prefix="acl-ndarray-bench-") as tmp:
                results[driver][model] = measure(driver, model, args.runs, Path(tmp), lambda s: print(s, flush=True),
                                                 args.steps.split(",") if args.steps else None,
                                                 args.shared_driver_caches)
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=1))
    print()
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
