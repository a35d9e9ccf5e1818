"""The one benchmark command: every ratio the README quotes, measured in one process run.

Sections (all one ACL thread unless said; medians of repeated batches):

* ``overhead``: the bridge's ``run()`` against C++ calling the same ACL function in a loop
  (benchmarks/acl_loop.cpp, compiled here, in the image, against the same ACL, and loaded
  into this process; bridge and C++ batches alternate and the ratio is the median of the
  pairs' ratios): relu 1x8x8x8 (per-call overhead dominates), relu 1x32x56x56 and conv 3x3
  1x16x32x32. For the small relu, also what its cost is made of: the same native function
  called from C by the shim (no Python), by run() forced to release the GIL, and by a bare
  cffi call;
* ``schedule``: a chain of 16 small relu functions on 17 buffers run by 16 ``run()`` calls,
  by one :class:`acl_bridge.Schedule` (one native call), and by C++ running the same chain
  of 16 ACL functions: the schedule's overhead per function;
* ``armnn``: the same relu / conv through pyarmnn on CpuAcc, and numpy, on the same inputs;
* ``kinds``: every function kind (NCHW and NHWC) on negotiated, bridge-owned buffers: bytes
  copied per run (expected 0) and the time with 2 ACL threads over 1 thread;
* ``elements`` (no ACL needed: runs on any machine): reading and writing one element of an
  NdArray against numpy's ``x[1, 2]`` on the same memory (benchmarks/element_access.py)::

      python benchmarks/bench.py --sections elements

* ``models`` (not in the default list: minutes under emulation; benchmarks/model_speed.py): every
  cached TFLite model on the bridge's runner, Arm NN's TfLite parser on CpuAcc and TFLite's
  interpreter in this process: configure time, time to the first result, then ``--rounds``
  rounds in rotating order, per-inference medians and the paired ratios bridge / each, at
  each ``--threads`` setting (1, and 0 = each runtime's default), with what each runtime says
  of its threads; and keyword_spotting_alexa int8 / its float32 twin on the bridge. A
  contender that refuses a model is reported with its message; the others carry on (without
  ACL, the bridge and Arm NN are refused and the interpreter still runs)::

      python benchmarks/bench.py --sections models --models face_detection_front --rounds 3

Under QEMU absolute times mean little (20-30x slower than a device); ratios from one run do.
Prints a table; ``--json FILE`` writes the numbers. Run it in the emulated image::

    ./docker/emulate.sh run trixie -- python3 benchmarks/bench.py --json /tmp/bench.json
    ./docker/emulate.sh run bookworm -- python3 benchmarks/bench.py
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from typing import Callable, Dict, List

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
try:
    import acl_bridge  # noqa: F401  (the installed package, with its native module)
except ImportError:  # a source tree without installing: use the tree
    sys.path.insert(0, os.path.dirname(HERE))

import element_access  # noqa: E402
import model_speed  # noqa: E402
from kinds import kind_calls  # noqa: E402

#: Sections that run without the native ACL layer (models: the bridge and Arm NN refused).
HOST_SECTIONS = {"elements", "models"}


def _batch_ns(fn: Callable[[], object], iterations: int) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(iterations):
        fn()
    return (time.perf_counter_ns() - t0) / iterations


class CppLoop:
    """benchmarks/acl_loop.cpp compiled against this machine's ACL (cached by source and ACL
    version) and loaded into this process: the baseline shares ACL, its scheduler and the
    thread setting with the bridge, and its batches interleave with the bridge's."""

    _CDEF = """
        typedef struct acl_loop acl_loop;
        acl_loop *acl_loop_create(const char *kind, unsigned n, unsigned c, unsigned h, unsigned w,
                                  unsigned count);
        double acl_loop_batch_ns(acl_loop *loop, int iterations);
        void acl_loop_destroy(acl_loop *loop);
    """

    def __init__(self):
        import cffi

        from acl_bridge.native import acl_version

        src = os.path.join(HERE, "acl_loop.cpp")
        with open(src, "rb") as f:
            key = hashlib.sha256(f.read() + acl_version().encode()).hexdigest()[:12]
        so = os.path.join(tempfile.gettempdir(), f"libacl_loop-{key}.so")
        if not os.path.exists(so):
            libs = ["-larm_compute"]
            if any(os.path.exists(os.path.join(d, "libarm_compute_core.so"))
                   for d in ("/usr/lib/aarch64-linux-gnu", "/usr/lib", "/usr/local/lib")):
                libs.append("-larm_compute_core")  # ACL 20.08
            t0 = time.perf_counter()
            subprocess.run(["g++", "-O2", "-std=c++14", "-shared", "-fPIC", src, "-o", so + ".tmp", *libs], check=True)
            os.replace(so + ".tmp", so)
            print(f"(built the C++ loop in {time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        self.ffi = cffi.FFI()
        self.ffi.cdef(self._CDEF)
        self.lib = self.ffi.dlopen(so)

    def function(self, kind: str, shape, count: int = 1):
        """``count`` configured C++ functions chained over count+1 tensors; returns
        batch_ns(iterations): the time per run of the chain over one batch."""
        handle = self.lib.acl_loop_create(kind.encode(), *shape, count)
        if handle == self.ffi.NULL:
            raise RuntimeError(f"acl_loop_create({kind!r}, {shape}, {count}) failed")
        handle = self.ffi.gc(handle, self.lib.acl_loop_destroy)
        lib = self.lib
        return lambda iterations: lib.acl_loop_batch_ns(handle, iterations)


def interleaved_samples(contenders: Dict[str, Callable[[int], float]], iterations: int,
                        repeats: int) -> Dict[str, List[float]]:
    """Time per call of each contender (``batch_ns(iterations)`` -> ns per call) in each of
    ``repeats`` rounds; the contenders' batches take turns within a round, so all of them see
    the same machine load."""
    for batch_ns in contenders.values():
        batch_ns(3)  # warm up
    samples: Dict[str, List[float]] = {name: [] for name in contenders}
    for _ in range(repeats):
        for name, batch_ns in contenders.items():
            samples[name].append(batch_ns(iterations))
    return samples


def paired_ratio(samples: Dict[str, List[float]], name: str, base: str) -> float:
    """Median over rounds of name's time / base's time in the same round: the machine's drift
    between rounds (large on a shared VM under QEMU) cancels within each pair."""
    return statistics.median(a / b for a, b in zip(samples[name], samples[base]))


def python_batch(fn: Callable[[], object]) -> Callable[[int], float]:
    return lambda iterations: _batch_ns(fn, iterations)


def bridge_function(cls_name: str, inputs: Dict[str, np.ndarray], outputs, **kwargs):
    """A function on negotiated, bridge-owned buffers (as a user who follows the README would)."""
    from acl_bridge import functions as F
    from acl_bridge.families import function_class
    from ndarray import ShapeDescriptor

    cls = function_class(cls_name)
    specs = {r: None if v is None else ShapeDescriptor.create(v.shape, v.dtype) for r, v in inputs.items()}
    specs.update({r: ShapeDescriptor.create(*s) for r, s in outputs.items()})
    pads = cls.required_padding(**specs, **kwargs)
    arrays = {r: None if d is None else F.AclFunction.padded_empty(d.shape, d.dtype, pads[r])
              for r, d in specs.items()}
    for r, v in inputs.items():
        if v is not None:
            arrays[r].numpy()[...] = v
    return cls(**arrays, **kwargs), arrays


def section_overhead(cpp, args, results):
    rows = []
    x_small = np.linspace(-1, 1, 8 * 8 * 8, dtype=np.float32).reshape(1, 8, 8, 8)
    x_big = np.linspace(-1, 1, 32 * 56 * 56, dtype=np.float32).reshape(1, 32, 56, 56)
    x_conv = np.linspace(-1, 1, 16 * 32 * 32, dtype=np.float32).reshape(1, 16, 32, 32)
    w_conv = np.full((16, 16, 3, 3), 0.01, np.float32)
    b_conv = np.full((16,), 0.1, np.float32)
    cases = [
        ("relu 1x8x8x8", "relu", x_small, lambda: bridge_function("Activation", {"src": x_small},
                                                                  {"dst": (x_small.shape, "float32")}), 400),
        ("relu 1x32x56x56", "relu", x_big, lambda: bridge_function("Activation", {"src": x_big},
                                                                   {"dst": (x_big.shape, "float32")}), 10),
        ("conv3x3 1x16x32x32", "conv", x_conv, lambda: bridge_function(
            "Convolution", {"src": x_conv, "weights": w_conv, "bias": b_conv}, {"dst": (x_conv.shape, "float32")},
            padding=1), 3),
    ]
    for name, kind, x, make, iterations in cases:
        f, _ = make()
        contenders = {"cpp": cpp.function(kind, x.shape), "bridge": python_batch(f.run)}
        if kind == "relu" and x.size <= 4096:  # where the per-call cost dominates: what it is made of
            contenders.update(_overhead_parts(f))
        samples = interleaved_samples(contenders, iterations, args.repeats)
        ns = {k: statistics.median(v) for k, v in samples.items()}
        row = dict(case=name, bridge_us=ns["bridge"] / 1e3, cpp_us=ns["cpp"] / 1e3,
                   ratio=paired_ratio(samples, "bridge", "cpp"), overhead_us=(ns["bridge"] - ns["cpp"]) / 1e3,
                   gil_held=not f.releases_gil, copies_per_run=f.plan.copies_per_run)
        for part in samples:
            if part not in ("cpp", "bridge"):
                row[f"{part}_ratio"] = paired_ratio(samples, part, "cpp")
        rows.append(row)
        f.close()
    results["overhead"] = rows
    print("\n== per-call overhead: bridge run() vs the C++ loop (1 thread; ratios: median of paired batches)")
    print(f"{'case':<20} {'bridge':>10} {'C++ loop':>10} {'ratio':>7} {'overhead':>10} {'GIL':>9} {'copies':>7}")
    for r in rows:
        print(f"{r['case']:<20} {r['bridge_us']:>8.1f}us {r['cpp_us']:>8.1f}us {r['ratio']:>6.2f}x "
              f"{r['overhead_us']:>8.1f}us {'kept' if r['gil_held'] else 'released':>9} {r['copies_per_run']:>7}")
    for r in rows:
        parts = [(k[:-len("_ratio")], v) for k, v in r.items() if k.endswith("_ratio")]
        if parts:
            print(f"{r['case']}, the same handle, each vs the C++ loop: "
                  + ", ".join(f"{PARTS[k]} {v:.2f}x" for k, v in parts))


# What a run's per-call cost is made of (section_overhead, small relu): the same native
# function called by each of these, interleaved with the C++ loop.
PARTS = {
    "shim_loop": "the shim called from C (no Python)",
    "gil_released": "run() releasing the GIL",
    "cffi": "the bare cffi call",
}


def _c_loop(f, n: int = 400) -> Callable[[int], float]:
    """batch_ns of f's native function run n times in a row by the shim's C++ loop (one cffi
    call, no Python between runs): what a C++ program calling ACL's run() costs."""
    from acl_bridge.native import require_native

    ffi, lib = require_native()
    handles = ffi.new("acl_shim_function *[]", [f._configured.handle] * n)  # the same function n times
    failed = ffi.new("int32_t *")
    schedule_run = lib.acl_shim_schedule_run

    def shim_loop(iterations: int) -> float:
        rounds = max(1, iterations // n)
        t0 = time.perf_counter_ns()
        for _ in range(rounds):
            schedule_run(handles, n, failed)
        return (time.perf_counter_ns() - t0) / (rounds * n)
    return shim_loop


def _overhead_parts(f) -> Dict[str, Callable[[int], float]]:
    from acl_bridge.native import NativeRun, arm, require_native

    ffi, lib = require_native()
    handle = f._configured.handle
    released = NativeRun()  # the same function, run from C with the GIL released
    arm(released, "acl_shim_function_run", handle, release_gil=True)
    native_run = lib.acl_shim_function_run
    return {"shim_loop": _c_loop(f), "gil_released": python_batch(released.run),
            "cffi": python_batch(functools.partial(native_run, handle))}


def section_schedule(cpp, args, results, n=16):
    from acl_bridge import Schedule
    from acl_bridge import functions as F
    from ndarray import ShapeDescriptor

    shape = (1, 8, 8, 8)
    d = ShapeDescriptor.create(shape, "float32")
    pad = F.Activation.required_padding(d, d, "relu")
    bufs = [F.AclFunction.padded_empty(shape, "float32", pad["src"].union(pad["dst"])) for _ in range(n + 1)]
    bufs[0].numpy()[...] = np.linspace(-1, 1, 512, dtype=np.float32).reshape(shape)
    fns = [F.Activation(bufs[i], bufs[i + 1], "relu") for i in range(n)]
    schedule = Schedule(fns)

    def each():
        for f in fns:
            f.run()

    iterations = 40
    samples = interleaved_samples({"each": python_batch(each), "schedule": python_batch(schedule.run),
                                   "cpp": cpp.function("relu", shape, count=n)},  # the same chain in C++
                                  iterations, args.repeats)
    ns_each, ns_sched, ns_cpp = (statistics.median(samples[k]) for k in ("each", "schedule", "cpp"))
    row = dict(functions=n, native_calls_per_run=schedule.native_calls_per_run, run_each_us=ns_each / 1e3,
               schedule_us=ns_sched / 1e3, cpp_us=ns_cpp / 1e3,
               schedule_over_cpp=paired_ratio(samples, "schedule", "cpp"),
               run_each_over_cpp=paired_ratio(samples, "each", "cpp"),
               overhead_per_function_us=(ns_sched - ns_cpp) / n / 1e3)
    results["schedule"] = row
    print(f"\n== schedule: {n} relu 1x8x8x8 functions (1 thread)")
    print(f"run() each {row['run_each_us']:.1f}us ({row['run_each_over_cpp']:.2f}x C++), schedule {row['schedule_us']:.1f}us "
          f"({row['schedule_over_cpp']:.2f}x C++, {row['native_calls_per_run']} native call), C++ loop {row['cpp_us']:.1f}us; "
          f"schedule overhead per function {row['overhead_per_function_us']:.2f}us")
    for f in fns:
        f.close()


def section_armnn(args, results):
    from acl_bridge import armnn
    from ndarray import NdArray

    ok, why = armnn.armnn_available()
    rows = []
    x = np.linspace(-1, 1, 16 * 32 * 32, dtype=np.float32).reshape(1, 16, 32, 32)
    w = np.full((16, 16, 3, 3), 0.01, np.float32)
    b = np.full((16,), 0.1, np.float32)
    f_relu, _ = bridge_function("Activation", {"src": x}, {"dst": (x.shape, "float32")})
    f_conv, _ = bridge_function("Convolution", {"src": x, "weights": w, "bias": b}, {"dst": (x.shape, "float32")},
                                padding=1)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    numpy_conv = lambda: np.einsum("nchwij,ocij->nohw",  # noqa: E731
                                   np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3)), w, optimize=True)
    for name, f, build, ref, iterations in (
            ("relu 1x16x32x32", f_relu, lambda net, i: net.activation(i, "relu"), lambda: np.maximum(x, 0), 20),
            ("conv3x3 1x16x32x32", f_conv, lambda net, i: net.conv2d(i, w, b, padding=1), numpy_conv, 3)):
        contenders = {"bridge": python_batch(f.run), "numpy": python_batch(ref)}
        if ok:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                net = armnn.Network()
                node = net.input(x.shape)
                net.output(build(net, node))
                binding = net.compile().bind([NdArray.from_numpy(x)])
            contenders["armnn"] = python_batch(binding.run)
        samples = interleaved_samples(contenders, iterations, args.repeats)
        m = {k: statistics.median(v) for k, v in samples.items()}
        row = dict(case=name, bridge_us=m["bridge"] / 1e3, numpy_us=m["numpy"] / 1e3,
                   numpy_over_bridge=paired_ratio(samples, "numpy", "bridge"))
        if ok:
            row.update(armnn_us=m["armnn"] / 1e3, bridge_over_armnn=paired_ratio(samples, "bridge", "armnn"))
        rows.append(row)
    results["armnn"] = dict(available=ok, note=why, rows=rows)
    print(f"\n== bridge vs Arm NN CpuAcc ({why}) and numpy, same inputs (1 ACL thread)")
    print(f"{'case':<20} {'bridge':>10} {'Arm NN':>10} {'numpy':>10} {'bridge/ArmNN':>13} {'numpy/bridge':>13}")
    for r in rows:
        arm = f"{r['armnn_us']:>8.0f}us" if "armnn_us" in r else f"{'-':>10}"
        ratio = f"{r['bridge_over_armnn']:>12.2f}x" if "armnn_us" in r else f"{'-':>13}"
        print(f"{r['case']:<20} {r['bridge_us']:>8.0f}us {arm} {r['numpy_us']:>8.0f}us {ratio} {r['numpy_over_bridge']:>12.2f}x")


def _with_threads(n: int, batch_ns: Callable[[int], float]) -> Callable[[int], float]:
    """batch_ns with n ACL threads (set before the batch, outside its timing)."""
    from acl_bridge import native

    def run(iterations: int) -> float:
        native.set_num_threads(n)
        return batch_ns(iterations)
    return run


def section_kinds(args, results):
    from acl_bridge import native

    rows: List[dict] = []
    wanted = [w for w in args.kinds.split(",") if w]
    for call in kind_calls():
        if wanted and not any(w in call.name for w in wanted):
            continue
        f, arrays = bridge_function(call.cls_name, call.inputs, call.outputs, **call.kwargs)
        bytes_per_run = sum(arrays[r].numpy().nbytes for r in f.staged)
        # run() at 1 and 2 ACL threads, and the C++ loop over the same function at 1 thread
        contenders = {str(n): _with_threads(n, python_batch(f.run)) for n in (1, 2)}
        contenders["c_loop"] = _with_threads(1, _c_loop(f, 20))
        samples = interleaved_samples(contenders, 20, args.repeats)
        rows.append(dict(kind=call.name, staged=list(f.staged), bytes_copied_per_run=bytes_per_run,
                         one_thread_us=statistics.median(samples["1"]) / 1e3,
                         two_threads_us=statistics.median(samples["2"]) / 1e3,
                         c_loop_us=statistics.median(samples["c_loop"]) / 1e3,
                         two_over_one=paired_ratio(samples, "2", "1"),
                         run_over_c_loop=paired_ratio(samples, "1", "c_loop")))
        f.close()
    native.set_num_threads(1)
    results["kinds"] = rows
    print("\n== every kind on negotiated bridge-owned buffers: bytes copied per run; 2 threads / 1 thread;"
          " run() / the C++ loop over the same function (1 thread)")
    print(f"{'kind':<28} {'copied':>8} {'1 thread':>10} {'2 threads':>10} {'2/1':>6} {'C++ loop':>10} {'run/C++':>8}")
    for r in rows:
        print(f"{r['kind']:<28} {r['bytes_copied_per_run']:>7}B {r['one_thread_us']:>8.0f}us "
              f"{r['two_threads_us']:>8.0f}us {r['two_over_one']:>5.2f}x {r['c_loop_us']:>8.0f}us "
              f"{r['run_over_c_loop']:>7.2f}x")


def section_elements(args, results):
    names = element_access.namespace()
    rows: List[dict] = []
    for case in element_access.CASES:
        samples = interleaved_samples({"numpy": element_access.batch_ns(case.numpy_statement, names),
                                       "ndarray": element_access.batch_ns(case.ndarray_statement, names)},
                                      case.iterations, args.repeats)
        rows.append(dict(case=case.name, numpy_ns=statistics.median(samples["numpy"]),
                         ndarray_ns=statistics.median(samples["ndarray"]),
                         ratio=paired_ratio(samples, "ndarray", "numpy")))
    results["elements"] = rows
    print("\n== element access: NdArray against numpy on the same memory (ratio: median of paired batches)")
    print(f"{'case':<24} {'numpy':>10} {'NdArray':>10} {'ratio':>8}")
    for r in rows:
        print(f"{r['case']:<24} {r['numpy_ns']:>8.0f}ns {r['ndarray_ns']:>8.0f}ns {r['ratio']:>7.2f}x")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=9, help="batches per measurement (median)")
    parser.add_argument("--kinds", default="", help="kinds section: only the calls whose name contains one of "
                        "these comma-separated words (default: every kind)")
    parser.add_argument("--json", help="also write the numbers to this file")
    parser.add_argument("--sections", default="overhead,schedule,armnn,kinds,elements",
                        help="comma-separated; also: models (not in the default)")
    model_speed.add_arguments(parser)
    args = parser.parse_args(argv)
    sections = args.sections.split(",")
    from acl_bridge import native

    ok, reason = native.native_available()
    if set(sections) <= HOST_SECTIONS and not ok:  # nothing native: no ACL needed
        results: Dict[str, object] = dict(repeats=args.repeats)
        print(f"host sections {sections} (no native ACL layer: {reason}); median of {args.repeats}")
        if "elements" in sections:
            section_elements(args, results)
        if "models" in sections:
            model_speed.section_models(args, results)
        return _write_json(args, results)
    if not ok:
        print(f"needs the native ACL layer: {reason} (--sections elements,models run without it)", file=sys.stderr)
        return 2
    native.set_num_threads(1)
    report = native.cpu_report()
    results = dict(acl=native.acl_version(), cpu=str(report), qemu_cpu=os.environ.get("QEMU_CPU", ""),
                   repeats=args.repeats)
    print(f"ACL {native.acl_version()}; {report}; QEMU_CPU={results['qemu_cpu'] or '-'}; median of {args.repeats}")
    cpp = CppLoop() if {"overhead", "schedule"} & set(sections) else None
    if "overhead" in sections:
        section_overhead(cpp, args, results)
    if "schedule" in sections:
        section_schedule(cpp, args, results)
    if "armnn" in sections:  # one ACL thread for Arm NN too: it runs on this process's ACL scheduler
        section_armnn(args, results)
    if "kinds" in sections:
        section_kinds(args, results)
    if "elements" in sections:
        section_elements(args, results)
    if "models" in sections:  # sets the threads it measures at, and one thread again after
        model_speed.section_models(args, results)
    return _write_json(args, results)


def _write_json(args, results) -> int:
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
