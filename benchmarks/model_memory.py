"""Model memory: the activation arena against its lower bound, ACL's workspaces shared against
a pool per function, the process's resident memory against Arm NN's for the same model, and
inference time with the memory plan (arena + one workspace) against without (one buffer per
tensor, a workspace per function).

    python3 benchmarks/model_memory.py [--models face_detection_front,face_landmark] [--repeats 9]

Resident memory is measured in a fresh process per runtime and model (configure, then two
inferences; /proc/self/statm), so one runtime's allocations never count against another's;
"before" is the process with the runtime imported, before the model is read (under qemu-user
the figure includes QEMU's own memory, which the growth over "before" leaves out).
Time: the two runners (arena and one buffer per tensor) live in one process and take turns in
each round; the ratio is the median of the rounds' ratios (bench.py's paired_ratio). Needs
ACL (the emulated images: ``./docker/emulate.sh run trixie -- python3 benchmarks/model_memory.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import _write_json, interleaved_samples, paired_ratio  # noqa: E402

MODELS = ("face_detection_front", "face_landmark", "face_detection_full_range", "visual_wake_words",
          "image_classification", "keyword_spotting_alexa")
# bridge: the memory plan (arena, one workspace) and the model's constants given to ACL in
# place; bridge_copies: the same with a copy of every constant; bridge_one_each: a buffer per
# tensor, a workspace per function and copied constants (the runner before issue 24); Arm NN's
# TfLite parser on CpuAcc
RUNTIMES = ("bridge", "bridge_copies", "bridge_one_each", "armnn")


def _input(shape, dtype=np.float32) -> np.ndarray:
    rng = np.random.default_rng(0)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max + 1, shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def _runner(path, planned: bool, share_constants: bool = False):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    return TfliteRunner(path, arena=planned, share_workspaces=planned, share_constants=share_constants)


def child(runtime: str, model: str) -> dict:
    """One runtime on one model in this (fresh) process: resident bytes after configure and
    after two inferences."""
    from acl_bridge import native
    from acl_bridge.models.apps import fetch
    from acl_bridge.models.runtime.buffers import resident_bytes

    native.set_num_threads(1)
    path = fetch.model_path(model)
    if runtime == "armnn":  # the runtime imported before "before", as the bridge's is
        import pyarmnn  # noqa: F401

        from acl_bridge.models.oracles.armnn_tflite import ArmnnTfliteModel
    _input((1,), np.float32), _input((1,), np.int8)  # the benchmark's own input generator (numpy.random,
    before = resident_bytes()  # a few MiB of modules) is loaded before "before": it is no runtime's memory
    t0 = time.perf_counter()
    if runtime == "armnn":  # its own input binding (no tflite package imported: the bridge's
        m = ArmnnTfliteModel(path)  # children read the model from the parsed-model cache)
        shape, dtype, run = m._input_shape, m.input_dtype, m.run
        report = {}
    else:
        r = _runner(path, runtime != "bridge_one_each", runtime == "bridge")
        shape, dtype, run = r.input_shape, r.input_dtype, r.run
    configured = resident_bytes()
    configure_s = time.perf_counter() - t0
    for _ in range(2):
        run(_input(shape, dtype))
    after = resident_bytes()
    caches = None
    if runtime != "armnn":
        report = r.memory_report()
        caches = [r.model_cache.state if r.model_cache is not None else "none",
                  r.facts_cache.state if r.facts_cache is not None else "none"]
    return dict(runtime=runtime, model=model, before=before, configured=configured, after=after,
                configure_s=configure_s, report=report, caches=caches)


def measure_in_fresh_process(runtime: str, model: str, warm: bool = True) -> dict:
    """One child; ``warm``: the bridge's caches (parsed model, ACL's answers) must have been
    warm in it (a second start), else RuntimeError: the figure would be of another start."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", runtime, model],
                         capture_output=True, text=True, timeout=1200)
    if out.returncode != 0:
        raise RuntimeError(f"{runtime} on {model} failed: {out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if warm and result["caches"] not in (None, ["warm", "warm"]):
        raise RuntimeError(f"{runtime} on {model}: caches (parsed model, ACL's answers) {result['caches']}, "
                           f"expected both warm (a second start)")
    return result


def measure_processes(model: str, processes: int) -> dict:
    """Each runtime in ``processes`` fresh processes, the runtimes taking turns (the order
    rotated each round); per runtime the sample whose growth over "before" is the median
    (resident memory under qemu-user moves in steps of about 2 MiB between identical runs)."""
    samples: dict = {rt: [] for rt in RUNTIMES}
    for k in range(processes):
        order = RUNTIMES[k % len(RUNTIMES):] + RUNTIMES[:k % len(RUNTIMES)]
        for rt in order:
            samples[rt].append(measure_in_fresh_process(rt, model))
    out = {}
    for rt, runs in samples.items():
        ranked = sorted(runs, key=lambda r: r["after"] - r["before"])
        out[rt] = dict(ranked[len(ranked) // 2], own_samples=[r["after"] - r["before"] for r in runs])
    return out


def timing(model: str, repeats: int) -> dict:
    from acl_bridge import native
    from acl_bridge.models.apps import fetch
    native.set_num_threads(1)
    path = fetch.model_path(model)
    shared, separate = _runner(path, True), _runner(path, False)
    x = _input(shared.input_shape, shared.input_dtype)
    shared.input_array.numpy()[...] = x
    separate.input_array.numpy()[...] = x

    def batch(runner):
        def run(iterations: int) -> float:
            t = time.perf_counter_ns()
            for _ in range(iterations):
                runner.schedule.run()
            return (time.perf_counter_ns() - t) / iterations
        return run

    samples = interleaved_samples({"arena": batch(shared), "one_each": batch(separate)}, 2, repeats)
    return dict(arena_ms=statistics.median(samples["arena"]) / 1e6,
                one_each_ms=statistics.median(samples["one_each"]) / 1e6,
                ratio=paired_ratio(samples, "arena", "one_each"))


def mib(n) -> str:
    return "-" if n is None else f"{n / 2**20:6.2f}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--repeats", type=int, default=9)
    p.add_argument("--processes", type=int, default=3, help="fresh processes per runtime and model (median)")
    p.add_argument("--json", help="also write the numbers to this file")
    p.add_argument("--child", nargs=2, metavar=("RUNTIME", "MODEL"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    results = []
    from acl_bridge.models.apps import fetch
    from acl_bridge.models.format.model_cache import read_model_cached

    for model in args.models.split(","):  # the bridge's children start with the model parsed and ACL's
        read_model_cached(fetch.model_path(model))  # answers kept (a second start): one child of each fills them
        for rt in RUNTIMES[:-1]:
            measure_in_fresh_process(rt, model, warm=False)
    print("== activations (MiB): arena / lower bound / one buffer each; ACL workspaces (MiB): one pool / a pool per "
          "function; resident memory after configure and after two inferences (MiB, fresh process each); time per "
          "inference, the memory plan vs one buffer and one workspace each")
    for model in args.models.split(","):
        rss = measure_processes(model, args.processes)
        t = timing(model, args.repeats)
        rep, alone = rss["bridge"]["report"], rss["bridge_one_each"]["report"]
        row = dict(model=model, rss=rss, timing=t)
        results.append(row)
        print(f"\n{model}: activations {mib(rep['activations_bytes'])} / {mib(rep['activations_lower_bound_bytes'])} / "
              f"{mib(rep['activations_one_buffer_each_bytes'])} "
              f"({rep['activations_bytes'] / max(rep['activations_lower_bound_bytes'], 1):.3f}x the bound); "
              f"workspaces {mib(rep['workspaces_bytes'])} / {mib(alone['workspaces_bytes'])} "
              f"({rep['functions_in_workspaces']} functions); constants {mib(rep['constants_in_file_bytes'])} in the "
              f"file, given to ACL in place {mib(rep['constants_shared_bytes'])}, copied "
              f"{mib(rep['constants_copied_bytes'])} (with copies only: {mib(alone['constants_copied_bytes'])})")
        for rt in RUNTIMES:
            r = rss[rt]
            print(f"  {rt:<16} resident: before {mib(r['before'])}, configured {mib(r['configured'])}, after inferences "
                  f"{mib(r['after'])}; the model's own: {mib(r['after'] - r['before'])} (of "
                  f"{', '.join(mib(v).strip() for v in r['own_samples'])}; configure {r['configure_s']:.1f} s)")
        ratio = rss["bridge"]["after"] / rss["armnn"]["after"]
        own = (rss["bridge"]["after"] - rss["bridge"]["before"]) / (rss["armnn"]["after"] - rss["armnn"]["before"])
        print(f"  resident after inferences, bridge / Arm NN: {ratio:.2f}x of the process, {own:.2f}x of what the model "
              f"added; inference with the plan {t['arena_ms']:.1f} ms vs "
              f"one buffer and workspace each {t['one_each_ms']:.1f} ms: paired ratio {t['ratio']:.3f}")
    return _write_json(args, results)


if __name__ == "__main__":
    sys.exit(main())
