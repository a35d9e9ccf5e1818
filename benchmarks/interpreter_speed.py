"""What ``acl_bridge.interpreter.Interpreter`` costs per inference over the runner under it, and
TFLite's own interpreter beside them:

    python benchmarks/interpreter_speed.py [--models face_detection_front,...] [--rounds 31]
                                           [--backend auto] [--threads 1] [--no-tflite] [--json FILE]

Per model, on one seeded-noise input written once into the input tensors:

* ``runner.run()``: :meth:`TfliteRunner.run` on what the input buffers hold (the base);
* ``invoke()``: :meth:`Interpreter.invoke` of the interpreter whose runner that is (the same
  buffers, the same functions: what the wrapper adds is all that differs);
* ``tflite invoke()``: TFLite's interpreter (ai-edge-litert, its default kernels, ``--threads``)
  on the same file and input, where it is installed and loads the model
  (:mod:`acl_bridge.models.oracles.tflite_oracle`; not under QEMU with ai-edge-litert 2.x).

Each contender's batch is ``calls`` inferences (chosen so that a runner batch takes about
5 ms); batches alternate in ``--rounds`` interleaved rounds in rotating order
(:mod:`acl_bridge.models.profiling.paired_timing`); the table gives each contender's median
time per inference and the median over rounds of its per-round ratio to the runner's, with its
min-max. The outputs of the interpreter and the runner are the same buffers; TFLite's are
compared first (float32 within the stated tolerance, int8 within ``--int8-steps``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from acl_bridge.interpreter import Interpreter  # noqa: E402
from acl_bridge.models.apps import fetch  # noqa: E402
from acl_bridge.models.profiling.paired_timing import interleaved  # noqa: E402

MODELS = ("face_detection_front", "face_landmark", "visual_wake_words", "keyword_spotting_alexa")


def noise(d: dict, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shape, dtype = tuple(int(v) for v in d["shape"]), np.dtype(d["dtype"])
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape).astype(dtype)


def tflite_contender(path, inputs, threads: int):
    """TFLite's interpreter on ``path`` with ``inputs`` set: (invoke, outputs by name), or
    (None, why) where it is not installed or cannot load the model here."""
    try:
        from acl_bridge.models.oracles.tflite_oracle import interpreter

        it, _ = interpreter(path, num_threads=threads)
    except ImportError as e:
        return None, str(e)
    for d, x in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], x)
    it.invoke()
    return it.invoke, {d["name"]: it.get_tensor(d["index"]) for d in it.get_output_details()}


def batch(call, calls: int):
    def run():
        for _ in range(calls):
            call()
    return run


def measure(name: str, backend: str, threads: int, rounds: int, with_tflite: bool, int8_steps: int) -> dict:
    path = fetch.model_path(name)
    it = Interpreter(model_path=str(path), num_threads=threads, backend=backend)
    it.allocate_tensors()
    inputs = [noise(d, k) for k, d in enumerate(it.get_input_details())]
    for d, x in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], x)
    runner = it.runner
    it.invoke()
    t0 = time.perf_counter()
    runner.run()
    once = time.perf_counter() - t0
    calls = max(1, int(0.005 / max(once, 1e-7)))
    contenders = {"runner.run()": batch(runner.run, calls), "invoke()": batch(it.invoke, calls)}
    row = {"model": name, "backend": runner.backend.name, "threads": threads, "calls_per_batch": calls,
           "rounds": rounds}
    if with_tflite:
        invoke, ref = tflite_contender(path, inputs, threads)
        if invoke is None:
            row["tflite"] = f"not run: {ref}"
        else:
            for d in it.get_output_details():
                got, want = it.get_tensor(d["index"]), ref[d["name"]]
                if want.dtype.kind == "f":
                    bound = 1e-4 + 1e-5 * float(np.abs(want).max())
                    assert np.abs(got - want).max() <= bound, (name, d["name"], np.abs(got - want).max())
                else:
                    assert np.abs(got.astype(np.int64) - want).max() <= int8_steps, (name, d["name"])
            contenders["tflite invoke()"] = batch(invoke, calls)
    times = interleaved(contenders, rounds, "runner.run()")
    row["ms_per_inference"] = {k: times.median_ms(k) / calls for k in contenders}
    row["ratio_to_runner"] = {k: {"median": times.ratio(k), "min": times.ratio_range(k)[0],
                                  "max": times.ratio_range(k)[1]} for k in contenders if k != "runner.run()"}
    return row


def text(row: dict) -> str:
    ms = row["ms_per_inference"]
    parts = [f"runner.run() {ms['runner.run()']:.3f} ms"]
    for k, r in row["ratio_to_runner"].items():
        parts.append(f"{k} {ms[k]:.3f} ms ({r['median']:.3f}x, {r['min']:.3f}-{r['max']:.3f})")
    extra = f"; tflite {row['tflite']}" if "tflite" in row else ""
    return (f"{row['model']:28s} {row['backend']:5s} {row['calls_per_batch']:4d} calls x {row['rounds']} rounds: "
            + "; ".join(parts) + extra)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--backend", default="auto", choices=("auto", "neon", "cl", "numpy"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-tflite", action="store_true", help="leave TFLite's interpreter out")
    ap.add_argument("--int8-steps", type=int, default=32, help="int8 output steps allowed between TFLite's default "
                    "kernels and the bridge (TFLite's default kernels are up to 28 steps from its reference ones)")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    rows = []
    for name in args.models.split(","):
        row = measure(name, args.backend, args.threads, args.rounds, not args.no_tflite, args.int8_steps)
        print(text(row), flush=True)
        rows.append(row)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
