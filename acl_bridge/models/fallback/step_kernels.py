"""The numpy kernels of the plan's step kinds (float64 arithmetic; int8 / uint8 with TFLite's
integer arithmetic, :mod:`.int8_reference`), registered by kind (design habit 20): a kernel
adds itself to :data:`FLOAT` or :data:`QUANTIZED` with ``@step_kernel("kind")`` and
:func:`run_step` looks it up, naming nothing; a family's kernels may live in a module
``step_kernels_<family>.py`` beside this one, imported here by its name (:data:`ROOMS`). The plan's executor on numpy
(:mod:`..planning.numpy_executor`) and the fallback's lowered layers (:mod:`.nn`) run steps
through it; running it against TFLite's interpreter checks the lowering (SAME padding, weight
layouts, fused activations, views for RESHAPE and CONCATENATION) on any machine."""

from __future__ import annotations

from typing import Callable, Dict, Optional

import numpy as np

from ..lowering.step import Step, slice_index
from . import int8_reference as q8
from .activations import gelu, lookup_table

# A float kernel: (step, its first input as float64, params, constants, arrays) -> the result
# before the fused activation, or None when it wrote its output itself (a copy).
FloatKernel = Callable[[Step, np.ndarray, dict, dict, Dict[int, np.ndarray]], Optional[np.ndarray]]
# A quantized kernel: (step, its first input, params, constants, the per-role quantization,
# where it writes, arrays) -> the result in the output's dtype, or None when it wrote ``dst``.
QuantizedKernel = Callable[[Step, np.ndarray, dict, dict, dict, np.ndarray, Dict[int, np.ndarray]], Optional[np.ndarray]]
FLOAT: Dict[str, FloatKernel] = {}
QUANTIZED: Dict[str, QuantizedKernel] = {}


def step_kernel(*kinds: str, quantized: bool = False) -> Callable:
    """Register the decorated function as the numpy kernel of step ``kinds`` (float, or int8 /
    uint8 with ``quantized=True``)."""
    table: Dict[str, Callable] = QUANTIZED if quantized else FLOAT

    def add(fn: Callable) -> Callable:
        for k in kinds:
            assert k not in table, f"step kind {k!r} registered twice (quantized={quantized}): {fn!r}, {table[k]!r}"
            table[k] = fn
        return fn
    return add


_ACT = {
    None: lambda x, a, b: x,
    "relu": lambda x, a, b: np.maximum(x, 0),
    "bounded_relu": lambda x, a, b: np.minimum(a, np.maximum(0, x)),
    "lu_bounded_relu": lambda x, a, b: np.minimum(a, np.maximum(b, x)),
    "tanh": lambda x, a, b: a * np.tanh(b * x),
    "logistic": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "leaky_relu": lambda x, a, b: np.where(x > 0, x, a * x),
    "elu": lambda x, a, b: np.where(x >= 0, x, a * np.expm1(x)),
    "hard_swish": lambda x, a, b: x * np.clip(x + 3, 0, 6) / 6,
    "sqrt": lambda x, a, b: np.sqrt(x),
    "square": lambda x, a, b: x * x,
    "gelu": lambda x, a, b: gelu(x),
}

def _windows(x, kernel, stride, padding, fill):
    top, bottom, left, right = padding
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=fill)
    win = np.lib.stride_tricks.sliding_window_view(xp, kernel, axis=(1, 2))  # N,H',W',C,kh,kw
    return win[:, ::stride[0], ::stride[1]]

def _resize_grid(size: int, out: int, align_corners: bool, half_pixel_centers: bool):
    """TFLite's source coordinate per output index along one axis (float32, as TFLite
    computes it), with its lower and upper neighbours clamped into the input:
    scale = (in - 1) / (out - 1) with align_corners (out > 1), else in / out;
    src = (dst + 0.5) * scale - 0.5 with half_pixel_centers, else dst * scale;
    lower = max(floor(src), 0), upper = min(ceil(src), in - 1)."""
    if align_corners and out > 1:
        scale = np.float32(size - 1) / np.float32(out - 1)
    else:
        scale = np.float32(size) / np.float32(out)
    dst = np.arange(out, dtype=np.float32)
    src = (dst + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel_centers else dst * scale
    lower = np.maximum(np.floor(src), 0).astype(np.int64)
    upper = np.minimum(np.ceil(src), size - 1).astype(np.int64)
    return src.astype(np.float64), lower, upper

def resize_bilinear(x: np.ndarray, out_hw, align_corners: bool = False, half_pixel_centers: bool = False) -> np.ndarray:
    """TFLite's RESIZE_BILINEAR of an NHWC array to ``out_hw`` (float64): each output is
    x[y0,x0](1-dy)(1-dx) + x[y1,x0] dy (1-dx) + x[y0,x1](1-dy) dx + x[y1,x1] dy dx with
    dy = src_y - y0, dx = src_x - x0 (TFLite's reference kernel; the weights are not
    clamped, so outside the input the edge element is taken)."""
    x = np.asarray(x, np.float64)
    sy, y0, y1 = _resize_grid(x.shape[1], out_hw[0], align_corners, half_pixel_centers)
    sx, x0, x1 = _resize_grid(x.shape[2], out_hw[1], align_corners, half_pixel_centers)
    dy = (sy - y0)[None, :, None, None]
    rows = x[:, y0] * (1 - dy) + x[:, y1] * dy
    dx = (sx - x0)[None, None, :, None]
    return rows[:, :, x0] * (1 - dx) + rows[:, :, x1] * dx

def _destination(s: Step, arrays: Dict[int, np.ndarray], shape) -> np.ndarray:
    """Where a copy-like step writes: its output, or its slice of ``into`` (concatenation)."""
    p = dict(s.params)
    if "into" in p:
        _, axis, start = p["slice"]
        return arrays[p["into"]][slice_index(len(shape), axis, start, shape[axis])]
    return arrays[s.output]

def _clamp(p: dict, q: dict, dst: np.ndarray):
    """The fused activation's range in the output's integers."""
    yq = q["dst"]
    return q8.activation_range(p.get("activation"), p.get("act_a", 0.0), p.get("act_b", 0.0), yq[0], yq[1], dst.dtype)


@step_kernel("dequantize", quantized=True)
def _dequantize_q(s, x, p, c, q, dst, arrays):
    dst[...] = q8.dequantize(x, q["src"])


@step_kernel("quantize", quantized=True)
def _quantize_q(s, x, p, c, q, dst, arrays):
    dst[...] = q8.quantize(x, q["dst"], dst.dtype) if "src" not in q else q8.requantize(x, q["src"], q["dst"], dst.dtype)


@step_kernel("copy", quantized=True)
def _copy_q(s, x, p, c, q, dst, arrays):
    dst[...] = x.reshape(dst.shape)


@step_kernel("convolution", "depthwise", quantized=True)
def _convolution_q(s, x, p, c, q, dst, arrays):
    return q8.convolution(x, q["src"], c["weights"], q["weights"], c["bias"], q["dst"], dst.dtype, p["stride"],
                          p["padding"], _clamp(p, q, dst), p.get("depth_multiplier") if s.kind == "depthwise" else None)


@step_kernel("fully_connected", quantized=True)
def _fully_connected_q(s, x, p, c, q, dst, arrays):
    return q8.fully_connected(x, q["src"], c["weights"], q["weights"], c["bias"], q["dst"], dst.dtype, _clamp(p, q, dst))


def _binary_operands(s: Step, c: dict, arrays: Dict[int, np.ndarray]):
    """(a, b) of a binary step: its constants by role, its inputs in order for the others."""
    inputs = iter(s.inputs)
    return tuple(c[r] if r in c else arrays[next(inputs)] for r in ("a", "b"))


_QUANTIZED_BINARY = {"add": q8.add, "sub": q8.sub, "mul": q8.mul, "squared_difference": q8.squared_difference}


@step_kernel("add", "sub", "mul", "maximum", "minimum", "squared_difference", quantized=True)
def _binary_q(s, x, p, c, q, dst, arrays):
    """TFLite's integer ADD / SUB / MUL; MAXIMUM / MINIMUM compare the stored values (one
    quantization in and out)."""
    a, b = _binary_operands(s, c, arrays)
    if s.kind in _QUANTIZED_BINARY:
        return _QUANTIZED_BINARY[s.kind](a, q["a"], b, q["b"], q["dst"], dst.dtype, _clamp(p, q, dst))
    return (np.maximum if s.kind == "maximum" else np.minimum)(a, b)


@step_kernel("activation", quantized=True)
def _activation_q(s, x, p, c, q, dst, arrays):
    """TFLite: requantize to the output's scale, then clamp; LOGISTIC and TANH: its lookup table."""
    yq = q["dst"]
    if p["function"] in ("logistic", "tanh"):
        table = lookup_table(p["function"].upper(), dst.dtype.str, q["src"], yq)
        return table[np.asarray(x, np.int64) - np.iinfo(dst.dtype).min]
    clamp = q8.activation_range(p["function"], p["a"], p["b"], yq[0], yq[1], dst.dtype)
    return np.clip(q8.requantize(x, q["src"], yq, np.int64, float32_ratio=True), *clamp).astype(dst.dtype)


@step_kernel("pooling", quantized=True)
def _pooling_q(s, x, p, c, q, dst, arrays):
    if p.get("global_mean"):  # TFLite's MEAN, its own arithmetic
        return np.clip(q8.mean(x, (1, 2), q["src"], q["dst"], np.int64), *_clamp(p, q, dst)).astype(dst.dtype)
    pool = q8.max_pool if p["pool_type"] == "max" else q8.average_pool
    return pool(x, p["kernel"], p["stride"], p["padding"], _clamp(p, q, dst), dst.dtype)


@step_kernel("softmax", quantized=True)
def _softmax_q(s, x, p, c, q, dst, arrays):
    return q8.softmax(x, q["src"], p["beta"], q["dst"], dst.dtype)


@step_kernel("convolution")
def _convolution(s, x, p, c, arrays):
    return np.einsum("nhwcij,oijc->nhwo", _windows(x, c["weights"].shape[1:3], p["stride"], p["padding"], 0.0),
                     c["weights"].astype(np.float64)) + c["bias"]


@step_kernel("depthwise")
def _depthwise(s, x, p, c, arrays):
    m = p.get("depth_multiplier", 1)
    win = np.repeat(_windows(x, c["weights"].shape[:2], p["stride"], p["padding"], 0.0), m, axis=3)
    return np.einsum("nhwcij,ijc->nhwc", win, c["weights"].astype(np.float64)) + c["bias"]


_FLOAT_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "maximum": np.maximum,
                 "minimum": np.minimum, "squared_difference": lambda a, b: np.square(a - b), "power": np.power}
_FLOAT_UNARY = {"abs": np.abs, "exp": np.exp, "log": np.log, "neg": np.negative, "rsqrt": lambda x: 1 / np.sqrt(x),
                "sin": np.sin, "floor": np.floor, "round": np.round}


_FLOAT_REDUCTIONS = {"reduce_sum": np.sum, "reduce_mean": np.mean, "reduce_max": np.max, "reduce_min": np.min,
                     "reduce_prod": np.prod}


@step_kernel(*_FLOAT_REDUCTIONS)
def _reduction(s, x, p, c, arrays):
    return _FLOAT_REDUCTIONS[s.kind](x, axis=p["axis"], keepdims=True)


@step_kernel(*_FLOAT_BINARY)
def _binary(s, x, p, c, arrays):
    a, b = (np.asarray(v, np.float64) for v in _binary_operands(s, c, arrays))
    return _FLOAT_BINARY[s.kind](a, b)


@step_kernel(*_FLOAT_UNARY)
def _unary(s, x, p, c, arrays):
    return _FLOAT_UNARY[s.kind](x)


@step_kernel("prelu")
def _prelu(s, x, p, c, arrays):
    return np.where(x > 0, x, c["alpha"].astype(np.float64) * x)


@step_kernel("activation")
def _activation(s, x, p, c, arrays):
    return _ACT[p["function"]](x, p["a"], p["b"])


def _np_pad(x, p):
    """np.pad in the step's mode: constant (its value, 0 by default), reflect or symmetric."""
    mode = p.get("mode", "constant")
    if mode == "constant":
        return np.pad(x, p["pad_width"], constant_values=p.get("constant_value", 0))
    return np.pad(x, p["pad_width"], mode=mode)


@step_kernel("pad")
def _pad(s, x, p, c, arrays):
    return _np_pad(x, p)


@step_kernel("permute")
def _permute(s, x, p, c, arrays):
    return np.transpose(x, p["axes"])


@step_kernel("permute", quantized=True)
def _permute_q(s, x, p, c, q, dst, arrays):
    return np.transpose(x, p["axes"])


@step_kernel("pad", quantized=True)
def _pad_q(s, x, p, c, q, dst, arrays):
    return _np_pad(x, p)


@step_kernel("pooling")
def _pooling(s, x, p, c, arrays):
    if p["pool_type"] == "max":
        return _windows(x, p["kernel"], p["stride"], p["padding"], -np.inf).max(axis=(-2, -1))
    if p["pool_type"] == "l2":
        from .nn_layers import l2_pool

        return l2_pool(x, p["kernel"], p["stride"], p["padding"])
    # TFLite averages over the elements inside the input only
    ones = np.ones(x.shape[:3] + (1,))
    return (_windows(x, p["kernel"], p["stride"], p["padding"], 0.0).sum(axis=(-2, -1))
            / _windows(ones, p["kernel"], p["stride"], p["padding"], 0.0).sum(axis=(-2, -1)))


@step_kernel("fully_connected")
def _fully_connected(s, x, p, c, arrays):
    return x @ c["weights"].astype(np.float64).T + c["bias"]


@step_kernel("softmax")
def _softmax(s, x, p, c, arrays):
    e = np.exp(p["beta"] * (x - x.max(axis=-1, keepdims=True)))
    return e / e.sum(axis=-1, keepdims=True)


@step_kernel("resize")
def _resize(s, x, p, c, arrays):
    if p.get("interpolation") == "nearest":
        from .nn_layers import resize_nearest

        return resize_nearest(x, arrays[s.output].shape[1:3], p["align_corners"], p["half_pixel_centers"])
    return resize_bilinear(x, arrays[s.output].shape[1:3], p["align_corners"], p["half_pixel_centers"])


@step_kernel("copy")
def _copy(s, x, p, c, arrays):
    dst = _destination(s, arrays, x.shape)
    dst[...] = x.reshape(dst.shape)


def _unknown(s: Step) -> AssertionError:
    table = "QUANTIZED" if dict(s.params).get("quantization") else "FLOAT"
    return AssertionError(f"no numpy kernel for step kind {s.kind!r} in {table} (kinds: "
                          f"{sorted(QUANTIZED if table == 'QUANTIZED' else FLOAT)}): {s!r}")


def run_step(s: Step, arrays: Dict[int, np.ndarray]) -> None:
    """One step of a plan on ``arrays`` (tensor index -> array; its output written in place):
    its kind's kernel, then (float) its fused activation."""
    p = dict(s.params)
    c = dict(s.constants)
    if p.get("quantization"):
        kernel_q = QUANTIZED.get(s.kind)
        if kernel_q is None:  # pragma: no cover - plan_model produces no other quantized kind
            raise _unknown(s)
        x = arrays[s.inputs[0]]
        dst = _destination(s, arrays, x.shape)
        y = kernel_q(s, x, p, c, dict(p["quantization"]), dst, arrays)
        if y is not None:
            dst[...] = y
        return
    kernel_f = FLOAT.get(s.kind)
    if kernel_f is None:  # pragma: no cover - plan_model produces no other kind
        raise _unknown(s)
    x = arrays[s.inputs[0]].astype(np.float64)
    y = kernel_f(s, x, p, c, arrays)
    if y is None:
        return
    y = _ACT[p.get("activation")](y, p.get("act_a", 0.0), p.get("act_b", 0.0))
    arrays[s.output][...] = y


# the logic family: comparisons and logical operators write bools; int8 / uint8 inputs of one
# quantization compare their stored values; arg max / min the index along the step's axis
_COMPARISONS = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
                "greater": np.greater, "greater_equal": np.greater_equal,
                "logical_and": np.logical_and, "logical_or": np.logical_or}
_ARG = {"arg_max": np.argmax, "arg_min": np.argmin}


def _role_operands(s: Step, c: dict, arrays: Dict[int, np.ndarray], roles) -> tuple:
    """The step's operands by role: its constants, its inputs in order for the others."""
    inputs = iter(s.inputs)
    return tuple(c[r] if r in c else arrays[next(inputs)] for r in roles)


@step_kernel(*_COMPARISONS)
@step_kernel(*_COMPARISONS, quantized=True)
def _comparison(s, x, p, c, *rest):
    return _COMPARISONS[s.kind](*_role_operands(s, c, rest[-1], ("a", "b")))


@step_kernel("logical_not")
def _logical_not(s, x, p, c, arrays):
    return np.logical_not(arrays[s.inputs[0]])


@step_kernel(*_ARG)
@step_kernel(*_ARG, quantized=True)
def _arg(s, x, p, c, *rest):
    return _ARG[s.kind](rest[-1][s.inputs[0]], axis=p["axis"])


@step_kernel("select")
@step_kernel("select", quantized=True)
def _select(s, x, p, c, *rest):
    return np.where(*_role_operands(s, c, rest[-1], ("condition", "a", "b")))




def _register_rooms() -> tuple:
    """Import every ``step_kernels_<family>`` module beside this one, in name order (each
    registers its kinds' kernels with :func:`step_kernel`); their names."""
    import importlib
    import os
    import pkgutil

    here = [os.path.dirname(os.path.abspath(__file__))]
    names = sorted(m.name for m in pkgutil.iter_modules(here) if m.name.startswith("step_kernels_"))
    for name in names:
        importlib.import_module(f"{__package__}.{name}")
    return tuple(names)


ROOMS = _register_rooms()  # the families' kernel modules (step_kernels_movement, ...)
