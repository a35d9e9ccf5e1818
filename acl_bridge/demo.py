"""A small CNN three ways: ACL NEON functions on padded NdArrays (zero copy), Arm NN on
CpuAcc through pyarmnn, and a float64 numpy reference.

    acl-ndarray demo [--runs N] [--threads N] [--backend neon|cl] [--skip bridge|armnn] [--strict] [--seed N]

Network (NCHW, float32, deterministic weights, no files)::

    input 1x3x16x16
    conv1  3x3, 8 filters, pad 1, bias, ReLU     -> 1x8x16x16
    pool1  max 2x2 stride 2                      -> 1x8x8x8
    conv2  3x3, 16 filters, pad 1, bias, ReLU    -> 1x16x8x8
    gap    global average pool (avg 8x8)         -> 1x16x1x1
    fc     16 -> 10, bias (input viewed as 1x16) -> 1x10
    softmax                                      -> 1x10

Bridge path: every buffer is allocated up front with the padding the ACL functions reading
and writing it ask for (the union over all of them), so no function stages a copy: "bytes
copied: 0". Arm NN path: Arm NN tensors are dense, so the padded input NdArray is copied
into a dense buffer on every run, counted and reported; the output NdArray is written in
place. Exit status (the command line's rule, docs/cli.md): 0 every path that ran agrees with
numpy within tolerance (PASS); 1 a difference exceeds the tolerance (FAIL), or no path could
run here (SKIPPED: no native ACL module, no pyarmnn: nothing was compared), or an error; 2 bad
options. A path that cannot run while another does is reported as skipped and fails the run
only with --strict.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import statistics
import sys
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ndarray import NdArray, ShapeDescriptor
from ndarray.errors import AclNdarrayError, UnsupportedOptionError

from .emulation import emulated

# ---------------------------------------------------------------------------- the network
INPUT_SHAPE = (1, 3, 16, 16)
CONV1 = (8, 3, 3, 3)  # (out channels, in channels, kh, kw)
CONV2 = (16, 8, 3, 3)
FC = (10, 16)  # (out, in)
LAYERS = ("conv1", "pool1", "conv2", "gap", "fc", "softmax")
DESCRIPTION = ("input 1x3x16x16 -> conv3x3(8)+bias+relu -> maxpool 2x2/2 -> conv3x3(16)+bias+relu "
               "-> global avgpool -> fc(16->10)+bias -> softmax")

# Tolerance per layer: |ours - reference| <= ATOL + RTOL * max|reference| (float32 results
# against a float64 reference; ACL may use Winograd for 3x3 convolutions, which rounds
# differently from direct convolution, hence a relative 1e-4 rather than float32's 1e-7;
# measured differences are around 1e-7 relative on ACL 20.08 and 24.11).
ATOL = 1e-6
RTOL = 1e-4


def deterministic(shape: Sequence[int], salt: int, scale: float) -> np.ndarray:
    """float32 values in [-scale, scale), the same on every machine and numpy version.

    Integer hashing (Knuth's multiplicative constant, modulo 2**32) of the linear index
    and a salt: no random generator whose stream could change between numpy releases.
    """
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.uint64)
    h = (i * np.uint64(2654435761) + np.uint64(salt) * np.uint64(40503) + np.uint64(12345)) % np.uint64(2**32)
    h = (h ^ (h >> np.uint64(13))) * np.uint64(2246822519) % np.uint64(2**32)
    u = h.astype(np.float64) / 2.0**32  # [0, 1)
    return ((u * 2.0 - 1.0) * scale).astype(np.float32).reshape(tuple(shape))


@dataclass(frozen=True)
class Weights:
    conv1_w: np.ndarray
    conv1_b: np.ndarray
    conv2_w: np.ndarray
    conv2_b: np.ndarray
    fc_w: np.ndarray
    fc_b: np.ndarray


def make_weights(seed: int = 0) -> Weights:
    """Deterministic weights, scaled by 1/sqrt(fan_in) so activations stay around 1."""
    s = 100 * seed

    def fan(shape):
        return float(np.sqrt(3.0 / np.prod(shape[1:])))

    return Weights(
        conv1_w=deterministic(CONV1, s + 1, fan(CONV1)),
        conv1_b=deterministic((CONV1[0],), s + 2, 0.1),
        conv2_w=deterministic(CONV2, s + 3, fan(CONV2)),
        conv2_b=deterministic((CONV2[0],), s + 4, 0.1),
        fc_w=deterministic(FC, s + 5, 3 * fan(FC)),
        fc_b=deterministic((FC[0],), s + 6, 0.1),
    )


def make_input(seed: int = 0) -> np.ndarray:
    return deterministic(INPUT_SHAPE, 100 * seed + 7, 1.0)


# ---------------------------------------------------------------------------- numpy reference
def pad_hw(x: np.ndarray, pad: int) -> np.ndarray:
    """Zero padding of the last two axes (H, W) of an NCHW array."""
    return np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))


def conv2d_ref(x: np.ndarray, w: np.ndarray, b: Optional[np.ndarray], stride: int = 1, pad: int = 0) -> np.ndarray:
    """Convolution as ACL and Arm NN define it (cross-correlation), float64.

        out[n, o, i, j] = b[o] + sum_{c, ky, kx} xp[n, c, i*stride + ky, j*stride + kx] * w[o, c, ky, kx]

    with xp the zero-padded input: one explicit loop per output position, the window
    product summed by einsum over (c, ky, kx).
    """
    x = pad_hw(np.asarray(x, np.float64), pad)
    w = np.asarray(w, np.float64)
    n, c, h, wd = x.shape
    o, c2, kh, kw = w.shape
    assert c == c2, f"channels: input {x.shape}, weights {w.shape}"
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            window = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nckl,ockl->no", window, w)
    if b is not None:
        out += np.asarray(b, np.float64)[None, :, None, None]
    return out


def relu_ref(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def pool2d_ref(x: np.ndarray, kind: str, k: int, stride: int) -> np.ndarray:
    """Max or average pooling over k x k windows (no padding), float64."""
    x = np.asarray(x, np.float64)
    n, c, h, w = x.shape
    oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
    out = np.empty((n, c, oh, ow), np.float64)
    reduce = {"max": np.max, "avg": np.mean}[kind]
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = reduce(x[:, :, i * stride:i * stride + k, j * stride:j * stride + k], axis=(2, 3))
    return out


def fc_ref(x: np.ndarray, w: np.ndarray, b: Optional[np.ndarray]) -> np.ndarray:
    """y = x @ w.T + b with x (N, in), w (out, in)."""
    y = np.asarray(x, np.float64) @ np.asarray(w, np.float64).T
    return y if b is None else y + np.asarray(b, np.float64)


def softmax_ref(x: np.ndarray) -> np.ndarray:
    """Softmax over the last axis (shifted by the max for stability)."""
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def reference_forward(x: np.ndarray, w: Weights) -> "OrderedDict[str, np.ndarray]":
    """Every layer's output (float64), keyed by LAYERS."""
    out: "OrderedDict[str, np.ndarray]" = OrderedDict()
    out["conv1"] = relu_ref(conv2d_ref(x, w.conv1_w, w.conv1_b, 1, 1))
    out["pool1"] = pool2d_ref(out["conv1"], "max", 2, 2)
    out["conv2"] = relu_ref(conv2d_ref(out["pool1"], w.conv2_w, w.conv2_b, 1, 1))
    out["gap"] = pool2d_ref(out["conv2"], "avg", out["conv2"].shape[-1], 1)
    out["fc"] = fc_ref(out["gap"].reshape(out["gap"].shape[0], -1), w.fc_w, w.fc_b)
    out["softmax"] = softmax_ref(out["fc"])
    return out


def tolerance(ref: np.ndarray) -> float:
    return ATOL + RTOL * float(np.max(np.abs(ref)))


def max_diff(got, ref: np.ndarray) -> float:
    got = got.numpy() if isinstance(got, NdArray) else np.asarray(got)
    return float(np.max(np.abs(got.astype(np.float64).reshape(ref.shape) - ref)))


# ---------------------------------------------------------------------------- helpers
class DemoError(AclNdarrayError, RuntimeError):
    """A failure worth one line (what failed and why): exit 1."""


class Progress:
    """Numbered steps on stdout, flushed, with how long each took."""

    def __init__(self, total: int, out):
        self.total, self.n, self.out = total, 0, out

    def step(self, text: str):
        self.n += 1
        print(f"[{self.n}/{self.total}] {text} ...", file=self.out, flush=True)
        return _Timer(self.out)


class _Timer:
    def __init__(self, out):
        self.out = out

    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, exc_type, *rest):
        if exc_type is None:
            print(f"      done in {time.perf_counter() - self.t0:.2f} s", file=self.out, flush=True)


def timed_runs(fn, runs: int) -> Tuple[float, float, float]:
    """(median, min, max) seconds of ``runs`` calls of fn (after one warm-up call)."""
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times), max(times)


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


# ---------------------------------------------------------------------------- bridge path
@dataclass
class PathResult:
    name: str
    outputs: Dict[str, np.ndarray]  # layer -> result (copied out for comparison)
    bytes_copied: int
    copy_note: str
    timing: Tuple[float, float, float]


def _bridge_plan(w: Weights):
    """(buffers, layers): buffer name -> (shape, data or None); layers (name, class, roles, kwargs)."""
    from . import functions as F

    buffers = OrderedDict([
        ("x", (INPUT_SHAPE, None)), ("w1", (CONV1, w.conv1_w)), ("b1", ((CONV1[0],), w.conv1_b)),
        ("a1", ((1, 8, 16, 16), None)), ("p1", ((1, 8, 8, 8), None)),
        ("w2", (CONV2, w.conv2_w)), ("b2", ((CONV2[0],), w.conv2_b)), ("a2", ((1, 16, 8, 8), None)),
        ("g", ((1, 16, 1, 1), None)), ("wf", (FC, w.fc_w)), ("bf", ((FC[0],), w.fc_b)),
        ("f", ((1, 10), None)), ("y", ((1, 10), None)),
    ])
    layers = [
        ("conv1", F.Convolution, dict(src="x", weights="w1", bias="b1", dst="a1"),
         dict(stride=1, padding=1, activation="relu")),
        ("pool1", F.Pooling, dict(src="a1", dst="p1"), dict(pool_type="max", kernel=2, stride=2)),
        ("conv2", F.Convolution, dict(src="p1", weights="w2", bias="b2", dst="a2"),
         dict(stride=1, padding=1, activation="relu")),
        ("gap", F.Pooling, dict(src="a2", dst="g"), dict(pool_type="avg", kernel=8, stride=1)),
        ("fc", F.FullyConnected, dict(src="g:1x16", weights="wf", bias="bf", dst="f"), {}),
        ("softmax", F.Softmax, dict(src="f", dst="y"), {}),
    ]
    return buffers, layers


def _ref_shape(buffers_spec, ref: str) -> Tuple[int, ...]:
    """Shape of a buffer reference (see _view)."""
    name, _, shape = ref.partition(":")
    return tuple(int(v) for v in shape.split("x")) if shape else tuple(buffers_spec[name][0])


def _view(buffers: Dict[str, NdArray], ref: str) -> NdArray:
    """A buffer, or 'name:AxB' a reshaped view of it (the fc input is the gap output as 1x16)."""
    name, _, shape = ref.partition(":")
    a = buffers[name]
    if shape:
        a = a.reshape(*(int(v) for v in shape.split("x")))
    return a


def run_bridge(x: np.ndarray, w: Weights, runs: int, progress: Progress, out, threads: Optional[int],
               x_nd: Optional[NdArray] = None, backend: str = "neon") -> PathResult:
    """The network on ACL's NEON (or, ``backend="cl"``, OpenCL) functions; ``x_nd``
    (optional) is the input as a padded NdArray."""
    from . import functions as F
    from .mapping import PaddingSize, tensor_info
    from .native import native_available, num_threads, set_num_threads
    from .schedule import Schedule

    ok, why = native_available()
    if not ok:
        raise _Skip(why)
    from .native import require_native

    lib = require_native()[1]
    if backend == "neon" and not lib.acl_shim_neon_available():
        raise _Skip("this ACL has no NE functions (Debian's amd64 ACL is the OpenCL backend alone): --backend cl")
    if backend == "cl" and not lib.acl_shim_cl_available():
        raise _Skip("this acl_bridge was built without ACL's OpenCL backend")
    if threads is not None:
        set_num_threads(threads)
    print(f"ACL scheduler threads: {num_threads()}" + ("" if threads is not None else " (ACL's default)"), file=out)
    buffers_spec, layers = _bridge_plan(w)

    # 1. negotiation: ask each function (a plain query, nothing is configured) for the
    #    padding it needs per tensor; a buffer gets the union over its users.
    with progress.step("bridge: asking each ACL function for the padding it needs"):
        need: Dict[str, PaddingSize] = {name: PaddingSize() for name in buffers_spec}
        for lname, cls, roles, kw in layers:
            specs = {role: ShapeDescriptor.create(_ref_shape(buffers_spec, ref), np.float32) for role, ref in roles.items()}
            asked = cls.required_padding(**specs, backend=backend, **kw)
            for role, ref in roles.items():
                base = ref.partition(":")[0]
                need[base] = need[base].union(asked[role])

    # 2. allocate every buffer once, with that padding, and fill inputs and weights. The
    #    input is the caller's padded NdArray when it offers what conv1 asks for (ACL reads
    #    it in place); every other buffer is the bridge's own (padded_empty), so ACL may
    #    write into its padding and nothing is staged, on 20.08 too.
    buffers: Dict[str, NdArray] = {}
    for name, (shape, data) in buffers_spec.items():
        if name == "x" and x_nd is not None and tensor_info(x_nd).padding.covers(need["x"]):
            buffers[name] = x_nd
            continue
        a = F.AclFunction.padded_empty(shape, np.float32, need[name])
        a.numpy()[...] = x if name == "x" else (data if data is not None else 0)
        buffers[name] = a

    # 3. configure for real: no copy allowed (allow_copy=False raises instead of staging),
    #    then one schedule: an inference is one call into the native layer.
    fns = []
    with progress.step("bridge: configuring 6 ACL functions on the padded buffers (allow_copy=False)"):
        for lname, cls, roles, kw in layers:
            try:
                fn = cls(**{role: _view(buffers, ref) for role, ref in roles.items()}, allow_copy=False,
                         backend=backend, **kw)
            except Exception as e:
                raise DemoError(f"bridge: configuring {lname} ({cls.__name__}): {type(e).__name__}: {e}") from e
            fns.append((lname, cls, roles, fn))
        schedule = Schedule([fn for _, _, _, fn in fns])

    print("bridge layers (NdArray descriptor | ACL TensorInfo | padding ACL asked for):", file=out)
    for lname, cls, roles, fn in fns:
        print(f"  {lname}: {cls.__name__}", file=out)
        for role, ref in roles.items():
            t = fn.tensors[role]
            print(f"    {role:<8} {ref:<7} {_view(buffers, ref).descriptor!r}", file=out)
            print(f"    {'':<16} {t.info!r}  asked {fn.padding[role]!r}", file=out)

    print(f"bridge schedule: {len(schedule)} functions, {schedule.native_calls_per_run} native call(s) per inference",
          file=out)
    infer = schedule.run

    with progress.step(f"bridge: 1 warm-up + {runs} timed inferences"):
        timing = timed_runs(infer, runs)
    staged = [(lname, fn.staged) for lname, _, _, fn in fns if fn.staged]
    copies = sum(fn.copy_count for _, _, _, fn in fns)
    bytes_copied = sum(_view(buffers, roles[r]).numpy().nbytes * (runs + 1)
                       for _, _, roles, fn in fns for r in fn.staged)
    note = "nothing staged" if not staged else f"staged: {staged}, {copies} copies"
    outputs = {lname: _view(buffers, roles["dst"]).numpy().copy() for lname, _, roles, _ in fns}
    for _, _, _, fn in fns:
        fn.close()
    from .native import acl_version

    where = "NEON" if backend == "neon" else "OpenCL"
    return PathResult(f"bridge (ACL {acl_version()} {where} functions, padded NdArrays)", outputs, bytes_copied,
                      note, timing)


# ---------------------------------------------------------------------------- Arm NN path
def run_armnn(x_nd: NdArray, w: Weights, runs: int, progress: Progress, out) -> PathResult:
    from . import armnn

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ok, why = armnn.armnn_available()
    if not ok:
        raise _Skip(why)
    with progress.step("armnn: describing the network in Python, optimizing for CpuAcc, loading"):
        for note in armnn.import_notes():  # printed to stdout by pyarmnn itself; captured instead
            print(f"      pyarmnn {armnn.armnn_version()} said at import: {note}", file=out)
        net = armnn.Network()
        t = net.input(INPUT_SHAPE, name="input")
        t = net.activation(net.conv2d(t, w.conv1_w, w.conv1_b, stride=1, padding=1, name="conv1"), "relu",
                           name="relu1")
        t = net.pool2d(t, "max", 2, 2, name="pool1")
        t = net.activation(net.conv2d(t, w.conv2_w, w.conv2_b, stride=1, padding=1, name="conv2"), "relu",
                           name="relu2")
        t = net.pool2d(t, "avg", t.shape[-1], 1, name="gap")
        t = net.reshape(t, (1, FC[1]), name="flatten")
        t = net.fully_connected(t, w.fc_w, w.fc_b, name="fc")
        t = net.softmax(t, name="softmax")
        net.output(t, name="output")
        compiled = net.compile(("CpuAcc",))
    print(f"armnn layers ({armnn.armnn_available()[1]}, backend CpuAcc):", file=out)
    for name, what, info in net.layers:
        print(f"  {name:<8} {what:<48} -> {info}", file=out)
    y = NdArray.empty((1, FC[0]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", armnn.ArmnnCopyWarning)
        binding = compiled.bind([x_nd], [y])
    for wmsg in caught:
        print(f"  {wmsg.category.__name__}: {wmsg.message}", file=out)
    with progress.step(f"armnn: 1 warm-up + {runs} timed inferences"):
        timing = timed_runs(binding.run, runs)
    note = ("nothing staged" if not binding.staged else
            f"{binding.bytes_per_run} bytes per run for {', '.join(binding.staged)} (Arm NN tensors are dense)")
    return PathResult(f"armnn (pyarmnn {armnn.armnn_version()}, CpuAcc)", {"softmax": y.numpy().copy()},
                      binding.bytes_copied, note, timing)


class _Skip(Exception):
    pass


# ---------------------------------------------------------------------------- main
def _int_from(minimum: int):
    """An argparse type: an integer >= ``minimum`` (argparse names the option in its error)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is not a positive integer" if minimum == 1 else
                                             f"{value} is negative, expected 0 or more")
        return value
    return parse


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The demo's options, on the command line's ``demo`` subparser (``acl-ndarray demo``)."""
    p.add_argument("--runs", type=_int_from(1), default=5, help="timed inferences per path (median reported; default 5)")
    p.add_argument("--threads", type=_int_from(1), default=None, help="ACL NEON scheduler threads (default: ACL's)")
    p.add_argument("--backend", choices=("neon", "cl"), default="neon",
                   help="where the bridge path runs: ACL's NEON or OpenCL functions (docs/opencl.md; software "
                        "OpenCL devices need ACL_NDARRAY_CL_LAYER=1)")
    p.add_argument("--skip", action="append", choices=("bridge", "armnn"), default=[], help="leave a path out")
    p.add_argument("--strict", action="store_true", help="a path that cannot run here is an error")
    p.add_argument("--seed", type=_int_from(0), default=0, help="weights/input variant (default 0)")


def execute(ns, out) -> int:
    """Run the demo with the options :func:`add_arguments` parsed; the exit status (the
    module's rule). Errors are raised (DemoError, UnsupportedOptionError), for the command
    line to print as one line."""
    if {"bridge", "armnn"} <= set(ns.skip):
        raise UnsupportedOptionError("--skip bridge --skip armnn leaves no path to compare with numpy")
    return _main(ns, out)


def _main(ns, out) -> int:
    emu = emulated()
    print("acl_bridge demo: a small CNN through ACL NEON functions (zero copy), Arm NN (CpuAcc) and numpy", file=out)
    print(f"network: {DESCRIPTION}", file=out)
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}"
          + (f"; running under {emu}: timings are 20-30x slower than native" if emu else ""), file=out)
    progress = Progress(1 + (0 if "bridge" in ns.skip else 3) + (0 if "armnn" in ns.skip else 2), out)

    w = make_weights(ns.seed)
    x = make_input(ns.seed)
    with progress.step("numpy reference (float64, explicit loops)"):
        ref = reference_forward(x, w)
    print(f"reference output: {np.array2string(ref['softmax'][0], precision=4, max_line_width=200)}", file=out)

    results: List[Tuple[str, object]] = []
    # One input NdArray for both paths, padded the way ACL's auto_padding lays tensors out
    # (4 elements around the x-y plane, 36 on the right): ACL reads it in place; Arm NN's
    # tensors are dense, so that path copies it (counted, reported).
    x_nd = _padded_input(x)
    print(f"input: {x_nd.descriptor!r}", file=out)
    if "bridge" not in ns.skip:
        try:
            r = run_bridge(x, w, ns.runs, progress, out, ns.threads, x_nd, ns.backend)
            results.append(("bridge", r))
        except _Skip as e:
            results.append(("bridge", f"skipped: native ACL layer not available ({e})"))
    if "armnn" not in ns.skip:
        try:
            results.append(("armnn", run_armnn(x_nd, w, ns.runs, progress, out)))
        except _Skip as e:
            results.append(("armnn", f"skipped: {e}"))

    print("", file=out)
    print(f"tolerance per layer: |diff| <= {ATOL:g} + {RTOL:g} * max|reference|", file=out)
    failed = skipped = False
    for key, r in results:
        if isinstance(r, str):
            print(f"{key} path: {r}", file=out)
            skipped = True
            continue
        print(f"{key} path: {r.name}", file=out)
        print(f"  bytes copied: {r.bytes_copied} ({r.copy_note})", file=out)
        for layer, got in r.outputs.items():
            d, tol = max_diff(got, ref[layer]), tolerance(ref[layer])
            ok = d <= tol
            failed |= not ok
            print(f"  {layer:<8} max |diff| vs numpy {d:.3e}  (tolerance {tol:.3e})  {'ok' if ok else 'EXCEEDED'}",
                  file=out)
        med, lo, hi = r.timing
        print(f"  time per inference: median {fmt_ms(med)} over {ns.runs} runs (min {fmt_ms(lo)}, max {fmt_ms(hi)})"
              + (" under emulation" if emu else ""), file=out)
    if failed:
        print("result: FAIL (a difference exceeds its tolerance)", file=out)
        return 1
    if skipped and ns.strict:
        raise DemoError("a path was skipped and --strict was given")
    if all(isinstance(r, str) for _, r in results):
        print("result: SKIPPED (no path could run here: nothing was compared with numpy)", file=out)
        return 1
    print("result: PASS" + (" (some paths skipped)" if skipped else ""), file=out)
    return 0


def _padded_input(x: np.ndarray) -> NdArray:
    """The input in a padded buffer as ACL lays one out (4 on every side, 36 on the right)."""
    from .mapping import auto_padding

    d = auto_padding(x.shape, np.float32)
    a = NdArray.allocate(d)
    a.numpy()[...] = x
    return a


if __name__ == "__main__":  # python3 -m acl_bridge.demo: the same as `acl-ndarray demo` (the CLI's parser and errors)
    sys.exit(importlib.import_module("acl_bridge.cli").main(["demo", *sys.argv[1:]]))
