"""Guard-byte fuzzing of every ACL function (issue 6, part 4).

Each case draws, from its own seed, a function, shapes, a data layout and, for every tensor,
a memory layout: dense, a padded buffer (random paddings and padding offsets), or a view of
a padded parent (step slices, negative steps, an innermost step, permuted outer axes, a
stride-0 broadcast for inputs), at a random itemsize-aligned start. Every allocation sits in
an arena of CANARY bytes (GUARD bytes before and after it; its padding cells are canaries too).

After the call, every case must end with
* every canary intact: guard zones, padding cells, and every byte of every input;
* either the output equal to the numpy oracle (exact for data movement, tolerance for
  arithmetic), or a clean exception (ndarray.LayoutError or acl_bridge AclError) with the
  output untouched as well.

Exactly ``FUZZ_CASES`` cases, seeds ``FUZZ_SEED`` onwards (both from the environment; fewer
under the "emulated" hypothesis profile): the same cases on every machine, however slow (no
clock decides how many ran; the subprocess timeout only catches a hang). The loop runs in a
subprocess, so a segfault fails the test and names the seed (each case prints its seed to
stderr before it starts). Replay one case with
``python tests/acl/test_fuzz_guard_bytes.py SEED``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
import warnings
from typing import Dict, List, Tuple

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from ndarray import LayoutError, NdArray, ShapeDescriptor  # noqa: E402

EMULATED = os.environ.get("HYPOTHESIS_PROFILE") == "emulated"
FUZZ_CASES = int(os.environ.get("ACL_NDARRAY_FUZZ_CASES", "340" if EMULATED else "1700"))
FUZZ_SEED = int(os.environ.get("ACL_NDARRAY_FUZZ_SEED", "6000"))
SUBPROCESS_TIMEOUT = 1800.0  # a hang, not a budget: the case count is fixed
CANARY = 0xA5
GUARD = 64
F32 = np.dtype("float32")


# ---------------------------------------------------------------------------- guarded buffers
class Guarded:
    """An NdArray (possibly a view) whose allocation lies inside a canary-filled arena."""

    def __init__(self, arena: np.ndarray, parent: NdArray, view: NdArray, is_output: bool):
        self.arena, self.parent, self.view, self.is_output = arena, parent, view, is_output
        self.before = arena.copy()

    def element_bytes(self) -> np.ndarray:
        """Boolean mask over the arena: True on the bytes of the view's logical elements."""
        mask = np.zeros(self.arena.size, bool)
        v = self.view
        start = v.base_ptr - self.arena.ctypes.data
        cells = ~v.padding_mask()
        mask[start:start + v.descriptor.alloc_size_in_bytes] = np.repeat(cells, v.descriptor.itemsize)
        return mask

    def changed_bytes(self, may_write: bool) -> np.ndarray:
        changed = self.arena != self.before
        if may_write:
            changed &= ~self.element_bytes()
        return np.flatnonzero(changed)


def _random_values(rng, shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.uint8:
        return rng.integers(0, 256, shape).astype(np.uint8)
    if dtype.kind in "iu":
        return rng.integers(-1000, 1000, shape).astype(dtype)
    # multiples of 1/8 in [-8, 8): sums and products stay exact in float32
    return (rng.integers(-64, 64, shape) / 8).astype(dtype)


def make_tensor(rng, shape, dtype, *, is_output=False, allow_broadcast=False, values=None) -> Guarded:
    """A tensor of ``shape`` in a random memory layout inside a guarded arena."""
    shape = tuple(int(n) for n in shape)
    dtype = np.dtype(dtype)
    rank = len(shape)
    kind = rng.choice(["dense", "padded", "padded", "view"])
    perm = list(range(rank))
    steps = [1] * rank
    flips = [False] * rank
    broadcast_axis = None
    parent_shape = list(shape)
    if kind == "view" and rank:
        if rank >= 3 and rng.random() < 0.3:  # permute the outer axes, keep the innermost
            outer = list(rng.permutation(rank - 1))
            perm = outer + [rank - 1]
        for i in range(rank):
            r = rng.random()
            if r < 0.2 and (i < rank - 1 or rng.random() < 0.5):
                steps[i] = 2
            elif r < 0.3 and i < rank - 1:
                flips[i] = True
        if allow_broadcast and rng.random() < 0.3:
            broadcast_axis = int(rng.integers(0, rank))
        parent_shape = [shape[i] * steps[i] + int(rng.integers(0, 2)) for i in range(rank)]
        if broadcast_axis is not None:
            parent_shape[broadcast_axis] = 1
        parent_shape = [parent_shape[p] for p in perm]  # parent holds the permuted axes
    paddings = [int(rng.integers(0, 4)) if kind != "dense" else 0 for _ in parent_shape]
    offsets = [int(rng.integers(0, p + 1)) for p in paddings]
    d = ShapeDescriptor.create(tuple(parent_shape), dtype, "c", paddings=paddings, padding_offsets=offsets)
    n = d.alloc_size_in_bytes
    raw = np.full(n + 2 * GUARD + 128, CANARY, np.uint8)
    shift = int(rng.integers(0, 4)) * dtype.itemsize if rng.random() < 0.3 else 0
    start = (-raw.ctypes.data) % 64 + GUARD + shift
    arena = raw[: start + n + GUARD]
    parent = NdArray(arena[start:start + n], d)
    view = parent
    if kind == "view" and rank:
        inverse = [int(i) for i in np.argsort(perm)]
        if perm != list(range(rank)):
            view = view.transpose(*inverse)
        view = view[tuple(slice(None, None, -steps[i]) if flips[i] else slice(0, shape[i] * steps[i], steps[i])
                          for i in range(rank))]
        view = view[tuple(slice(0, shape[i]) for i in range(rank))]  # a reversed axis keeps the whole extent
    if values is None:
        values = _random_values(rng, shape, dtype)
    if broadcast_axis is not None:
        view.numpy()[...] = values.take([0], axis=broadcast_axis)  # one row, then a stride-0 view of it
        view = view.broadcast_to(shape)
    else:
        view.numpy()[...] = values
    assert view.shape == shape, (view.shape, shape, kind)
    return Guarded(arena, parent, view, is_output)


# ---------------------------------------------------------------------------- oracles
def _pool_nchw(x, k, s, mode):
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    win = np.lib.stride_tricks.sliding_window_view(x, (k, k), axis=(2, 3))[:, :, ::s, ::s][:, :, :oh, :ow]
    return win.max(axis=(-1, -2)) if mode == "max" else win.mean(axis=(-1, -2))


def _conv_nchw(x, w, b):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))  # n c oh ow kh kw
    out = np.einsum("ncyxij,ocij->noyx", win.astype(np.float64), w.astype(np.float64))
    if b is not None:
        out += b[None, :, None, None]
    return out


def _depthwise_nchw(x, w, b):
    win = np.lib.stride_tricks.sliding_window_view(x, w.shape[1:], axis=(2, 3))
    out = np.einsum("ncyxij,cij->ncyx", win.astype(np.float64), w.astype(np.float64))
    if b is not None:
        out += b[None, :, None, None]
    return out


def _softmax(x, log=False):
    x = x.astype(np.float64)
    e = x - x.max(axis=-1, keepdims=True)
    if log:
        return e - np.log(np.exp(e).sum(axis=-1, keepdims=True))
    e = np.exp(e)
    return e / e.sum(axis=-1, keepdims=True)


ACTIVATIONS = {
    "relu": lambda x, a, b: np.maximum(x, 0),
    "abs": lambda x, a, b: np.abs(x),
    "bounded_relu": lambda x, a, b: np.minimum(a, np.maximum(0, x)),
    "leaky_relu": lambda x, a, b: np.where(x > 0, x, a * x),
    "logistic": lambda x, a, b: 1 / (1 + np.exp(-x.astype(np.float64))),
    "tanh": lambda x, a, b: a * np.tanh(b * x.astype(np.float64)),
    "square": lambda x, a, b: x.astype(np.float64) ** 2,
    "linear": lambda x, a, b: a * x.astype(np.float64) + b,
}


# ---------------------------------------------------------------------------- case builders
# Each returns (construct, inputs, output, oracle, tolerance): construct(arrays) builds the
# function from the views; oracle(input values) gives the expected output.

def _rshape(rng, rank_lo=1, rank_hi=4, lo=1, hi=9):
    return tuple(int(v) for v in rng.integers(lo, hi + 1, int(rng.integers(rank_lo, rank_hi + 1))))


def case_activation(rng, fn):
    shape = _rshape(rng)
    name = str(rng.choice(list(ACTIVATIONS)))
    a, b = float(rng.choice([0.5, 1.0, 6.0])), float(rng.choice([0.5, 1.0]))
    return ("activation", [("src", shape, F32)], ("dst", shape, F32),
            lambda t: fn.Activation(t["src"], t["dst"], name, a=a, b=b),
            lambda v: ACTIVATIONS[name](v["src"], a, b), 1e-5)


def _binary(rng, fn, cls, op, label):
    shape = _rshape(rng)
    bshape = tuple(1 if (rng.random() < 0.25) else n for n in shape)
    return (label, [("a", shape, F32), ("b", bshape, F32)], ("dst", shape, F32),
            lambda t: cls(t["a"], t["b"], t["dst"]), lambda v: op(v["a"], v["b"]), 0)


def case_add(rng, fn):
    return _binary(rng, fn, fn.Add, np.add, "add")


def case_sub(rng, fn):
    return _binary(rng, fn, fn.Sub, np.subtract, "sub")


def case_mul(rng, fn):
    return _binary(rng, fn, fn.Mul, np.multiply, "mul")


def _nchw_to(layout, shape):
    n, c, h, w = shape
    return (n, c, h, w) if layout == "NCHW" else (n, h, w, c)


def _to_nchw(layout, x):
    return x if layout == "NCHW" else np.moveaxis(x, 3, 1)


def _from_nchw(layout, x):
    return x if layout == "NCHW" else np.moveaxis(x, 1, 3)


def case_pooling(rng, fn):
    layout = str(rng.choice(["NCHW", "NHWC"]))
    mode = str(rng.choice(["max", "avg"]))
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    oh, ow = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    src = (n, c, 2 * oh, 2 * ow)
    dst = (n, c, oh, ow)
    return ("pooling", [("src", _nchw_to(layout, src), F32)], ("dst", _nchw_to(layout, dst), F32),
            lambda t: fn.Pooling(t["src"], t["dst"], mode, kernel=2, stride=2, data_layout=layout),
            lambda v: _from_nchw(layout, _pool_nchw(_to_nchw(layout, v["src"]), 2, 2, mode)), 1e-5)


def case_convolution(rng, fn):
    layout = str(rng.choice(["NCHW", "NHWC"]))
    c, o, k = int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.choice([1, 3]))
    h, w = int(rng.integers(k, k + 4)), int(rng.integers(k, k + 4))
    has_bias = rng.random() < 0.6
    wshape = (o, c, k, k) if layout == "NCHW" else (o, k, k, c)
    ins = [("src", _nchw_to(layout, (1, c, h, w)), F32), ("weights", wshape, F32)]
    if has_bias:
        ins.append(("bias", (o,), F32))

    def oracle(v):
        wt = v["weights"] if layout == "NCHW" else np.moveaxis(v["weights"], 3, 1)
        return _from_nchw(layout, _conv_nchw(_to_nchw(layout, v["src"]), wt, v.get("bias")))

    return ("convolution", ins, ("dst", _nchw_to(layout, (1, o, h - k + 1, w - k + 1)), F32),
            lambda t: fn.Convolution(t["src"], t["weights"], t.get("bias"), t["dst"], data_layout=layout),
            oracle, 1e-3)


def case_depthwise(rng, fn):
    layout = str(rng.choice(["NCHW", "NHWC"]))
    c, k = int(rng.integers(1, 5)), int(rng.choice([1, 3]))
    h, w = int(rng.integers(k, k + 4)), int(rng.integers(k, k + 4))
    has_bias = rng.random() < 0.6
    wshape = (c, k, k) if layout == "NCHW" else (k, k, c)
    ins = [("src", _nchw_to(layout, (1, c, h, w)), F32), ("weights", wshape, F32)]
    if has_bias:
        ins.append(("bias", (c,), F32))

    def oracle(v):
        wt = v["weights"] if layout == "NCHW" else np.moveaxis(v["weights"], 2, 0)
        return _from_nchw(layout, _depthwise_nchw(_to_nchw(layout, v["src"]), wt, v.get("bias")))

    return ("depthwise", ins, ("dst", _nchw_to(layout, (1, c, h - k + 1, w - k + 1)), F32),
            lambda t: fn.DepthwiseConvolution(t["src"], t["weights"], t.get("bias"), t["dst"], data_layout=layout),
            oracle, 1e-3)


def case_fully_connected(rng, fn):
    bsz, n_in, n_out = int(rng.integers(1, 5)), int(rng.integers(1, 12)), int(rng.integers(1, 9))
    ins = [("src", (bsz, n_in), F32), ("weights", (n_out, n_in), F32), ("bias", (n_out,), F32)]
    return ("fully_connected", ins, ("dst", (bsz, n_out), F32),
            lambda t: fn.FullyConnected(t["src"], t["weights"], t["bias"], t["dst"]),
            lambda v: v["src"].astype(np.float64) @ v["weights"].T.astype(np.float64) + v["bias"], 1e-3)


def case_gemm(rng, fn):
    m, k, n = (int(v) for v in rng.integers(1, 10, 3))
    ins = [("a", (m, k), F32), ("b", (k, n), F32)]
    with_c = rng.random() < 0.3
    if with_c:
        ins.append(("c", (m, n), F32))
    return ("gemm", ins, ("dst", (m, n), F32),
            lambda t: fn.Gemm(t["a"], t["b"], t.get("c"), t["dst"]),
            lambda v: v["a"].astype(np.float64) @ v["b"] + (v["c"] if with_c else 0), 1e-3)


def case_softmax(rng, fn):
    shape = _rshape(rng, 1, 4)
    log = bool(rng.random() < 0.4)
    return ("log_softmax" if log else "softmax", [("src", shape, F32)], ("dst", shape, F32),
            lambda t: fn.Softmax(t["src"], t["dst"], log=log), lambda v: _softmax(v["src"], log), 1e-4)


def case_permute(rng, fn):
    shape = _rshape(rng, 2, 4)
    axes = tuple(int(a) for a in rng.permutation(len(shape)))
    out = tuple(shape[a] for a in axes)
    return ("permute", [("src", shape, F32)], ("dst", out, F32),
            lambda t: fn.Permute(t["src"], t["dst"], axes), lambda v: np.transpose(v["src"], axes), 0)


def case_copy(rng, fn):
    shape = _rshape(rng)
    return ("copy", [("src", shape, F32)], ("dst", shape, F32),
            lambda t: fn.Copy(t["src"], t["dst"]), lambda v: v["src"], 0)


def case_pad(rng, fn):
    shape = _rshape(rng, 2, 4)
    widths = [(0, 0)] * (len(shape) - 2) + [tuple(int(x) for x in rng.integers(0, 3, 2)) for _ in range(2)]
    out = tuple(n + a + b for n, (a, b) in zip(shape, widths))
    value = float(rng.choice([0.0, -1.5, 3.0]))
    return ("pad", [("src", shape, F32)], ("dst", out, F32),
            lambda t: fn.Pad(t["src"], t["dst"], widths, constant_value=value),
            lambda v: np.pad(v["src"], widths, constant_values=value), 0)


def case_fill(rng, fn):
    shape = _rshape(rng)
    value = float(rng.choice([0.0, 2.5, -7.0]))
    return ("fill", [], ("dst", shape, F32), lambda t: fn.Fill(t["dst"], value),
            lambda v: np.full(shape, value, F32), 0)


def case_cast(rng, fn):
    shape = _rshape(rng)
    src_t, dst_t = [(np.uint8, np.float32), (np.uint8, np.int32), (np.float32, np.float16)][int(rng.integers(0, 3))]
    return ("cast", [("src", shape, np.dtype(src_t))], ("dst", shape, np.dtype(dst_t)),
            lambda t: fn.Cast(t["src"], t["dst"]), lambda v: v["src"].astype(dst_t), 0)


def case_quantize(rng, fn):
    shape = _rshape(rng)
    scale, offset = 0.5, 10
    vals = (rng.integers(-15, 250, shape) * scale).astype(F32)  # exact: no rounding ties
    return ("quantize", [("src", shape, F32, vals)], ("dst", shape, np.dtype(np.uint8)),
            lambda t: fn.Quantize(t["src"], t["dst"], scale=scale, offset=offset),
            lambda v: np.clip(np.round(v["src"] / scale) + offset, 0, 255).astype(np.uint8), 0)


def case_dequantize(rng, fn):
    shape = _rshape(rng)
    scale, offset = 0.5, 10
    return ("dequantize", [("src", shape, np.dtype(np.uint8))], ("dst", shape, F32),
            lambda t: fn.Dequantize(t["src"], t["dst"], scale=scale, offset=offset),
            lambda v: (v["src"].astype(np.float64) - offset) * scale, 0)


BUILDERS = [case_activation, case_add, case_sub, case_mul, case_pooling, case_convolution, case_depthwise,
            case_fully_connected, case_gemm, case_softmax, case_permute, case_copy, case_pad, case_fill,
            case_cast, case_quantize, case_dequantize]


def run_case(seed: int) -> Tuple[str, str]:
    """One fuzz case; returns (function, 'ok' | 'rejected: <exception>'); raises AssertionError
    on a broken promise (canary overwritten, wrong result, unclean exception)."""
    from acl_bridge import functions as fn
    from acl_bridge.native import AclError

    rng = np.random.default_rng(seed)
    builder = BUILDERS[seed % len(BUILDERS)]
    label, ins, out, construct, oracle, tol = builder(rng, fn)
    tensors: Dict[str, Guarded] = {}
    values: Dict[str, np.ndarray] = {}
    for spec in ins:
        role, shape, dtype = spec[:3]
        g = make_tensor(rng, shape, dtype, allow_broadcast=True, values=spec[3] if len(spec) > 3 else None)
        tensors[role] = g
        values[role] = g.view.numpy().copy()
    role, shape, dtype = out
    tensors[role] = make_tensor(rng, shape, dtype, is_output=True)
    out_before = tensors[role].view.numpy().copy()
    layouts = {r: repr(g.view.descriptor) for r, g in tensors.items()}
    where = f"seed {seed}: {label} with {layouts}"
    outcome = "ok"
    f = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f = construct({r: g.view for r, g in tensors.items()})
            f.run()
    except (LayoutError, AclError) as e:
        outcome = f"rejected: {type(e).__name__}: {str(e)[:200]}"
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{where}: UNCLEAN exception {type(e).__name__}: {e}\n{traceback.format_exc()}") from e
    finally:
        if f is not None:
            f.close()
    for r, g in tensors.items():
        changed = g.changed_bytes(may_write=g.is_output and outcome == "ok")
        if changed.size:
            region = "element" if (g.element_bytes()[changed]).any() else "canary"
            raise AssertionError(f"{where}: {r} {region} bytes overwritten at arena offsets "
                                 f"{changed[:12].tolist()} ({changed.size} bytes); outcome {outcome}")
    result = tensors[role].view.numpy()
    if outcome == "ok":
        want = oracle(values)
        try:
            if tol:
                np.testing.assert_allclose(result.astype(np.float64), want, rtol=tol, atol=tol)
            else:
                np.testing.assert_array_equal(result, np.asarray(want).astype(result.dtype))
        except AssertionError as e:
            raise AssertionError(f"{where}: result differs from numpy: {e}") from None
    else:
        np.testing.assert_array_equal(result, out_before, err_msg=f"{where}: a rejected call wrote its output")
    return label, outcome


def fuzz(cases=FUZZ_CASES, first_seed=FUZZ_SEED) -> Dict:
    start = time.monotonic()
    stats: Dict[str, Dict[str, int]] = {}
    rejections: Dict[str, List[str]] = {}
    failures: List[str] = []
    done = 0
    for seed in range(first_seed, first_seed + cases):
        if len(failures) >= 10:  # enough to show the pattern; the test fails
            break
        print(f"fuzz case seed {seed}", file=sys.stderr, flush=True)
        done += 1
        try:
            label, outcome = run_case(seed)
        except AssertionError as e:  # a broken promise: keep going to show the pattern
            failures.append(str(e)[:1500])
            continue
        key = "ok" if outcome == "ok" else "rejected"
        stats.setdefault(label, {"ok": 0, "rejected": 0})[key] += 1
        if key == "rejected":
            rejections.setdefault(label, []).append(f"{seed}: {outcome}")
    return {"cases": done, "seconds": round(time.monotonic() - start, 1), "failures": failures, "stats": stats,
            "rejections": {k: v[:3] for k, v in rejections.items()}}


@pytest.mark.acl
def test_guard_byte_fuzz():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__)], capture_output=True,
                              text=True, timeout=SUBPROCESS_TIMEOUT, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        tail = (e.stderr or b"")[-2000:] if isinstance(e.stderr, bytes) else (e.stderr or "")[-2000:]
        raise AssertionError(f"fuzz hung, killed after {SUBPROCESS_TIMEOUT} s:\n{tail}") from None
    err = proc.stderr[-6000:]
    assert proc.returncode >= 0, f"fuzz subprocess CRASHED with signal {-proc.returncode} (last seed above):\n{err}"
    assert proc.returncode == 0, f"fuzz failed (exit {proc.returncode}):\n{err}"
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"fuzz: {json.dumps(result)}")
    assert not result["failures"], "broken promises:\n" + "\n\n".join(result["failures"])
    assert result["cases"] == FUZZ_CASES and FUZZ_CASES >= 2 * len(BUILDERS), result
    # every function must have produced at least one checked result, or the fuzz tests nothing
    missing = sorted(b.__name__[5:] for b in BUILDERS
                     if not any(v["ok"] for k, v in result["stats"].items() if k.startswith(b.__name__[5:])))
    assert not missing, f"functions with no successful fuzz case: {missing}: {result}"


def _main(argv):
    if argv:
        for seed in argv:
            print(run_case(int(seed)))
        return 0
    print(json.dumps(fuzz()))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
