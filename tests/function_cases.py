"""One table of function cases for every backend.

Each row (:class:`Case`) is one function kind x data layout x dtype x parameters: the class
name in ``acl_bridge.functions``, a builder of its input values, the dtype of each output,
the keyword arguments, the numpy reference and the name of its tolerance (TOLERANCES). What
differs on one backend is written in the row (``notes``: another tolerance, a refusal with
its message, fewer buffer layouts), never in a copy of the row.

The NEON suite (tests/acl/test_functions.py, marker ``acl``) and the CL suite
(tests/cl/test_cl_functions.py, marker ``cl``) run every row through one runner,
``tests/acl/helpers.py:run_case(case, variant, backend)``, in every buffer layout of
VARIANTS the row allows. Pure Python and numpy: importable on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, Mapping, Optional, Tuple

import numpy as np

Inputs = Dict[str, Optional[np.ndarray]]  # role -> values (None: an absent optional tensor)

BACKENDS = ("neon", "cl")
# Buffer layouts (tests/acl/helpers.py Guarded): dense; right and bottom padding of 1 (the
# ADR's 2x2x5x5); padding on all sides (element 0 not at offset 0); every other index of the
# outermost dim of a bigger parent; exactly the padding ACL asked for, owned by the bridge
VARIANTS = ("contiguous", "padded", "offset", "strided", "negotiated")


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    atol_scaled: bool = True  # atol times max(1, max |expected|)


TOLERANCES = {
    "exact": Tolerance(0.0, 0.0),  # moves, max, relu-like piecewise linear ops
    "f32": Tolerance(1e-6, 1e-6),  # one rounding (add, mul, avg)
    "f32_transcendental": Tolerance(1e-4, 1e-5),  # ACL's vectorised exp/log/tanh approximations
    "f32_reduction": Tolerance(1e-5, 1e-4),  # dot products (conv, gemm, fc): summation order differs
    "f32_interpolation": Tolerance(0.0, 1e-4, atol_scaled=False),  # bilinear weights of values below 30
    "one_step": Tolerance(0.0, 1.0, atol_scaled=False),  # quantization: rounding of ties differs by version
    "f16": Tolerance(1e-3, 1e-3),
    # ACL's QLSTMLayer against TFLite's integer LSTM (the fallback's kernel): its gate activations
    # in float, not gemmlowp's fixed point (measured on ACL 24.11 NEON under QEMU: at most 3 steps
    # of the int8 output, 4 of 8 equal, in every layout: tests/acl/test_qlstm.py)
    "qlstm": Tolerance(0.0, 3.0, atol_scaled=False),
}


@dataclass(frozen=True)
class BackendNote:
    """How one backend differs for one row."""

    why: str  # what differs and why (shown in failures)
    tolerance: Optional[str] = None  # this backend's tolerance instead of the row's
    refuses: Optional[Tuple[str, str]] = None  # (exception class name, message regex) the constructor raises
    devices: Tuple[str, ...] = ()  # the refusal only on devices whose description has one of these (CL)
    variants: Optional[Tuple[str, ...]] = None  # only these layouts on this backend


@dataclass(frozen=True)
class Case:
    name: str  # test id: kind and parameters
    kind: str  # class name in acl_bridge.functions
    inputs: Callable[[], Inputs]
    outputs: Mapping[str, str]  # role -> dtype name; the shape is the reference's
    kwargs: Mapping[str, object]
    reference: Callable[[Inputs], Dict[str, np.ndarray]]  # inputs -> expected output by role
    tolerance: str
    variants: Tuple[str, ...] = VARIANTS
    notes: Mapping[str, BackendNote] = field(default_factory=dict)  # backend -> note

    def note(self, backend: str) -> Optional[BackendNote]:
        return self.notes.get(backend)

    def refusal_on(self, backend: str, device: str = "") -> Optional[Tuple[str, str]]:
        """(exception class name, message regex) this backend's constructor must raise on this
        device (its description), or None: the row must compute."""
        note = self.note(backend)
        if note is None or note.refuses is None:
            return None
        return note.refuses if not note.devices or any(d in device for d in note.devices) else None

    def tolerance_on(self, backend: str) -> Tolerance:
        note = self.note(backend)
        return TOLERANCES[note.tolerance if note and note.tolerance else self.tolerance]

    def variants_on(self, backend: str) -> Tuple[str, ...]:
        note = self.note(backend)
        return tuple(v for v in self.variants if note is None or note.variants is None or v in note.variants)


def arange_values(shape, dtype="float32", scale=0.25, shift=None, modulo=None):
    """np.arange-style values: each element its linear index (optionally wrapped and
    centred so activations see negatives)."""
    n = int(np.prod(shape))
    v = np.arange(n, dtype=np.float64)
    if modulo is not None:
        v = v % modulo
        if shift is None:
            shift = modulo // 2
    if shift:
        v = v - shift
    return (v * scale).reshape(shape).astype(dtype)


def _case(name, kind, inputs, kwargs, dst, tolerance, *, dst_dtype="float32", variants=VARIANTS, **notes) -> Case:
    """A row whose one output is ``dst``: ``dst(inputs)`` is its reference."""
    return Case(name, kind, inputs, {"dst": np.dtype(dst_dtype).name}, dict(kwargs), lambda v: {"dst": dst(v)},
                tolerance, tuple(variants), dict(notes))


def _f64(v):
    return np.asarray(v, np.float64)


# ---------------------------------------------------------------------------- references
def np_pad(pad):
    """(top, bottom, left, right) as the functions take window padding: np.pad style."""
    top, bottom, left, right = pad
    return ((top, bottom), (left, right))


def pool_ref(x, kind, k, s, pad, nhwc, exclude_padding=True):
    """x NCHW or NHWC; pad (top, bottom, left, right)."""
    if nhwc:
        x = x.transpose(0, 3, 1, 2)
    top, bottom, left, right = pad
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=np.nan)
    win = np.lib.stride_tricks.sliding_window_view(xp, k, axis=(2, 3))[:, :, ::s[0], ::s[1]]
    if kind == "max":
        out = np.nanmax(win, axis=(-2, -1))
    elif exclude_padding:
        out = np.nanmean(win, axis=(-2, -1))
    else:
        out = np.nansum(win, axis=(-2, -1)) / (k[0] * k[1])
    return out.transpose(0, 2, 3, 1) if nhwc else out


def conv_ref(x, w, b, s, pad, nhwc):
    """x NCHW (w OIHW) or NHWC (w OHWI); pad (top, bottom, left, right)."""
    if nhwc:
        x, w = x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2)
    top, bottom, left, right = pad
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(2, 3))[:, :, ::s[0], ::s[1]]
    out = np.einsum("nchwij,ocij->nohw", win, w.astype(np.float64))
    if b is not None:
        out = out + b[None, :, None, None]
    return out.transpose(0, 2, 3, 1) if nhwc else out


def depthwise_ref(x, w, b, s, pad, nhwc, m):
    """x NCHW, w (C*M, KH, KW); or x NHWC, w (KH, KW, C*M)."""
    if nhwc:
        x, w = x.transpose(0, 3, 1, 2), w.transpose(2, 0, 1)
    x = np.repeat(x.astype(np.float64), m, axis=1)  # output channel c*M+j reads input channel c
    top, bottom, left, right = pad
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[1:], axis=(2, 3))[:, :, ::s[0], ::s[1]]
    out = np.einsum("nchwij,cij->nchw", win, w.astype(np.float64))
    if b is not None:
        out = out + b[None, :, None, None]
    return out.transpose(0, 2, 3, 1) if nhwc else out


def resize_ref(x, out_hw, grid, nhwc):
    """TFLite's bilinear formula in numpy (acl_bridge.models.planning.numpy_executor, itself checked
    against TFLite's interpreter on the host)."""
    from acl_bridge.models.fallback.step_kernels import resize_bilinear

    y = resize_bilinear(x if nhwc else x.transpose(0, 2, 3, 1), out_hw, **RESIZE_GRIDS[grid])
    return y if nhwc else y.transpose(0, 3, 1, 2)


# ---------------------------------------------------------------------------- rows
# Rows whose dtypes include float16 run on CL only where the device has FP16 (cl_khr_fp16):
# elsewhere ACL refuses them or fails to build the kernel, and the runner skips them, saying so.
POCL_CANNOT_BUILD = BackendNote(
    "PoCL 6.0 (trixie) fails to build ACL 24.11's activation kernel for tanh, abs and sqrt, and so its LSTM "
    "(rusticl builds them)",
    refuses=("AclExceptionError", "clCreateKernel"), devices=("Portable Computing Language",))
CL_PAD_3D = BackendNote(
    "CLPadLayer pads at most 3 dimensions in reflect and symmetric modes (NEPadLayer: 4)",
    refuses=("AclStatusError", r"CLPadLayer::validate: .*padding\.size\(\) > 3"))

# Known gap (measured with Mesa rusticl, x86, ACL 24.11; PoCL runs every layout): CLMatMul with
# adj_rhs on the padded and offset buffers fails in the bridge's probe (padded:
# CLTensorAllocator::import_memory "buffer.getInfo<CL_MEM_SIZE>() < info().total_size()";
# offset: a C++ exception from clSetKernelArg), so CL runs that row in the other layouts only
CL_MATMUL_ADJ_B = BackendNote(
    "CLMatMul with adj_rhs fails in the probe on rusticl for padded and offset buffers (measured)",
    variants=("contiguous", "strided", "negotiated"))


def _activation_rows():
    acts = [
        ("relu", 0, 0, lambda x: np.maximum(x, 0), "exact"),
        ("bounded_relu", 2.0, 0, lambda x: np.minimum(2.0, np.maximum(0, x)), "exact"),
        ("lu_bounded_relu", 2.0, -1.0, lambda x: np.minimum(2.0, np.maximum(-1.0, x)), "exact"),
        ("leaky_relu", 0.125, 0, lambda x: np.where(x > 0, x, 0.125 * x), "exact"),
        ("logistic", 0, 0, lambda x: 1 / (1 + np.exp(-x)), "f32_transcendental"),
        ("tanh", 1.5, 0.5, lambda x: 1.5 * np.tanh(0.5 * x), "f32_transcendental"),
        ("soft_relu", 0, 0, lambda x: np.log1p(np.exp(x)), "f32_transcendental"),
        ("elu", 1.0, 0, lambda x: np.where(x < 0, np.expm1(x), x), "f32_transcendental"),
        ("abs", 0, 0, np.abs, "exact"),
        ("square", 0, 0, np.square, "f32"),
        ("linear", 2.0, 1.0, lambda x: 2.0 * x + 1.0, "f32"),
        ("identity", 0, 0, lambda x: x, "exact"),
        ("hard_swish", 0, 0, lambda x: x * np.clip(x + 3, 0, 6) / 6, "f32"),
    ]
    shape = (2, 2, 5, 5)  # the ADR's example
    rows = [_case(f"activation-{name}", "Activation", lambda: {"src": arange_values(shape, modulo=23)},
                  dict(function=name, a=a, b=b), lambda v, ref=ref: ref(_f64(v["src"])), tol,
                  **({"cl": POCL_CANNOT_BUILD} if name in ("tanh", "abs") else {}))
            for name, a, b, ref, tol in acts]
    rows.append(_case("activation-sqrt", "Activation", lambda: {"src": arange_values((3, 7), scale=0.5)},
                      dict(function="sqrt"), lambda v: np.sqrt(_f64(v["src"])), "f32_transcendental",
                      variants=("padded",), cl=POCL_CANNOT_BUILD))
    rows.append(_case("activation-relu-f16", "Activation",
                      lambda: {"src": arange_values((2, 3, 9), np.float16, modulo=17)}, dict(function="relu"),
                      lambda v: np.maximum(v["src"], 0), "exact", dst_dtype=np.float16,
                      variants=("contiguous", "padded")))
    return rows


def _elementwise_rows():
    ops = {"add": ("Add", np.add), "sub": ("Sub", np.subtract), "mul": ("Mul", np.multiply)}
    broadcasts = [((2, 3, 4, 5), (2, 3, 4, 5)), ((2, 3, 4, 5), (1, 1, 1, 5)), ((2, 3, 4, 5), (1, 3, 1, 1)),
                  ((2, 3, 4, 5), (2, 3, 4, 1))]
    rows = []
    for op, (kind, ufunc) in ops.items():
        for sa, sb in broadcasts:
            rows.append(_case(
                f"{op}-{'x'.join(map(str, sa))}-by-{'x'.join(map(str, sb))}", kind,
                lambda sa=sa, sb=sb: {"a": arange_values(sa, modulo=19),
                                      "b": arange_values(sb, scale=0.5, modulo=7) + 0.125},
                {}, lambda v, ufunc=ufunc: ufunc(v["a"], v["b"]), "f32"))
    # a fused clamp: NEON's addition, subtraction and multiplication take none, the shim runs
    # ACL's activation in place on dst after them (native/acl_shim_arithmetic.cpp); CL's kernel fuses it
    for op, act, a, b, clamp in (("add", "relu", 0.0, 0.0, lambda y: np.maximum(y, 0)),
                                 ("sub", "bounded_relu", 6.0, 0.0, lambda y: np.clip(y, 0, 6)),
                                 ("add", "lu_bounded_relu", 1.0, -1.0, lambda y: np.clip(y, -1, 1)),
                                 ("mul", "relu", 0.0, 0.0, lambda y: np.maximum(y, 0))):
        kind, ufunc = ops[op]
        rows.append(_case(
            f"{op}-{act}-2x3x4x5-by-1x3x1x1", kind,
            lambda: {"a": arange_values((2, 3, 4, 5), modulo=19) - 9.0,
                     "b": arange_values((1, 3, 1, 1), scale=0.5, modulo=7) + 0.125},
            dict(activation=act, act_a=a, act_b=b), lambda v, ufunc=ufunc, clamp=clamp: clamp(ufunc(v["a"], v["b"])),
            "f32"))
    for dtype in (np.int32, np.uint8, np.float16):
        rows.append(_case(
            f"add-{np.dtype(dtype).name}", "Add",
            lambda dtype=dtype: {"a": (np.arange(51) % 50).reshape(3, 17).astype(dtype),
                                 "b": (np.arange(51) % 7).reshape(3, 17).astype(dtype)},
            {}, lambda v: v["a"] + v["b"], "exact", dst_dtype=dtype, variants=("padded",)))
    # alpha shapes (NCHW functions): one slope per channel, per column, per element, one for all
    for alpha_shape in [(1, 3, 1, 1), (1, 1, 1, 5), (2, 3, 4, 5), (1, 1, 1, 1)]:
        rows.append(_case(
            f"prelu-alpha-{'x'.join(map(str, alpha_shape))}", "PRelu",
            lambda alpha_shape=alpha_shape: {"src": arange_values((2, 3, 4, 5), modulo=19),
                                             "alpha": arange_values(alpha_shape, scale=0.25, modulo=7) - 0.5},
            {}, lambda v: np.where(v["src"] > 0, v["src"], v["alpha"] * v["src"]), "f32"))
    return rows


# The elementwise family (acl_bridge.families.elementwise): binary rows broadcast like the
# add/sub/mul rows above; inputs kept where the function is defined (b != 0, a > 0 for power)
ELEMENTWISE_BINARY = {
    "div": ("Div", np.divide, "f32"), "maximum": ("Maximum", np.maximum, "exact"),
    "minimum": ("Minimum", np.minimum, "exact"),
    "squared_difference": ("SquaredDifference", lambda a, b: np.square(_f64(a) - b), "f32"),
    "power": ("Power", lambda a, b: np.power(_f64(a), b), "f32_transcendental"),
}
ELEMENTWISE_UNARY = {  # name: (class, reference, tolerance, inputs' shift: positive where the function needs it)
    "abs": ("Abs", np.abs, "exact", None), "neg": ("Neg", np.negative, "exact", None),
    "exp": ("Exp", np.exp, "f32_transcendental", None), "log": ("Log", np.log, "f32_transcendental", 0),
    "rsqrt": ("Rsqrt", lambda x: 1 / np.sqrt(x), "f32_transcendental", 0),
    "sin": ("Sin", np.sin, "f32_transcendental", None), "floor": ("Floor", np.floor, "exact", None),
    "round": ("Round", np.round, "exact", None),
}


def _elementwise_family_rows():
    rows = []
    for op, (kind, ref, tol) in ELEMENTWISE_BINARY.items():
        for sa, sb in [((2, 3, 4, 5), (2, 3, 4, 5)), ((2, 3, 4, 5), (1, 3, 1, 1)), ((1, 1, 1, 5), (2, 3, 4, 5)),
                       ((2, 3, 4, 5), (5,))]:
            rows.append(_case(
                f"{op}-{'x'.join(map(str, sa))}-by-{'x'.join(map(str, sb))}", kind,
                lambda sa=sa, sb=sb, op=op: {
                    "a": np.abs(arange_values(sa, modulo=19)) + 0.5 if op == "power" else arange_values(sa, modulo=19),
                    "b": arange_values(sb, scale=0.5, modulo=7) + 0.125},
                {}, lambda v, ref=ref: ref(v["a"], v["b"]), tol))
    for op in ("maximum", "minimum"):
        rows.append(_case(
            f"{op}-int32", ELEMENTWISE_BINARY[op][0],
            lambda: {"a": (np.arange(51) % 50 - 20).reshape(3, 17).astype(np.int32),
                     "b": (np.arange(17) % 7 - 3).reshape(1, 17).astype(np.int32)},
            {}, lambda v, op=op: ELEMENTWISE_BINARY[op][1](v["a"], v["b"]), "exact", dst_dtype=np.int32,
            variants=("padded",)))
    for op, (kind, ref, tol, shift) in ELEMENTWISE_UNARY.items():
        # 0.25 steps offset by 0.1: no value is a tie for round, none is 0 for log and rsqrt
        rows.append(_case(
            f"{op}-2x3x5x5", kind,
            lambda shift=shift: {"src": arange_values((2, 3, 5, 5), modulo=23, shift=shift) + 0.1},
            {}, lambda v, ref=ref: ref(_f64(v["src"])), tol))
    return rows


REDUCTIONS = {"sum": ("ReduceSum", np.sum, "f32_reduction"), "mean": ("ReduceMean", np.mean, "f32_reduction"),
              "max": ("ReduceMax", np.max, "exact"), "min": ("ReduceMin", np.min, "exact"),
              "prod": ("ReduceProd", np.prod, "f32_reduction")}


def _reduction_rows():
    """The reduction family along each kind of axis (ACL's x, y, z and the outermost), kept."""
    rows = []
    for op, (kind, ref, tol) in REDUCTIONS.items():
        for shape, axis in (((2, 3, 4, 5), -1), ((2, 3, 4, 5), 2), ((2, 3, 4, 5), 1), ((2, 3, 4, 5), 0), ((6, 7), 0)):
            rows.append(_case(
                f"reduce_{op}-{'x'.join(map(str, shape))}-axis{axis}", kind,
                # prod: values near 1 (0.75 .. 1.25) so the products stay in range
                lambda shape=shape, op=op: {"src": arange_values(shape, modulo=5, scale=0.125) + 1.0 if op == "prod"
                                            else arange_values(shape, modulo=19)},
                dict(axis=axis), lambda v, ref=ref, axis=axis: ref(_f64(v["src"]), axis=axis, keepdims=True), tol,
                # Known gap (as the 1x1 resize rows): ACL 20.08 asks for padding (right 1,
                # bottom 5) on the (1, 7) dst, which the bridge cannot recover from a buffer of
                # one row, so the negotiated buffer would be staged
                variants=VARIANTS if len(shape) == 4 else tuple(v for v in VARIANTS if v != "negotiated")))
    return rows


# The logic family (acl_bridge.families.logic): comparisons broadcast like the binary rows, with
# ties (values on a coarse grid), their dst uint8 (0 / 1 checked byte for byte) or bool
COMPARISONS = {"equal": ("Equal", np.equal), "not_equal": ("NotEqual", np.not_equal), "less": ("Less", np.less),
               "less_equal": ("LessEqual", np.less_equal), "greater": ("Greater", np.greater),
               "greater_equal": ("GreaterEqual", np.greater_equal)}


def _logic_rows():
    rows = []
    for op, (kind, ref) in COMPARISONS.items():
        rows.append(_case(
            f"{op}-2x3x4x5-by-1x3x1x1", kind,
            lambda: {"a": arange_values((2, 3, 4, 5), modulo=7, scale=0.5), "b": arange_values((1, 3, 1, 1), scale=0.5)},
            {}, lambda v, ref=ref: ref(v["a"], v["b"]).astype(np.uint8), "exact", dst_dtype=np.uint8))
    rows.append(_case(
        "less-int32-bool", "Less",
        lambda: {"a": (np.arange(51) % 9 - 4).reshape(3, 17).astype(np.int32), "b": np.zeros((1, 17), np.int32)},
        {}, lambda v: v["a"] < v["b"], "exact", dst_dtype=np.bool_, variants=("padded",)))
    mask = lambda shape, k: (np.arange(int(np.prod(shape))) % k == 0).reshape(shape)  # noqa: E731
    # ACL 20.08 has no logical functions: tests/acl/test_functions.py UNSUPPORTED
    for op, kind, ref in (("logical_and", "LogicalAnd", np.logical_and), ("logical_or", "LogicalOr", np.logical_or)):
        rows.append(_case(
            f"{op}-2x3x4x5", kind, lambda: {"a": mask((2, 3, 4, 5), 2), "b": mask((2, 3, 4, 5), 3)},
            {}, lambda v, ref=ref: ref(v["a"], v["b"]).astype(np.uint8), "exact", dst_dtype=np.uint8))
    rows.append(_case(
        "logical_not-2x3x4x5", "LogicalNot", lambda: {"src": mask((2, 3, 4, 5), 3)},
        {}, lambda v: np.logical_not(v["src"]).astype(np.uint8), "exact", dst_dtype=np.uint8))
    # arg max / min: ties (values modulo 5) give the first index, as numpy
    for op, kind, ref in (("arg_max", "ArgMax", np.argmax), ("arg_min", "ArgMin", np.argmin)):
        for shape, axis in (((2, 3, 4, 5), -1), ((2, 3, 4, 5), 1)):
            rows.append(_case(
                f"{op}-{'x'.join(map(str, shape))}-axis{axis}", kind,
                lambda shape=shape: {"src": arange_values(shape, modulo=5)}, dict(axis=axis),
                lambda v, ref=ref, axis=axis: ref(v["src"], axis=axis).astype(np.int32), "exact", dst_dtype=np.int32))
    rows.append(_case(
        "select-2x3x4x5", "Select",
        lambda: {"condition": mask((2, 3, 4, 5), 3), "a": arange_values((2, 3, 4, 5), modulo=19),
                 "b": arange_values((2, 3, 4, 5), scale=-1.0, modulo=7)},
        {}, lambda v: np.where(v["condition"], v["a"], v["b"]), "exact"))
    return rows


def _gelu_rows():
    """ACL 24.x's GELU activation (the erf form; 20.08 lacks it: tests/acl/test_functions.py UNSUPPORTED)."""
    from acl_bridge.models.fallback.activations import gelu

    return [_case("activation-gelu", "Activation", lambda: {"src": arange_values((2, 2, 5, 5), modulo=23)},
                  dict(function="gelu"), lambda v: gelu(v["src"]), "f32_transcendental")]


def _window_rows():
    rows = []
    pools = [("max", (2, 2), (2, 2), (0, 0, 0, 0)), ("avg", (2, 2), (2, 2), (0, 0, 0, 0)),
             ("max", (3, 3), (1, 1), (1, 1, 1, 1)), ("avg", (3, 3), (2, 2), (1, 1, 1, 1)),
             ("max", (3, 2), (1, 2), (0, 0, 0, 0))]
    convs = [((3, 3), (1, 1), (1, 1, 1, 1), True), ((3, 3), (2, 2), (0, 0, 0, 0), True),
             ((1, 1), (1, 1), (0, 0, 0, 0), False), ((5, 3), (1, 2), (2, 2, 1, 1), True)]
    for layout in ("NCHW", "NHWC"):
        nhwc = layout == "NHWC"
        for kind, k, s, pad in pools:
            shape = (2, 7, 9, 3) if nhwc else (2, 3, 7, 9)
            rows.append(_case(
                f"pooling-{kind}{k[0]}x{k[1]}s{s[0]}p{pad[0]}-{layout}", "Pooling",
                lambda shape=shape: {"src": arange_values(shape, modulo=31)},
                dict(pool_type=kind, kernel=k, stride=s, padding=np_pad(pad), data_layout=layout),
                lambda v, kind=kind, k=k, s=s, pad=pad, nhwc=nhwc: pool_ref(v["src"], kind, k, s, pad, nhwc),
                "exact" if kind == "max" else "f32"))
        n, c, h, w_, o = 2, 3, 8, 9, 4
        xshape = (n, h, w_, c) if nhwc else (n, c, h, w_)
        for k, s, pad, bias in convs:
            wshape = (o, k[0], k[1], c) if nhwc else (o, c, k[0], k[1])
            rows.append(_case(
                f"convolution-k{k[0]}x{k[1]}s{s[0]}{s[1]}p{pad[0]}{'b' if bias else ''}-{layout}", "Convolution",
                lambda xshape=xshape, wshape=wshape, bias=bias: {
                    "src": arange_values(xshape, modulo=13, scale=0.125),
                    "weights": arange_values(wshape, modulo=7, scale=0.25),
                    "bias": arange_values((o,), scale=0.5) if bias else None},
                dict(stride=s, padding=np_pad(pad), data_layout=layout),
                lambda v, s=s, pad=pad, nhwc=nhwc: conv_ref(v["src"], v["weights"], v["bias"], s, pad, nhwc),
                "f32_reduction"))
        for k, s, pad, m in [((3, 3), (1, 1), (1, 1, 1, 1), 1), ((3, 3), (2, 2), (0, 0, 0, 0), 2)]:
            wshape = (k[0], k[1], c * m) if nhwc else (c * m, k[0], k[1])
            rows.append(_case(
                f"depthwise-k{k[0]}x{k[1]}s{s[0]}p{pad[0]}m{m}-{layout}", "DepthwiseConvolution",
                lambda xshape=xshape, wshape=wshape, m=m: {
                    "src": arange_values(xshape, modulo=13, scale=0.125),
                    "weights": arange_values(wshape, modulo=7, scale=0.25),
                    "bias": arange_values((c * m,), scale=0.5)},
                dict(stride=s, padding=np_pad(pad), depth_multiplier=m, data_layout=layout),
                lambda v, s=s, pad=pad, nhwc=nhwc, m=m: depthwise_ref(v["src"], v["weights"], v["bias"], s, pad,
                                                                      nhwc, m),
                "f32_reduction"))
    return rows


def _matrix_rows():
    rows = []
    for bias in (True, False):
        rows.append(_case(
            f"fully_connected-{'bias' if bias else 'no_bias'}", "FullyConnected",
            lambda bias=bias: {"src": arange_values((4, 10), modulo=11, scale=0.25),
                               "weights": arange_values((6, 10), modulo=5, scale=0.5),
                               "bias": arange_values((6,), scale=0.5) if bias else None},
            {}, lambda v: _f64(v["src"]) @ _f64(v["weights"]).T + (0 if v["bias"] is None else v["bias"]),
            "f32_reduction"))
    # beta == 1 with a full c matrix: 24.11's NEGEMM alone would broadcast c's first row
    gemms = [("no_c", None, 1.5, 0.0), ("c_beta_half", (6, 7), 1.5, 0.5), ("c_beta_1", (6, 7), 1.0, 1.0),
             ("bias_row", (7,), 1.0, 1.0)]
    for name, c_shape, alpha, beta in gemms:
        rows.append(_case(
            f"gemm-{name}", "Gemm",
            lambda c_shape=c_shape: {"a": arange_values((6, 10), modulo=11, scale=0.25),
                                     "b": arange_values((10, 7), modulo=5, scale=0.5),
                                     "c": None if c_shape is None else arange_values(c_shape, modulo=3)},
            dict(alpha=alpha, beta=beta),
            lambda v, alpha=alpha, beta=beta: alpha * (_f64(v["a"]) @ v["b"]) + (0 if v["c"] is None else beta * v["c"]),
            "f32_reduction"))
    for log in (False, True):
        rows.append(_case(
            f"softmax-{'log' if log else 'plain'}", "Softmax",
            lambda: {"src": arange_values((4, 3, 10), modulo=9, scale=0.5)}, dict(log=log),
            lambda v, log=log: _softmax(_f64(v["src"]), log), "f32_transcendental"))
    return rows


def _softmax(x, log):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    return np.log(p) if log else p


def _movement_rows():
    rows = []
    for name, axes in (("nchw_to_nhwc", (0, 2, 3, 1)), ("nhwc_to_nchw", (0, 3, 1, 2))):
        rows.append(_case(f"permute-{name}", "Permute", lambda: {"src": arange_values((2, 3, 4, 5), scale=1.0)},
                          dict(axes=axes), lambda v, axes=axes: np.transpose(v["src"], axes), "exact"))
    counting = (2, 3, 5, 7)
    for dtype in (np.float32, np.uint8, np.int32):
        rows.append(_case(
            f"copy-{np.dtype(dtype).name}", "Copy",
            lambda dtype=dtype: {"src": arange_values(counting, scale=1.0, modulo=200, shift=0).astype(dtype)},
            {}, lambda v: v["src"], "exact", dst_dtype=dtype))
    pw = ((0, 0), (0, 1), (1, 2), (2, 1))
    for mode in ("constant", "reflect", "symmetric"):
        rows.append(_case(
            f"pad-{mode}", "Pad", lambda: {"src": arange_values((2, 3, 4, 5), scale=1.0)},
            dict(pad_width=pw, constant_value=7.5, mode=mode),
            lambda v, mode=mode: np.pad(v["src"], pw, mode=mode, **({"constant_values": 7.5} if mode == "constant" else {})),
            "exact", **({} if mode == "constant" else {"cl": CL_PAD_3D})))
    for dtype, value in ((np.float32, 2.5), (np.uint8, 7), (np.int32, -3)):
        rows.append(_case(f"fill-{np.dtype(dtype).name}", "Fill", lambda: {}, dict(value=value),
                          lambda v, dtype=dtype, value=value: np.full(counting, value, dtype), "exact",
                          dst_dtype=dtype))
    for src_t, dst_t in ((np.uint8, np.float32), (np.float32, np.float16), (np.float16, np.float32),
                         (np.uint8, np.int32), (np.uint8, np.int16)):
        rows.append(_case(
            f"cast-{np.dtype(src_t).name}_{np.dtype(dst_t).name}", "Cast",
            lambda src_t=src_t: {"src": arange_values(counting, scale=1.0, modulo=200, shift=0).astype(src_t)},
            {}, lambda v, dst_t=dst_t: v["src"].astype(dst_t), "exact", dst_dtype=dst_t))
    for qtype in (np.uint8, np.int8):
        scale, offset = 0.25, (10 if qtype == np.uint8 else -3)
        info = np.iinfo(qtype)

        def quantized(x, scale=scale, offset=offset, info=info):
            return np.clip(np.round(_f64(x) / scale) + offset, info.min, info.max)

        values = lambda: arange_values(counting, modulo=40, scale=0.3)  # noqa: E731
        rows.append(_case(
            f"quantize-{np.dtype(qtype).name}", "Quantize", lambda values=values: {"src": values()},
            dict(scale=scale, offset=offset, quantization={"dst": (scale, offset)}),
            lambda v, quantized=quantized: quantized(v["src"]), "one_step", dst_dtype=qtype))
        rows.append(_case(
            f"dequantize-{np.dtype(qtype).name}", "Dequantize",
            lambda values=values, quantized=quantized, qtype=qtype: {"src": quantized(values()).astype(qtype)},
            dict(scale=scale, offset=offset, quantization={"src": (scale, offset)}),
            lambda v, scale=scale, offset=offset: (_f64(v["src"]) - offset) * scale, "f32"))
    return rows


RESIZE_GRIDS = {"half_pixel": dict(half_pixel_centers=True), "align_corners": dict(align_corners=True),
                "top_left": dict()}
# (N, H, W, C) in, (H, W) out: the full-range model's 2x upsamplings, downscaling, odd ratios
RESIZE_SHAPES = [((1, 6, 6, 5), (12, 12)), ((1, 12, 12, 3), (24, 24)), ((2, 8, 10, 3), (4, 5)),
                 ((1, 5, 7, 4), (11, 3)), ((1, 4, 4, 1), (1, 1))]


def _resize_rows():
    rows = []
    for (n, h, w, c), out_hw in RESIZE_SHAPES:
        for layout in ("NCHW", "NHWC"):
            nhwc = layout == "NHWC"
            shape = (n, h, w, c) if nhwc else (n, c, h, w)
            for grid in sorted(RESIZE_GRIDS):
                rows.append(_case(
                    f"resize-{h}x{w}to{out_hw[0]}x{out_hw[1]}-{grid}-{layout}", "Resize",
                    lambda shape=shape: {"src": arange_values(shape, modulo=37, scale=0.5)},
                    dict(data_layout=layout, **RESIZE_GRIDS[grid]),
                    lambda v, out_hw=out_hw, grid=grid, nhwc=nhwc: resize_ref(v["src"], out_hw, grid, nhwc),
                    "f32_interpolation",
                    # Known gap (ACL 20.08, NCHW): the padding 20.08 asks for on a 1x1 output
                    # (right 15) and the padding the bridge recovers from that buffer's strides
                    # (bottom 15: a width-1 row is ambiguous) disagree, so the negotiated buffer
                    # is staged. Left out of the negotiated variant until the mapping is fixed.
                    variants=VARIANTS if out_hw != (1, 1) else tuple(v for v in VARIANTS if v != "negotiated")))
    return rows


def _movement_family_rows():
    """The data-movement family (acl_bridge.families.movement): one row per kind, NHWC."""
    from acl_bridge.models.fallback.step_kernels_movement import KERNELS

    def kernel(kind, **p):  # the numpy kernels the model runner checks against TFLite's interpreter
        return lambda v: KERNELS[kind](None, v["src"], p, {}, {})

    src = lambda shape: (lambda: {"src": arange_values(shape, scale=1.0)})  # noqa: E731
    idx = np.array([3, 0, 2, 2], np.int32)
    return [
        _case("strided_slice-2x6x7x4", "StridedSlice", src((2, 6, 7, 4)),
              dict(begin=(1, 1, -5, 0), end=(2, 6, 7, 3), strides=(1, 2, 1, 1), end_mask=0b0100),
              lambda v: v["src"][1:2, 1:6:2, 2:, 0:3], "exact"),
        _case("strided_slice-shrink", "StridedSlice", src((2, 5, 6, 3)),
              dict(begin=(1, 0, 1, 0), end=(2, 5, 6, 3), strides=(1, 1, 2, 1), shrink_axis_mask=1),
              lambda v: v["src"][1, :, 1::2, :], "exact"),
        _case("gather-axis1", "Gather", lambda: {"src": arange_values((2, 5, 4, 3), scale=1.0), "indices": idx},
              dict(axis=1), lambda v: np.take(v["src"], v["indices"], axis=1), "exact"),
        _case("tile-2x3", "Tile", src((1, 2, 3, 2)), dict(multiples=(2, 1, 2, 3)),
              lambda v: np.tile(v["src"], (2, 1, 2, 3)), "exact"),
        _case("depth_to_space-block2", "DepthToSpace", src((1, 3, 4, 8)), dict(block_size=2, data_layout="NHWC"),
              kernel("depth_to_space", block_size=2), "exact"),
        _case("space_to_depth-block2", "SpaceToDepth", src((1, 4, 6, 3)), dict(block_size=2, data_layout="NHWC"),
              kernel("space_to_depth", block_size=2), "exact"),
        _case("batch_to_space-2x2", "BatchToSpace", src((4, 3, 3, 2)),
              dict(block_shape=(2, 2), data_layout="NHWC"),
              kernel("batch_to_space", block_shape=(2, 2), crops=((0, 0), (0, 0))), "exact"),
        _case("space_to_batch-2x3-padded", "SpaceToBatch", src((1, 5, 6, 2)),
              dict(block_shape=(2, 3), paddings=((1, 0), (0, 0)), data_layout="NHWC"),
              kernel("space_to_batch", block_shape=(2, 3), paddings=((1, 0), (0, 0))), "exact"),
    ]


def _nn_rows():
    """The neural-network layers family (NHWC, the models' layout) and the L2 pooling and
    nearest resize of the older kinds: references from the numpy kernels of the plan's steps
    (acl_bridge/models/fallback/nn_layers.py, checked against TFLite's interpreter on the host)."""
    from acl_bridge.models.fallback import nn_layers as L

    rows = []
    for k, s, pad, bias in (((3, 3), (2, 2), (0, 1, 0, 1), True), ((4, 4), (2, 2), (1, 1, 1, 1), False)):
        xshape, wshape = (1, 4, 5, 3), (2, k[0], k[1], 3)
        rows.append(_case(
            f"deconvolution-k{k[0]}x{k[1]}s{s[0]}p{''.join(map(str, pad))}{'b' if bias else ''}-NHWC", "Deconvolution",
            lambda xshape=xshape, wshape=wshape, bias=bias: {
                "src": arange_values(xshape, modulo=13, scale=0.125),
                "weights": arange_values(wshape, modulo=7, scale=0.25),
                "bias": arange_values((2,), scale=0.5) if bias else None},
            dict(stride=s, padding=np_pad(pad), data_layout="NHWC"),
            lambda v, s=s, pad=pad: L.transposed_convolution_sum(_f64(v["src"]), _f64(v["weights"]), s, pad)
            + (0 if v["bias"] is None else v["bias"]), "f32_reduction"))
    rows.append(_case(
        "l2_normalize-2x3x4x6-last_axis", "L2Normalize", lambda: {"src": arange_values((2, 3, 4, 6), modulo=11)},
        dict(axis=-1), lambda v: _f64(v["src"]) / np.sqrt(np.maximum((_f64(v["src"]) ** 2).sum(-1, keepdims=True),
                                                                      1e-12)), "f32_transcendental"))
    lrn = dict(radius=2, bias=1.5, alpha=0.3, beta=0.75)
    rows.append(_case(
        "local_response_normalization-r2-NHWC", "LocalResponseNormalization",
        lambda: {"src": arange_values((1, 3, 4, 7), modulo=9, scale=0.25)}, dict(lrn, data_layout="NHWC"),
        lambda v: L._normalization(None, _f64(v["src"]), lrn, {}, {}), "f32_transcendental"))
    for adj_b in (False, True):
        b_shape = (2, 5, 4) if adj_b else (2, 4, 5)
        rows.append(_case(
            f"matmul-2x3x4{'-adj_b' if adj_b else ''}", "MatMul",
            lambda b_shape=b_shape: {"a": arange_values((2, 3, 4), modulo=11, scale=0.25),
                                     "b": arange_values(b_shape, modulo=5, scale=0.5)},
            dict(adj_b=adj_b), lambda v, adj_b=adj_b: _f64(v["a"]) @ (np.swapaxes(_f64(v["b"]), -1, -2) if adj_b
                                                                       else _f64(v["b"])), "f32_reduction",
            **({"cl": CL_MATMUL_ADJ_B} if adj_b else {})))
    rows.append(_case(
        "convolution_3d-k3x3x2s2p1", "Convolution3D",
        lambda: {"src": arange_values((1, 5, 6, 4, 3), modulo=13, scale=0.125),
                 "weights": arange_values((3, 3, 2, 3, 2), modulo=7, scale=0.25), "bias": arange_values((2,), scale=0.5)},
        dict(stride=(2, 2, 2), padding=((1, 1), (1, 1), (0, 0)), data_layout="NHWC"),
        lambda v: L._convolution_3d(None, _f64(v["src"]), dict(stride=(2, 2, 2), padding=((1, 1), (1, 1), (0, 0))),
                                    {"weights": v["weights"], "bias": v["bias"]}, {}), "f32_reduction"))
    rows.append(_case(
        "pooling-l2_3x3s2p1-NHWC", "Pooling", lambda: {"src": arange_values((1, 7, 7, 2), modulo=31)},
        dict(pool_type="l2", kernel=(3, 3), stride=(2, 2), padding=np_pad((1, 1, 1, 1)), data_layout="NHWC"),
        lambda v: L.l2_pool(_f64(v["src"]), (3, 3), (2, 2), (1, 1, 1, 1)), "f32_transcendental"))
    for grid in sorted(RESIZE_GRIDS):
        rows.append(_case(
            f"resize-nearest-5x7to9x4-{grid}-NHWC", "Resize", lambda: {"src": arange_values((1, 5, 7, 2), modulo=37)},
            dict(interpolation="nearest", data_layout="NHWC", **RESIZE_GRIDS[grid]),
            lambda v, grid=grid: L.resize_nearest(v["src"], (9, 4), **RESIZE_GRIDS[grid]), "exact"))
    return rows


def _detection_inputs(n: int, classes: int, seed: int) -> Inputs:
    """Box codes (1, n, 4), distinct class scores (1, n, classes + 1) and grid anchors (n, 4)
    (y, x, h, w), neighbours overlapping."""
    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(n)))
    k = np.arange(n)
    anchors = np.stack([(k // side + 0.5) / side, (k % side + 0.5) / side, np.full(n, 1.6 / side),
                        np.full(n, 1.2 / side)], 1).astype(np.float32)
    scores = (rng.permutation(n * (classes + 1)) + 0.5) / (n * (classes + 1))
    return {"box_encodings": rng.normal(0.0, 1.0, (1, n, 4)).astype(np.float32),
            "class_scores": scores.reshape(1, n, classes + 1).astype(np.float32), "anchors": anchors}


CL_NO_DETECTION = BackendNote("ACL has no CL detection post-process function (NEON only, 20.08 and 24.11)",
                              refuses=("AclUnsupportedError", "ACL has no CL detection post-process function"))


def _detection_rows():
    """The detection post-process family: fast and regular NMS against the numpy kernel of
    the fallback (acl_bridge/models/fallback/detection.py, equal to TFLite's interpreter on
    the host); every output (rows past the detections zero)."""
    from acl_bridge.models.fallback import detection as Dt
    from acl_bridge.models.format.detection_options import DetectionOptions

    rows = []
    for name, regular in (("fast", False), ("regular", True)):
        kw = dict(max_detections=4, num_classes=3, use_regular_nms=regular, detections_per_class=3,
                  nms_score_threshold=0.3, nms_iou_threshold=0.5, scales=(10.0, 10.0, 5.0, 5.0))
        opts = DetectionOptions(4, 1, 3, regular, 0.3, 0.5, 3, 10.0, 10.0, 5.0, 5.0)
        rows.append(Case(
            f"detection_post_process-{name}-12anchors", "DetectionPostProcess",
            lambda regular=regular: _detection_inputs(12, 3, 6 if regular else 0),
            {"boxes": "float32", "classes": "float32", "scores": "float32", "num_detections": "float32"}, kw,
            lambda v, opts=opts: dict(zip(("boxes", "classes", "scores", "num_detections"), Dt.post_process(
                v["box_encodings"], v["class_scores"], v["anchors"], opts))), "f32", VARIANTS, {"cl": CL_NO_DETECTION}))
    # uint8 (QASYMM8) inputs, float32 outputs: ACL dequantizes every input as (q - zero point) x
    # scale (the fallback's step kernel likewise)
    quant = {"box_encodings": (0.05, 128), "class_scores": (1 / 250, 2), "anchors": (1 / 128, 0)}

    def quantized(seed=0):
        v = _detection_inputs(12, 3, seed)
        return {r: np.clip(np.round(x / np.float32(quant[r][0])) + quant[r][1], 0, 255).astype(np.uint8)
                for r, x in v.items()}

    opts = DetectionOptions(4, 1, 3, False, 0.3, 0.5, 3, 10.0, 10.0, 5.0, 5.0)
    rows.append(Case(
        "detection_post_process-fast-uint8-12anchors", "DetectionPostProcess", quantized,
        {"boxes": "float32", "classes": "float32", "scores": "float32", "num_detections": "float32"},
        dict(max_detections=4, num_classes=3, nms_score_threshold=0.3, nms_iou_threshold=0.5, quantization=quant),
        lambda v, opts=opts: dict(zip(("boxes", "classes", "scores", "num_detections"), Dt.post_process(
            *(Dt.dequantized(v[r], quant[r]) for r in ("box_encodings", "class_scores", "anchors")), opts))),
        "f32", VARIANTS, {"cl": CL_NO_DETECTION}))
    # int8 (QASYMM8_SIGNED) inputs, every zero point nonzero: the same dequantization
    quant8 = {"box_encodings": (0.05, -3), "class_scores": (1 / 250, -126), "anchors": (1 / 128, -128)}

    def signed(seed=1):
        v = _detection_inputs(12, 3, seed)
        return {r: np.clip(np.round(x / np.float32(quant8[r][0])) + quant8[r][1], -128, 127).astype(np.int8)
                for r, x in v.items()}

    regular = DetectionOptions(4, 1, 3, True, 0.3, 0.5, 3, 10.0, 10.0, 5.0, 5.0)
    rows.append(Case(
        "detection_post_process-regular-int8-12anchors", "DetectionPostProcess", signed,
        {"boxes": "float32", "classes": "float32", "scores": "float32", "num_detections": "float32"},
        dict(max_detections=4, num_classes=3, use_regular_nms=True, detections_per_class=3, nms_score_threshold=0.3,
             nms_iou_threshold=0.5, quantization=quant8),
        lambda v, opts=regular: dict(zip(("boxes", "classes", "scores", "num_detections"), Dt.post_process(
            *(Dt.dequantized(v[r], quant8[r]) for r in ("box_encodings", "class_scores", "anchors")), opts))),
        "f32", VARIANTS, {"cl": CL_NO_DETECTION}))
    return rows


CASES: Tuple[Case, ...] = tuple(_activation_rows() + _elementwise_rows() + _elementwise_family_rows()
                                + _reduction_rows()
                                + _window_rows() + _matrix_rows()
                                + _movement_rows() + _resize_rows() + _movement_family_rows() + _nn_rows())
CASES += tuple(_logic_rows() + _gelu_rows())
CASES += tuple(_detection_rows())


def _gather_nd_rows():
    """GATHER_ND with runtime indices (acl_bridge.families.gather_nd): params (3, 4, 3) viewed
    as (12, 3), int64 index rows (i, j) -> row 4 i + j (on CL the shim maps the indices)."""
    idx = np.array([[2, 3], [0, 0], [1, 2], [0, 3], [2, 0]], np.int64)
    return [_case("gather_nd-runtime-int64", "GatherNd",
                  lambda: {"src": arange_values((12, 3), scale=1.0), "indices": idx}, dict(dims=(3, 4)),
                  lambda v: v["src"][v["indices"] @ np.array([4, 1])], "exact")]


CASES += tuple(_gather_nd_rows())


def _lstm_inputs(seed, batch, n_input, n_cell, n_output, cifg=False, peephole=False, projection=False,
                 layer_norm=False):
    """Role -> values of one LSTM step (acl_bridge.families.lstm's roles), random state in."""
    from acl_bridge.families.lstm import ROLES

    rng = np.random.default_rng(seed)
    shapes = {1: (n_cell, n_input), 5: (n_cell, n_output), 9: (n_cell,), 12: (n_cell,), 20: (n_cell,)}
    present = {0, 18, 19} | {k + g for k in (1, 5, 12) for g in range(1 if cifg else 0, 4)}
    present |= {10, 11} | (set() if cifg else {9}) if peephole else set()
    present |= {16, 17} if projection else set()
    present |= {k for k in range(21 if cifg else 20, 24)} if layer_norm else set()
    v = {}
    for k, role in enumerate(ROLES[:24]):
        base = max(b for b in shapes if b <= k) if 0 < k < 16 or k >= 20 else None
        shape = {0: (batch, n_input), 16: (n_output, n_cell), 17: (n_output,), 18: (batch, n_output),
                 19: (batch, n_cell)}.get(k) or shapes[base]
        v[role] = rng.uniform(-0.6, 0.6, shape).astype(np.float32) if k in present else None
    for g in ("input", "forget", "cell", "output"):
        if v[f"{g}_layer_norm_weights"] is not None:
            v[f"{g}_layer_norm_weights"] += np.float32(1)
    return v


def _lstm_reference(v, cell_clip=0.0, projection_clip=0.0):
    from acl_bridge.families.lstm import ROLES
    from acl_bridge.models.fallback.lstm import lstm_step

    h, c = lstm_step(v["src"], v["output_state_in"], v["cell_state_in"], [v[r] for r in ROLES[:24]], "TANH",
                     cell_clip, projection_clip)
    return {"dst": h, "output_state_out": h, "cell_state_out": c}


def _lstm_rows():
    """The LSTM family: one step of TFLite's float LSTM, plain and with every optional part
    (CIFG, peepholes, projection, layer normalization, clips); references from the CPU
    fallback's kernel (acl_bridge/models/fallback/lstm.py, checked against TFLite's
    interpreter on the host)."""
    outputs = {"output_state_out": "float32", "cell_state_out": "float32", "dst": "float32"}
    everything = dict(cifg=True, peephole=True, projection=True, layer_norm=True)
    return [
        Case("lstm-b2-i3-c4", "Lstm", lambda: _lstm_inputs(31, 2, 3, 4, 4), outputs, {},
             _lstm_reference, "f32_transcendental", notes={"cl": POCL_CANNOT_BUILD}),
        Case("lstm-cifg-peephole-projection-layer_norm-clips", "Lstm", lambda: _lstm_inputs(32, 2, 3, 5, 3, **everything),
             outputs, dict(cell_clip=0.4, projection_clip=0.3),
             lambda v: _lstm_reference(v, 0.4, 0.3), "f32_transcendental", notes={"cl": POCL_CANNOT_BUILD}),
    ]


CASES += tuple(_lstm_rows())


# The kinds whose ACL kernel depends on the CPU: ACL picks their kernels at run time by CPU
# features and model (arm_gemm's and arm_conv's depthwise kernels: dot product, i8mm and bf16
# variants, Cortex-A53/A55 schedules; all of them in Debian's arm64-v8a builds). Every other
# kind runs the same NEON code on every CPU there (its SVE and FP16 variants are not compiled
# in: docker/README.md, CPU matrix). Their rows carry the `cpu` mark, which the CPU matrix of
# docker/emulate.sh selects (tests/test_cpu_matrix.py keeps this set and the native rooms'
# ACL functions in step).
CPU_KERNEL_KINDS = frozenset({"Convolution", "Deconvolution", "DepthwiseConvolution", "FullyConnected", "Gemm",
                              "Lstm", "MatMul", "QLstm"})


def cpu_marks(kind: str) -> list:
    """[pytest.mark.cpu] for a kind of CPU_KERNEL_KINDS, else []."""
    import pytest

    return [pytest.mark.cpu] if kind in CPU_KERNEL_KINDS else []


def params(backend: str):
    """pytest.param(case, variant) for every row and layout this backend runs, with ids (the
    rows of CPU_KERNEL_KINDS marked `cpu`)."""
    import pytest

    return [pytest.param(case, variant, id=f"{case.name}-{variant}", marks=cpu_marks(case.kind))
            for case in CASES for variant in case.variants_on(backend)]


def dtype_family(case: Case) -> str:
    """The row's dtype family: "quantized" (it takes a quantization), else "float16" (any
    float16 tensor), "float32" (any float tensor) or "integer"."""
    if "quantization" in case.kwargs:
        return "quantized"
    dtypes = {np.dtype(v.dtype) for v in case.inputs().values() if v is not None}
    dtypes |= {np.dtype(d) for d in case.outputs.values()}
    if np.dtype(np.float16) in dtypes:
        return "float16"
    return "float32" if any(d.kind == "f" for d in dtypes) else "integer"


# kinds whose CL program is another kind's with one operation define changed: the reduced
# table runs one of them (a kernel compiled under QEMU costs 10-20 s)
# the rooms of the first kinds (acl_bridge.functions' classes until issue 37): a row per kind,
# as before they moved (each kind there is an ACL function of its own)
PER_KIND_ROOMS = frozenset({"activation", "arithmetic", "conversion", "convolution", "copying", "pooling", "resize",
                            "softmax"})


def reduced_group(kind: str) -> str:
    """What a row stands for in the reduced table: its family for the kinds of a family room
    (acl_bridge.families: one native room and builder path each), its own kind for the rooms
    of PER_KIND_ROOMS."""
    from acl_bridge.families import FAMILIES

    family = next((f.__name__ for f in FAMILIES if kind in f.__all__), kind)
    return kind if family.rsplit(".", 1)[-1] in PER_KIND_ROOMS else family


def reduced_rows(cases, backend: str):
    """{(row name, layout)} of the reduced table: the first row of each function kind (of each
    family, for the family rooms' kinds) and dtype family (NHWC rows first: the models'
    layout), in one buffer layout with padding cells to check: "padded", else "offset" (int8
    rows), else the row's first. The emulated OpenCL stage runs these (docker/emulate.sh,
    trixie-opencl: the arm64 CL stack end to end, where a kernel compiled under QEMU costs
    10-20 s and each row a few seconds warm); the x86 OpenCL stage runs every row on PoCL and
    rusticl. On CL a row PoCL cannot build (its note expects the refusal) stands for nothing
    there: another row of its group, or none (the LSTM: a failed build costs 7.5 s a run)."""
    chosen: Dict[Tuple[str, str], Case] = {}
    for case in sorted(cases, key=lambda c: c.kwargs.get("data_layout") != "NHWC"):  # stable: table order
        note = case.notes.get("cl")
        if backend == "cl" and note is not None and note.refuses and POCL_CANNOT_BUILD.devices == note.devices:
            continue
        chosen.setdefault((reduced_group(case.kind), dtype_family(case)), case)
    rows = set()
    for case in chosen.values():
        variants = case.variants_on(backend)
        if variants:
            rows.add((case.name, next((v for v in ("padded", "offset") if v in variants), variants[0])))
    return rows


# ---------------------------------------------------------------------------- int8 (quantized) rows
# TFLite's full-integer conventions (issue 22): int8 activations (QASYMM8_SIGNED) with a scale
# and a zero point, convolution and depthwise weights int8 per output channel (symmetric:
# QSYMM8_PER_CHANNEL), fully-connected weights per tensor, int32 bias with scale input x weight
# scale, softmax output scale 1/256 zero point -128, fused RELU/RELU6 as clamps in the output's
# quantized domain. References compute in float64 from the stored integers and round once to
# nearest (half away from zero, TFLite's habit); ACL's fixed-point requantization may differ
# by one step where the real value is within rounding error of a half: tolerance "one_step".
# Kept apart from CASES (the CL suite runs CASES): tests/acl/test_int8_functions.py runs them.
INT8_VARIANTS = ("contiguous", "offset", "negotiated")


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def requantize(real, scale, zero_point, lo=-128, hi=127):
    """The stored int8 value of real values: clip(round(real / scale) + zero_point)."""
    return np.clip(_round_half_away(_f64(real) / scale) + zero_point, lo, hi)


def activation_bounds(activation, act_a, scale, zero_point):
    """A fused activation as a clamp of the quantized output (TFLite's CalculateActivationRange)."""
    lo, hi = -128, 127
    if activation in ("relu", "bounded_relu"):
        lo = max(lo, zero_point)
    if activation == "bounded_relu":
        hi = min(hi, int(_round_half_away(act_a / scale) + zero_point))
    return lo, hi


def _int8(rng, shape, lo=-128, hi=127):
    return rng.integers(lo, hi + 1, size=shape).astype(np.int8)


def _conv_data(kind, seed, shape, wshape, m=1):
    """Inputs and quantization of one int8 convolution row (seeded; the output scale spreads
    the results over most of the int8 range)."""
    rng = np.random.default_rng(seed)
    x = _int8(rng, shape)
    w = _int8(rng, wshape, -90, 90)
    channels = wshape[0] if kind == "Convolution" else wshape[-1]
    sx, zx = 0.05, -3
    sw = tuple(float(v) for v in rng.uniform(0.004, 0.03, channels))
    bias = rng.integers(-2000, 2000, size=channels).astype(np.int32)
    return x, w, bias, (sx, zx), sw


def _int8_conv_rows():
    rows = []
    specs = [  # name, kind, x shape (NHWC), weights shape, stride, pad (t, b, l, r), m, activation
        ("k3s1p1", "Convolution", (1, 6, 7, 5), (4, 3, 3, 5), (1, 1), (1, 1, 1, 1), 1, None),
        ("k3s2p0-relu", "Convolution", (2, 7, 7, 3), (6, 3, 3, 3), (2, 2), (0, 0, 0, 0), 1, "relu"),
        ("k1-relu6", "Convolution", (1, 5, 6, 8), (5, 1, 1, 8), (1, 1), (0, 0, 0, 0), 1, "bounded_relu"),
        ("k3s1p1m1-relu6", "DepthwiseConvolution", (1, 6, 7, 4), (3, 3, 4), (1, 1), (1, 1, 1, 1), 1,
         "bounded_relu"),
        ("k3s2p1m2", "DepthwiseConvolution", (1, 7, 8, 3), (3, 3, 6), (2, 2), (1, 1, 1, 1), 2, None),
    ]
    for seed, (name, kind, xs, ws, s, pad, m, act) in enumerate(specs):
        x, w, bias, (sx, zx), sw = _conv_data(kind, seed, xs, ws, m)
        sw_arr = np.asarray(sw)
        if kind == "Convolution":
            acc = conv_ref(x.astype(np.float64) - zx, w, bias, s, pad, True)
        else:
            acc = depthwise_ref(x.astype(np.float64) - zx, w, bias, s, pad, True, m)
        real = acc * sx * sw_arr
        sy = float(np.max(np.abs(real))) / 100.0
        zy = 5
        lo, hi = activation_bounds(act, 6.0, sy, zy)
        quant = {"src": (sx, zx), "weights": (sw, 0), "bias": (tuple(sx * v for v in sw), 0), "dst": (sy, zy)}
        kwargs = dict(stride=s, padding=np_pad(pad), data_layout="NHWC", quantization=quant,
                      activation=act, act_a=6.0 if act == "bounded_relu" else 0.0)
        if kind == "DepthwiseConvolution":
            kwargs["depth_multiplier"] = m
        prefix = "int8-convolution" if kind == "Convolution" else "int8-depthwise"
        notes = {}
        rows.append(_case(
            f"{prefix}-{name}-perchannel", kind,
            lambda x=x, w=w, bias=bias: {"src": x, "weights": w, "bias": bias}, kwargs,
            lambda v, real=real, sy=sy, zy=zy, lo=lo, hi=hi: requantize(real, sy, zy, lo, hi), "one_step",
            dst_dtype=np.int8, variants=INT8_VARIANTS, **notes))
    # per-tensor int8 weights (QASYMM8_SIGNED, zero point 0) on a convolution
    x, w, bias, (sx, zx), _ = _conv_data("Convolution", 11, (1, 5, 5, 4), (3, 3, 3, 4))
    swt = 0.01
    real = conv_ref(x.astype(np.float64) - zx, w, bias, (1, 1), (1, 1, 1, 1), True) * sx * swt
    sy = float(np.max(np.abs(real))) / 100.0
    rows.append(_case(
        "int8-convolution-k3s1p1-pertensor", "Convolution",
        lambda x=x, w=w, bias=bias: {"src": x, "weights": w, "bias": bias},
        dict(stride=(1, 1), padding=1, data_layout="NHWC",
             quantization={"src": (sx, zx), "weights": (swt, 0), "bias": (sx * swt, 0), "dst": (sy, -7)}),
        lambda v, real=real, sy=sy: requantize(real, sy, -7), "one_step", dst_dtype=np.int8, variants=INT8_VARIANTS))
    return rows


def _int8_other_rows():
    rows = []
    rng = np.random.default_rng(100)
    # fully connected: int8 per-tensor weights, int32 bias
    x, w = _int8(rng, (3, 10)), _int8(rng, (6, 10), -100, 100)
    bias = rng.integers(-3000, 3000, size=6).astype(np.int32)
    sx, zx, swt = 0.04, 2, 0.02
    real = ((x.astype(np.float64) - zx) @ w.astype(np.float64).T + bias) * sx * swt
    sy = float(np.max(np.abs(real))) / 110.0
    rows.append(_case(
        "int8-fully_connected", "FullyConnected", lambda: {"src": x, "weights": w, "bias": bias},
        dict(quantization={"src": (sx, zx), "weights": (swt, 0), "bias": (sx * swt, 0), "dst": (sy, -4)}),
        lambda v, real=real, sy=sy: requantize(real, sy, -4), "one_step", dst_dtype=np.int8, variants=INT8_VARIANTS))
    # pooling: same quantization in and out (TFLite's AVERAGE/MAX_POOL_2D)
    xp = _int8(rng, (1, 7, 8, 5))
    for pool, k, s, pad in (("max", (2, 2), (2, 2), (0, 0, 0, 0)), ("avg", (3, 3), (2, 2), (1, 1, 1, 1)),
                            ("avg", (7, 8), (1, 1), (0, 0, 0, 0))):
        ref = pool_ref(xp.astype(np.float64), pool, k, s, pad, True)
        # Known gap (as the 1x1 resize rows): ACL 20.08 asks for right padding 11 on the 1x1x5
        # output of the global average pooling, which the bridge cannot recover from a buffer
        # whose rows are one element long, so the negotiated buffer would be staged.
        variants = INT8_VARIANTS if k != (7, 8) else tuple(v for v in INT8_VARIANTS if v != "negotiated")
        rows.append(_case(
            f"int8-pooling-{pool}{k[0]}x{k[1]}s{s[0]}p{pad[0]}", "Pooling", lambda: {"src": xp},
            dict(pool_type=pool, kernel=k, stride=s, padding=np_pad(pad), data_layout="NHWC",
                 quantization={"src": (0.1, -1), "dst": (0.1, -1)}),
            lambda v, ref=ref: np.clip(_round_half_away(ref), -128, 127), "exact" if pool == "max" else "one_step",
            dst_dtype=np.int8, variants=variants))
    # addition with three different scales and zero points
    a, b = _int8(rng, (1, 4, 5, 6)), _int8(rng, (1, 4, 5, 6))
    qa, qb, qy = (0.05, -10), (0.02, 7), (0.06, 3)
    real = (a.astype(np.float64) - qa[1]) * qa[0] + (b.astype(np.float64) - qb[1]) * qb[0]
    rows.append(_case(
        "int8-add-three_scales", "Add", lambda: {"a": a, "b": b},
        dict(quantization={"a": qa, "b": qb, "dst": qy}),
        lambda v, real=real: requantize(real, *qy), "one_step", dst_dtype=np.int8, variants=INT8_VARIANTS))
    # and with a fused relu: the sum clamped at the output's zero point (TFLite's fused RELU)
    rows.append(_case(
        "int8-add-three_scales-relu", "Add", lambda: {"a": a, "b": b},
        dict(quantization={"a": qa, "b": qb, "dst": qy}, activation="relu"),
        lambda v, real=real: np.maximum(requantize(real, *qy), qy[1]), "one_step", dst_dtype=np.int8,
        variants=INT8_VARIANTS))
    # maximum / minimum of one quantization (TFLite's requirement): the stored values compared,
    # b broadcast along the channels; squared difference with three quantizations
    q = (0.05, -4)
    for op in ("maximum", "minimum"):
        rows.append(_case(
            f"int8-{op}-one_quantization", ELEMENTWISE_BINARY[op][0], lambda: {"a": a, "b": b[:, :1, :1, :]},
            dict(quantization={"a": q, "b": q, "dst": q}),
            lambda v, op=op: ELEMENTWISE_BINARY[op][1](v["a"], v["b"]), "exact", dst_dtype=np.int8,
            variants=INT8_VARIANTS))
    real_sd = np.square((a.astype(np.float64) - qa[1]) * qa[0] - (b.astype(np.float64) - qb[1]) * qb[0])
    s_sd = float(real_sd.max()) / 250.0
    rows.append(_case(
        "int8-squared_difference-three_scales", "SquaredDifference", lambda: {"a": a, "b": b},
        dict(quantization={"a": qa, "b": qb, "dst": (s_sd, -128)}),
        lambda v: requantize(real_sd, s_sd, -128), "one_step", dst_dtype=np.int8, variants=INT8_VARIANTS))
    # softmax: int8 out with scale 1/256, zero point -128
    xs = _int8(rng, (3, 10))
    qs = (0.1, -5)
    p = _softmax((xs.astype(np.float64) - qs[1]) * qs[0], False)
    rows.append(_case(
        "int8-softmax", "Softmax", lambda: {"src": xs},
        dict(quantization={"src": qs, "dst": (1 / 256, -128)}),
        lambda v: requantize(p, 1 / 256, -128), "one_step", dst_dtype=np.int8, variants=INT8_VARIANTS))
    # quantize float32 -> int8, requantize int8 -> int8, dequantize int8 -> float32
    xf = (rng.standard_normal((2, 3, 4, 5)) * 3).astype(np.float32)
    rows.append(_case(
        "int8-quantize-float32", "Quantize", lambda: {"src": xf},
        dict(quantization={"dst": (0.05, -6)}), lambda v: requantize(xf, 0.05, -6), "one_step",
        dst_dtype=np.int8, variants=INT8_VARIANTS))
    xq = _int8(rng, (2, 3, 4, 5))
    rows.append(_case(
        "int8-quantize-requantize", "Quantize", lambda: {"src": xq},
        dict(quantization={"src": (0.05, -6), "dst": (0.08, 9)}),
        lambda v: requantize((xq.astype(np.float64) + 6) * 0.05, 0.08, 9), "one_step",
        dst_dtype=np.int8, variants=INT8_VARIANTS))
    rows.append(_case(
        "int8-dequantize", "Dequantize", lambda: {"src": xq},
        dict(quantization={"src": (0.05, -6)}), lambda v: (xq.astype(np.float64) + 6) * 0.05, "f32",
        variants=INT8_VARIANTS))
    rows.append(_case(
        "int8-copy", "Copy", lambda: {"src": xq}, dict(quantization={"src": (0.05, -6), "dst": (0.05, -6)}),
        lambda v: xq, "exact", dst_dtype=np.int8, variants=INT8_VARIANTS))
    return rows


def _int8_nn_rows():
    """int8 deconvolution (per-channel and per-tensor weights, int32 bias) and nearest resize
    (one quantization in and out: a move of the stored values)."""
    from acl_bridge.models.fallback import nn_layers as L

    rows = []
    for name, seed, per_channel in (("perchannel", 21, True), ("pertensor", 22, False)):
        x, w, bias, (sx, zx), sw = _conv_data("Convolution", seed, (1, 4, 5, 3), (4, 3, 3, 3))
        sw = sw if per_channel else 0.01
        real = ((L.transposed_convolution_sum(x.astype(np.float64) - zx, w.astype(np.float64), (2, 2), (0, 1, 0, 1))
                 + bias) * sx * np.asarray(sw))
        sy = float(np.max(np.abs(real))) / 100.0
        bq = (tuple(sx * v for v in sw), 0) if per_channel else (sx * sw, 0)
        rows.append(_case(
            f"int8-deconvolution-k3s2p0101-{name}", "Deconvolution",
            lambda x=x, w=w, bias=bias: {"src": x, "weights": w, "bias": bias},
            dict(stride=(2, 2), padding=np_pad((0, 1, 0, 1)), data_layout="NHWC",
                 quantization={"src": (sx, zx), "weights": (sw, 0), "bias": bq, "dst": (sy, 5)}),
            lambda v, real=real, sy=sy: requantize(real, sy, 5), "one_step", dst_dtype=np.int8,
            variants=INT8_VARIANTS))
    xr = _int8(np.random.default_rng(23), (1, 5, 7, 2))
    rows.append(_case(
        "int8-resize-nearest-half_pixel", "Resize", lambda: {"src": xr},
        dict(interpolation="nearest", half_pixel_centers=True, data_layout="NHWC",
             quantization={"src": (0.05, -6), "dst": (0.05, -6)}),
        lambda v: L.resize_nearest(xr, (9, 4), half_pixel_centers=True), "exact", dst_dtype=np.int8,
        variants=INT8_VARIANTS))
    return rows


INT8_CASES: Tuple[Case, ...] = tuple(_int8_conv_rows() + _int8_other_rows() + _int8_nn_rows())


def _pool3d_rows():
    """The 3-D pooling family (NDHWC given as data_layout="NHWC"): references from the plan's
    numpy step kernel (acl_bridge/models/fallback/pooling3d.py, checked against a loop-by-loop
    reading of TFLite's pooling3d.cc on the host: tests/models/test_one_operator_pool3d.py)."""
    from acl_bridge.models.fallback.pooling3d import pool3d

    rows = []
    for pool, x, k, s, pad, out in (("avg", (1, 5, 6, 7, 2), (2, 3, 2), (2, 2, 2), ((0, 1), (1, 1), (0, 1)), (1, 3, 3, 4, 2)),
                                    ("max", (2, 4, 5, 4, 3), (2, 2, 2), (1, 2, 2), ((0, 0),) * 3, (2, 3, 2, 2, 3))):
        rows.append(_case(
            f"pooling_3d-{pool}_{'x'.join(map(str, k))}s{'x'.join(map(str, s))}-NDHWC", "Pooling3D",
            lambda x=x: {"src": arange_values(x, modulo=13, scale=0.25)},
            dict(pool_type=pool, kernel=k, stride=s, padding=pad, data_layout="NHWC"),
            lambda v, pool=pool, k=k, s=s, pad=pad, out=out: pool3d(_f64(v["src"]), pool, k, s, pad, out),
            "f32" if pool == "avg" else "exact"))
    # int8, one quantization in and out (TFLite's requirement): the average of the stored values
    # rounded half away from zero (TFLite's kernel); ACL's rounding of ties may differ by one step
    q = {"src": (0.05, 3), "dst": (0.05, 3)}
    rows.append(_case(
        "pooling_3d-avg_3x3x3s1-same-int8-NDHWC", "Pooling3D",
        lambda: {"src": arange_values((1, 3, 4, 4, 2), dtype="int8", scale=1.0, modulo=37)},
        dict(pool_type="avg", kernel=(3, 3, 3), stride=(1, 1, 1), padding=((1, 1),) * 3, data_layout="NHWC",
             quantization=q),
        lambda v: pool3d(v["src"], "avg", (3, 3, 3), (1, 1, 1), ((1, 1),) * 3, (1, 3, 4, 4, 2)), "one_step",
        dst_dtype="int8"))
    return rows


CASES += tuple(_pool3d_rows())


# ---------------------------------------------------------------------------- the quantized LSTM
QLSTM_X, QLSTM_H, QLSTM_CELL = (4.0 / 255, 3), (2.0 / 255, -2), 2.0 ** -11
CL_NO_QLSTM = BackendNote("the qlstm room wires NEQLSTMLayer only (native/acl_shim_qlstm.cpp)",
                          refuses=("AclUnsupportedError", "qlstm: NEON only"))


def qlstm_inputs(seed, batch, n_input, n_cell, n_output, cifg=False, peephole=False, layer_norm=False):
    """(role -> values, role -> quantization) of one integer LSTM step (acl_bridge.families.lstm's
    roles; TFLite's 8x8_16 types), a random state in; no projection (ACL's QLSTMLayer adds the
    output state in to the projection, TFLite does not)."""
    from acl_bridge.families.lstm import ROLES

    rng = np.random.default_rng(seed)
    v: Dict[str, Optional[np.ndarray]] = {r: None for r in ROLES[:24]}
    q: Dict[str, Tuple[float, int]] = {}
    v["src"] = rng.integers(-128, 128, (batch, n_input)).astype(np.int8)
    v["output_state_in"] = rng.integers(-128, 128, (batch, n_output)).astype(np.int8)
    # |cell| < 1 (2048 steps of 2^-11): ACL's QLSTMLayer writes forget gate x cell state into a Q0.15
    # tensor (its forget gate's), which saturates at 1 (measured: 2980 where TFLite's kernel gives 8589)
    v["cell_state_in"] = rng.integers(-1500, 1500, (batch, n_cell)).astype(np.int16)
    q.update(src=QLSTM_X, output_state_in=QLSTM_H, output_state_out=QLSTM_H, dst=QLSTM_H,
             cell_state_in=(QLSTM_CELL, 0), cell_state_out=(QLSTM_CELL, 0))
    for g in ("input", "forget", "cell", "output"):
        if g == "input" and cifg:
            continue
        for kind, n in (("input", n_input), ("recurrent", n_output)):
            v[f"{kind}_to_{g}_weights"] = rng.integers(-127, 128, (n_cell, n)).astype(np.int8)
            q[f"{kind}_to_{g}_weights"] = (0.6 / 127, 0)
        v[{"input": "input_gate_bias", "cell": "cell_bias"}.get(g, f"{g}_gate_bias")] = \
            rng.integers(-1000, 1000, n_cell).astype(np.int32)
        if layer_norm:
            v[f"{g}_layer_norm_weights"] = rng.integers(10000, 32767, n_cell).astype(np.int16)
            q[f"{g}_layer_norm_weights"] = (1.6 / 32767, 0)
        if peephole and g != "cell":
            v[f"cell_to_{g}_weights"] = rng.integers(-16000, 16000, n_cell).astype(np.int16)
            q[f"cell_to_{g}_weights"] = (0.6 / 32767, 0)
    return v, q


def qlstm_reference(v, q, matmul_scales, hidden_q, cell_clip=0.0):
    """TFLite's integer LSTM step on the row's values (acl_bridge.models.fallback.lstm_integer,
    bit for bit with TFLite's interpreter on the host)."""
    from acl_bridge.families.lstm import ROLES
    from acl_bridge.models.fallback.lstm_integer import integer_lstm_step, prepare_integer_lstm
    from acl_bridge.models.lowering.lstm_operands import LstmOperands

    x, h, c = v["src"], v["output_state_in"], v["cell_state_in"]
    operands = tuple(None if k == 0 else v[r] for k, r in enumerate(ROLES[:24]))
    batch, n_input = x.shape
    n_cell, n_output = c.shape[1], h.shape[1]
    cifg = v["input_to_input_weights"] is None
    lstm = LstmOperands(False, True, batch, 1, n_input, n_cell, n_output, cifg, v["cell_to_forget_weights"] is not None,
                        False, v["forget_layer_norm_weights"] is not None, "TANH", cell_clip, 0.0, operands)
    scales = {k: q[r][0] for k, r in enumerate(ROLES[:24]) if r in q}
    zero_points = {k: q[r][1] for k, r in enumerate(ROLES[:24]) if r in q}
    p = prepare_integer_lstm(lstm, scales, zero_points, matmul_scales, hidden_q[0], hidden_q[1], QLSTM_H[0])
    h2, c2 = integer_lstm_step(x.astype(np.int64), h.astype(np.int64), c.astype(np.int64), p)
    return {"dst": h2.astype(np.int8), "output_state_out": h2.astype(np.int8), "cell_state_out": c2.astype(np.int16)}


def _qlstm_rows():
    """The quantized LSTM: one step of TFLite's integer LSTM on ACL's QLSTMLayer against the
    fallback's integer kernel, within the measured "qlstm" tolerance (not bit-exact:
    docs/models.md). No row with a cell clip: ACL clips with LU_BOUNDED_RELU(a=-clip, b=clip),
    min(a, max(b, x)), so every cell state becomes -clip, saturated (tests/acl/test_qlstm.py)."""
    outputs = {"output_state_out": "int8", "dst": "int8"}  # the cell state: tests/acl/test_qlstm.py
    rows = []
    for name, shape, variant, scales, clip in (
            ("qlstm-b2-i3-c4", (2, 3, 4, 4), {}, (2.0 ** -12,) * 4, 0.0),):
        def inputs(shape=shape, variant=variant):
            return qlstm_inputs(41, *shape, **variant)[0]

        def reference(v, shape=shape, variant=variant, scales=scales, clip=clip):
            want = qlstm_reference(v, qlstm_inputs(41, *shape, **variant)[1], scales, QLSTM_H, clip)
            return {r: want[r] for r in ("dst", "output_state_out")}

        quant = qlstm_inputs(41, *shape, **variant)[1]
        rows.append(Case(name, "QLstm", inputs, outputs,
                         dict(quantization=quant, matmul_scales=scales, hidden_scale=QLSTM_H[0],
                              hidden_zero_point=QLSTM_H[1], cell_clip=clip),
                         reference, "qlstm", INT8_VARIANTS, {"cl": CL_NO_QLSTM}))
    return rows


INT8_CASES += tuple(_qlstm_rows())
