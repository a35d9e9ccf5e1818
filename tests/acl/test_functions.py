"""Every ACL function against a numpy reference, on every buffer layout.

For each function and layout variant (tests/acl/helpers.py): np.arange-style inputs, two
runs of one configured function, then
* the result matches numpy within the tolerance of its data type (TOLERANCES);
* guard bytes before/after every buffer and every padding or gap cell are unchanged;
* a tensor is staged (copy fallback) exactly when its buffer lacks the padding ACL asked
  for or ACL cannot express its layout, and the copies are counted; otherwise the ACL
  tensor's data pointer is the NdArray's own;
* with the negotiated padding allocated up front nothing is staged.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ndarray import ShapeDescriptor

from .helpers import VARIANTS, Guarded, arange_values

pytestmark = pytest.mark.acl

# (rtol, atol) per kind of computation and data type
TOLERANCES = {
    "exact": (0.0, 0.0),  # moves, max, relu-like piecewise linear ops
    "f32": (1e-6, 1e-6),  # one rounding (add, mul, avg)
    "f32_transcendental": (1e-4, 1e-5),  # ACL's vectorised exp/log/tanh approximations
    "f32_reduction": (1e-5, 1e-4),  # dot products (conv, gemm, fc): summation order differs
    "f16": (1e-3, 1e-3),
}


PADDING_LOG = {}  # (function, params) -> {role: (padding asked for, writes outside)}; see conftest


def _fns():
    from acl_bridge import functions

    return functions


def _skip_without_f16(e):
    if "does not support F16" in str(e):  # Debian's 20.08 is built for armv8.0
        pytest.skip(f"this ACL build has no F16: {e}")


def run_case(cls, inputs, outputs, kwargs, expected, variant, tol="f32", *, runs=2):
    """inputs: {role: ndarray values or None}; outputs: {role: (shape, dtype)};
    expected: {role: ndarray}. Tensors are passed in cls.roles order.

    The plan is the contract (its rules are tested on the host, tests/test_plan.py): here
    the function must do what its plan says (staged tensors copied and counted, in-place
    tensors computed in the NdArray's own memory) and, given the padding ACL asked for in
    buffers the bridge owns (the ``negotiated`` variant), copy nothing."""
    from acl_bridge.native import AclStatusError
    from acl_bridge.plan import Action

    specs = {}
    for role in cls.roles:
        if role in inputs:
            v = inputs[role]
            specs[role] = None if v is None else (v.shape, v.dtype)
        else:
            specs[role] = outputs[role]
    if variant == "negotiated":
        args = [None if s is None else ShapeDescriptor.create(*s) for s in specs.values()]
        try:
            pads = cls.required_padding(*args, **kwargs)
        except AclStatusError as e:
            _skip_without_f16(e)
            raise
        g = {r: None if s is None else Guarded(s[0], s[1], padding=pads[r], bridge=True) for r, s in specs.items()}
    else:
        g = {r: None if s is None else Guarded(s[0], s[1], variant) for r, s in specs.items()}
    for role, v in inputs.items():
        if v is not None:
            g[role].set(v)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            f = cls(*[None if x is None else x.array for x in g.values()], **kwargs)
        except AclStatusError as e:
            _skip_without_f16(e)
            raise
    assert f.staged == f.plan.staged
    for t in f.plan.tensors:
        assert (t.action is Action.ABSENT) == (g[t.role] is None)
        if t.action is Action.STAGED:
            assert t.reason is not None and t.detail, f.plan.describe()
    if variant == "negotiated":
        assert f.staged == (), f.plan.describe()
    if variant == "contiguous":  # dense, aligned, representable: only ACL's wishes stage it
        assert all(t.reason is None or t.reason.value not in ("misaligned", "not_representable", "collapse_unsafe",
                                                              "layout_mismatch") for t in f.plan.tensors), f.plan.describe()
    PADDING_LOG.setdefault((cls.__name__, str(sorted(kwargs.items()))), {}).update(
        {r: (p.as_tuple(), f.writes_outside.get(r), f.layout_ok) for r, p in f.padding.items() if g[r] is not None})
    for _ in range(runs):
        f.run()
    assert f.copy_count == runs * f.plan.copies_per_run
    rtol, atol = TOLERANCES[tol]
    for role, want in expected.items():
        got = g[role].numpy()
        if tol == "exact":
            np.testing.assert_array_equal(got, want, err_msg=f"{role} ({variant})")
        else:
            np.testing.assert_allclose(got.astype(np.float64), np.asarray(want, np.float64), rtol=rtol,
                                       atol=atol * max(1.0, float(np.max(np.abs(want)))),
                                       err_msg=f"{role} ({variant})")
    for role, x in g.items():
        if x is not None:
            assert x.untouched(), f"{role} ({variant}): bytes ACL may not write changed at {x.changed_outside()[:16]}"
            if role not in f.staged:
                assert f.tensors[role].data_ptr == x.array.data_ptr
    f.close()
    return f


# ---------------------------------------------------------------------------- activation
ACTIVATIONS = [
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


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name,a,b,ref,tol", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation(name, a, b, ref, tol, variant):
    shape = (2, 2, 5, 5)  # the ADR's example
    x = arange_values(shape, modulo=23, scale=0.25)
    run_case(_fns().Activation, {"src": x}, {"dst": (shape, np.float32)}, dict(function=name, a=a, b=b),
             {"dst": ref(x.astype(np.float64))}, variant, tol)


def test_activation_sqrt():
    shape = (3, 7)
    x = arange_values(shape, scale=0.5)
    run_case(_fns().Activation, {"src": x}, {"dst": (shape, np.float32)}, dict(function="sqrt"),
             {"dst": np.sqrt(x.astype(np.float64))}, "padded", "f32_transcendental")


@pytest.mark.parametrize("variant", ["contiguous", "padded"])
def test_activation_f16(variant):
    shape = (2, 3, 9)
    x = arange_values(shape, np.float16, modulo=17)
    run_case(_fns().Activation, {"src": x}, {"dst": (shape, np.float16)}, dict(function="relu"),
             {"dst": np.maximum(x, 0)}, variant, "exact")


# ---------------------------------------------------------------------------- elementwise
BROADCASTS = [((2, 3, 4, 5), (2, 3, 4, 5)), ((2, 3, 4, 5), (1, 1, 1, 5)), ((2, 3, 4, 5), (1, 3, 1, 1)),
              ((2, 3, 4, 5), (2, 3, 4, 1))]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=lambda s: f"{s[0]}x{s[1]}".replace(" ", ""))
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_elementwise(op, shapes, variant):
    fn = _fns()
    sa, sb = shapes
    a = arange_values(sa, modulo=19)
    b = arange_values(sb, scale=0.5, modulo=7) + 0.125
    cls = {"add": fn.Add, "sub": fn.Sub, "mul": fn.Mul}[op]
    ref = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](a, b)
    run_case(cls, {"a": a, "b": b}, {"dst": (ref.shape, np.float32)}, {}, {"dst": ref}, variant, "f32")


# alpha shapes (NCHW functions): one slope per channel, per column, per element, one for all;
# NHWC's per-channel slopes are in benchmarks/kinds.py (test_zero_copy) and the model tests
PRELU_ALPHAS = [(1, 3, 1, 1), (1, 1, 1, 5), (2, 3, 4, 5), (1, 1, 1, 1)]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("alpha_shape", PRELU_ALPHAS, ids=lambda s: "x".join(map(str, s)))
def test_prelu(alpha_shape, variant):
    x = arange_values((2, 3, 4, 5), modulo=19)
    alpha = arange_values(alpha_shape, scale=0.25, modulo=7) - 0.5  # negative slopes too
    ref = np.where(x > 0, x, alpha * x)
    run_case(_fns().PRelu, {"src": x, "alpha": alpha}, {"dst": (ref.shape, np.float32)}, {}, {"dst": ref},
             variant, "f32")


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float16])
def test_add_other_types(dtype):
    shape = (3, 17)
    a = (np.arange(51) % 50).reshape(shape).astype(dtype)
    b = (np.arange(51) % 7).reshape(shape).astype(dtype)
    run_case(_fns().Add, {"a": a, "b": b}, {"dst": (shape, dtype)}, {}, {"dst": a + b}, "padded", "exact")


# ---------------------------------------------------------------------------- pooling
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


POOLS = [("max", (2, 2), (2, 2), (0, 0, 0, 0)), ("avg", (2, 2), (2, 2), (0, 0, 0, 0)),
         ("max", (3, 3), (1, 1), (1, 1, 1, 1)), ("avg", (3, 3), (2, 2), (1, 1, 1, 1)),
         ("max", (3, 2), (1, 2), (0, 0, 0, 0))]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("kind,k,s,pad", POOLS, ids=[f"{p[0]}{p[1][0]}x{p[1][1]}s{p[2][0]}p{p[3][0]}" for p in POOLS])
def test_pooling(kind, k, s, pad, layout, variant):
    nhwc = layout == "NHWC"
    shape = (2, 7, 9, 3) if nhwc else (2, 3, 7, 9)
    x = arange_values(shape, modulo=31)
    ref = pool_ref(x, kind, k, s, pad, nhwc)
    run_case(_fns().Pooling, {"src": x}, {"dst": (ref.shape, np.float32)},
             dict(pool_type=kind, kernel=k, stride=s, padding=np_pad(pad), data_layout=layout),
             {"dst": ref}, variant, "exact" if kind == "max" else "f32")


# ---------------------------------------------------------------------------- convolution
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


CONVS = [((3, 3), (1, 1), (1, 1, 1, 1), True), ((3, 3), (2, 2), (0, 0, 0, 0), True),
         ((1, 1), (1, 1), (0, 0, 0, 0), False), ((5, 3), (1, 2), (2, 2, 1, 1), True)]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("k,s,pad,bias", CONVS, ids=[f"k{c[0][0]}x{c[0][1]}s{c[1][0]}{c[1][1]}p{c[2][0]}{'b' if c[3] else ''}" for c in CONVS])
def test_convolution(k, s, pad, bias, layout, variant):
    nhwc = layout == "NHWC"
    n, c, h, w_, o = 2, 3, 8, 9, 4
    x = arange_values((n, h, w_, c) if nhwc else (n, c, h, w_), modulo=13, scale=0.125)
    wshape = (o, k[0], k[1], c) if nhwc else (o, c, k[0], k[1])
    wt = arange_values(wshape, modulo=7, scale=0.25)
    b = arange_values((o,), scale=0.5) if bias else None
    ref = conv_ref(x, wt, b, s, pad, nhwc)
    run_case(_fns().Convolution, {"src": x, "weights": wt, "bias": b}, {"dst": (ref.shape, np.float32)},
             dict(stride=s, padding=np_pad(pad), data_layout=layout), {"dst": ref}, variant, "f32_reduction")


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


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("k,s,pad,m", [((3, 3), (1, 1), (1, 1, 1, 1), 1), ((3, 3), (2, 2), (0, 0, 0, 0), 2)])
def test_depthwise(k, s, pad, m, layout, variant):
    nhwc = layout == "NHWC"
    n, c, h, w_ = 2, 3, 8, 9
    x = arange_values((n, h, w_, c) if nhwc else (n, c, h, w_), modulo=13, scale=0.125)
    wt = arange_values((k[0], k[1], c * m) if nhwc else (c * m, k[0], k[1]), modulo=7, scale=0.25)
    b = arange_values((c * m,), scale=0.5)
    ref = depthwise_ref(x, wt, b, s, pad, nhwc, m)
    run_case(_fns().DepthwiseConvolution, {"src": x, "weights": wt, "bias": b}, {"dst": (ref.shape, np.float32)},
             dict(stride=s, padding=np_pad(pad), depth_multiplier=m, data_layout=layout), {"dst": ref}, variant,
             "f32_reduction")


# ---------------------------------------------------------------------------- matrices
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("bias", [True, False])
def test_fully_connected(bias, variant):
    x = arange_values((4, 10), modulo=11, scale=0.25)
    wt = arange_values((6, 10), modulo=5, scale=0.5)
    b = arange_values((6,), scale=0.5) if bias else None
    ref = x.astype(np.float64) @ wt.T.astype(np.float64) + (0 if b is None else b)
    run_case(_fns().FullyConnected, {"src": x, "weights": wt, "bias": b}, {"dst": (ref.shape, np.float32)},
             {}, {"dst": ref}, variant, "f32_reduction")


GEMM_CASES = [(None, 1.5, 0.0), ((6, 7), 1.5, 0.5), ((6, 7), 1.0, 1.0), ((7,), 1.0, 1.0)]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("c_shape,alpha,beta", GEMM_CASES, ids=["no_c", "c_beta_half", "c_beta_1", "bias_row"])
def test_gemm(c_shape, alpha, beta, variant):
    """beta == 1 with a full c matrix: 24.11's NEGEMM alone would broadcast c's first row."""
    a = arange_values((6, 10), modulo=11, scale=0.25)
    b = arange_values((10, 7), modulo=5, scale=0.5)
    c = None if c_shape is None else arange_values(c_shape, modulo=3)
    ref = alpha * (a.astype(np.float64) @ b) + (0 if c is None else beta * c)
    run_case(_fns().Gemm, {"a": a, "b": b, "c": c}, {"dst": (ref.shape, np.float32)},
             dict(alpha=alpha, beta=beta), {"dst": ref}, variant, "f32_reduction")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("log", [False, True])
def test_softmax(log, variant):
    x = arange_values((4, 3, 10), modulo=9, scale=0.5)
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    ref = e / e.sum(axis=-1, keepdims=True)
    if log:
        ref = np.log(ref)
    run_case(_fns().Softmax, {"src": x}, {"dst": (x.shape, np.float32)}, dict(log=log), {"dst": ref},
             variant, "f32_transcendental")


# ---------------------------------------------------------------------------- data movement
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("axes", [(0, 2, 3, 1), (0, 3, 1, 2)], ids=["nchw_to_nhwc", "nhwc_to_nchw"])
def test_permute(axes, variant):
    x = arange_values((2, 3, 4, 5), scale=1.0)
    ref = np.transpose(x, axes)
    run_case(_fns().Permute, {"src": x}, {"dst": (ref.shape, np.float32)}, dict(axes=axes), {"dst": ref},
             variant, "exact")


def test_permute_round_trip():
    fn = _fns()
    x = arange_values((2, 3, 4, 5), scale=1.0)
    mid = Guarded((2, 4, 5, 3))
    back = Guarded(x.shape)
    src = Guarded(x.shape).set(x)
    fn.Permute(src.array, mid.array, (0, 2, 3, 1)).run()
    fn.Permute(mid.array, back.array, (0, 3, 1, 2)).run()
    np.testing.assert_array_equal(back.numpy(), x)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.int32])
def test_copy(dtype, variant):
    x = arange_values((2, 3, 5, 7), scale=1.0, modulo=200, shift=0).astype(dtype)
    run_case(_fns().Copy, {"src": x}, {"dst": (x.shape, dtype)}, {}, {"dst": x}, variant, "exact")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("mode", ["constant", "reflect", "symmetric"])
def test_pad(mode, variant):
    x = arange_values((2, 3, 4, 5), scale=1.0)
    pw = ((0, 0), (0, 1), (1, 2), (2, 1))
    ref = np.pad(x, pw, mode=mode, **({"constant_values": 7.5} if mode == "constant" else {}))
    run_case(_fns().Pad, {"src": x}, {"dst": (ref.shape, np.float32)},
             dict(pad_width=pw, constant_value=7.5, mode=mode), {"dst": ref}, variant, "exact")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dtype,value", [(np.float32, 2.5), (np.uint8, 7), (np.int32, -3)])
def test_fill(dtype, value, variant):
    shape = (2, 3, 5, 7)
    run_case(_fns().Fill, {}, {"dst": (shape, dtype)}, dict(value=value), {"dst": np.full(shape, value, dtype)},
             variant, "exact")


CASTS = [(np.uint8, np.float32), (np.float32, np.float16), (np.float16, np.float32), (np.uint8, np.int32),
         (np.uint8, np.int16)]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("src_t,dst_t", CASTS, ids=[f"{np.dtype(a).name}_{np.dtype(b).name}" for a, b in CASTS])
def test_cast(src_t, dst_t, variant):
    x = arange_values((2, 3, 5, 7), scale=1.0, modulo=200, shift=0).astype(src_t)
    run_case(_fns().Cast, {"src": x}, {"dst": (x.shape, dst_t)}, {}, {"dst": x.astype(dst_t)}, variant, "exact")


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("qtype", [np.uint8, np.int8])
def test_quantize_dequantize(qtype, variant):
    scale, offset = 0.25, (10 if qtype == np.uint8 else -3)
    x = arange_values((2, 3, 5, 7), modulo=40, scale=0.3)
    info = np.iinfo(qtype)
    q = np.clip(np.round(x.astype(np.float64) / scale) + offset, info.min, info.max)
    f = run_case(_fns().Quantize, {"src": x}, {"dst": (x.shape, qtype)},
                 dict(scale=scale, offset=offset, quantization={"dst": (scale, offset)}), {}, variant)
    # quantization rounding mode differs between versions: within one step of numpy's
    g_src = Guarded(x.shape).set(x)
    g_dst = Guarded(x.shape, qtype)
    _fns().Quantize(g_src.array, g_dst.array, scale=scale, offset=offset).run()
    assert np.max(np.abs(g_dst.numpy().astype(np.int64) - q)) <= 1
    deq = (q - offset) * scale
    run_case(_fns().Dequantize, {"src": q.astype(qtype)}, {"dst": (x.shape, np.float32)},
             dict(scale=scale, offset=offset, quantization={"src": (scale, offset)}), {"dst": deq}, variant, "f32")
    del f
