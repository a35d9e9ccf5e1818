"""Every function kind on ACL's CL backend against numpy (and NEON where this build has
it), in the layouts of tests/acl: contiguous, padded like the ADR's 2x2x5x5 (right 1,
bottom 1), a non-zero first-element offset, and NHWC for the kinds with a data layout."""

from __future__ import annotations

import numpy as np
import pytest

from acl.helpers import arange_values
from acl.test_functions import conv_ref, depthwise_ref, np_pad, pool_ref

from .helpers import CL_VARIANTS, run_cl_case

pytestmark = pytest.mark.cl


def _fns():
    from acl_bridge import functions

    return functions


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("name,ref,tol", [("relu", lambda x: np.maximum(x, 0), "exact"),
                                          ("logistic", lambda x: 1 / (1 + np.exp(-x)), "f32_transcendental")],
                         ids=["relu", "logistic"])
def test_activation(name, ref, tol, variant):
    x = arange_values((2, 2, 5, 5), modulo=17)
    run_cl_case(_fns().Activation, {"src": x}, {"dst": (x.shape, np.float32)}, dict(function=name),
                {"dst": ref(x.astype(np.float64))}, variant, tol)


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("op", ["add", "sub", "mul"])
@pytest.mark.parametrize("sb", [(2, 2, 5, 5), (1, 2, 1, 5)], ids=["same", "broadcast"])
def test_elementwise(op, sb, variant):
    fn = _fns()
    a = arange_values((2, 2, 5, 5), modulo=19)
    b = arange_values(sb, scale=0.5, modulo=7) + 0.125
    cls = {"add": fn.Add, "sub": fn.Sub, "mul": fn.Mul}[op]
    ref = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[op](a, b)
    run_cl_case(cls, {"a": a, "b": b}, {"dst": (ref.shape, np.float32)}, {}, {"dst": ref}, variant, "f32")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("alpha_shape", [(1, 2, 1, 1), (1, 1, 1, 5)], ids=["per_channel_nchw", "per_channel_nhwc"])
def test_prelu(alpha_shape, variant):
    x = arange_values((2, 2, 5, 5), modulo=19)
    alpha = arange_values(alpha_shape, scale=0.25, modulo=7) - 0.5
    ref = np.where(x > 0, x, alpha * x)
    run_cl_case(_fns().PRelu, {"src": x, "alpha": alpha}, {"dst": (ref.shape, np.float32)}, {}, {"dst": ref},
                variant, "f32")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("kind,k,s,pad", [("max", (3, 3), (1, 1), (1, 1, 1, 1)), ("avg", (2, 2), (2, 2), (0, 0, 0, 0))],
                         ids=["max3x3s1p1", "avg2x2s2"])
def test_pooling(kind, k, s, pad, layout, variant):
    nhwc = layout == "NHWC"
    x = arange_values((2, 7, 9, 3) if nhwc else (2, 3, 7, 9), modulo=31)
    ref = pool_ref(x, kind, k, s, pad, nhwc)
    run_cl_case(_fns().Pooling, {"src": x}, {"dst": (ref.shape, np.float32)},
                dict(pool_type=kind, kernel=k, stride=s, padding=np_pad(pad), data_layout=layout), {"dst": ref}, variant,
                "exact" if kind == "max" else "f32")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_convolution(layout, variant):
    nhwc = layout == "NHWC"
    n, c, h, w_, o = 2, 3, 8, 9, 4
    x = arange_values((n, h, w_, c) if nhwc else (n, c, h, w_), modulo=13, scale=0.125)
    wt = arange_values((o, 3, 3, c) if nhwc else (o, c, 3, 3), modulo=7, scale=0.25)
    b = arange_values((o,), scale=0.5)
    ref = conv_ref(x, wt, b, (1, 1), (1, 1, 1, 1), nhwc)
    run_cl_case(_fns().Convolution, {"src": x, "weights": wt, "bias": b}, {"dst": (ref.shape, np.float32)},
                dict(stride=(1, 1), padding=1, data_layout=layout), {"dst": ref}, variant, "f32_reduction")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_depthwise(layout, variant):
    nhwc = layout == "NHWC"
    n, c, h, w_ = 2, 3, 8, 9
    x = arange_values((n, h, w_, c) if nhwc else (n, c, h, w_), modulo=13, scale=0.125)
    wt = arange_values((3, 3, c) if nhwc else (c, 3, 3), modulo=7, scale=0.25)
    b = arange_values((c,), scale=0.5)
    ref = depthwise_ref(x, wt, b, (1, 1), (1, 1, 1, 1), nhwc, 1)
    run_cl_case(_fns().DepthwiseConvolution, {"src": x, "weights": wt, "bias": b}, {"dst": (ref.shape, np.float32)},
                dict(stride=(1, 1), padding=1, data_layout=layout), {"dst": ref}, variant, "f32_reduction")


@pytest.mark.parametrize("variant", CL_VARIANTS)
def test_fully_connected(variant):
    x = arange_values((4, 10), modulo=11, scale=0.25)
    wt = arange_values((6, 10), modulo=5, scale=0.5)
    b = arange_values((6,), scale=0.5)
    ref = x.astype(np.float64) @ wt.T.astype(np.float64) + b
    run_cl_case(_fns().FullyConnected, {"src": x, "weights": wt, "bias": b}, {"dst": (ref.shape, np.float32)},
                {}, {"dst": ref}, variant, "f32_reduction")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("c_shape,alpha,beta", [(None, 1.5, 0.0), ((6, 7), 1.5, 0.5), ((7,), 1.0, 1.0)],
                         ids=["no_c", "c_beta_half", "bias_row"])
def test_gemm(c_shape, alpha, beta, variant):
    a = arange_values((6, 10), modulo=11, scale=0.25)
    b = arange_values((10, 7), modulo=5, scale=0.5)
    c = None if c_shape is None else arange_values(c_shape, modulo=3)
    ref = alpha * (a.astype(np.float64) @ b) + (0 if c is None else beta * c)
    run_cl_case(_fns().Gemm, {"a": a, "b": b, "c": c}, {"dst": (ref.shape, np.float32)},
                dict(alpha=alpha, beta=beta), {"dst": ref}, variant, "f32_reduction")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("log", [False, True])
def test_softmax(log, variant):
    x = arange_values((4, 3, 10), modulo=9, scale=0.5)
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    ref = e / e.sum(axis=-1, keepdims=True)
    run_cl_case(_fns().Softmax, {"src": x}, {"dst": (x.shape, np.float32)}, dict(log=log),
                {"dst": np.log(ref) if log else ref}, variant, "f32_transcendental")


@pytest.mark.parametrize("variant", CL_VARIANTS)
def test_permute(variant):
    x = arange_values((2, 2, 5, 5), scale=1.0)
    ref = np.transpose(x, (0, 2, 3, 1))
    run_cl_case(_fns().Permute, {"src": x}, {"dst": (ref.shape, np.float32)}, dict(axes=(0, 2, 3, 1)),
                {"dst": ref}, variant, "exact")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_copy(dtype, variant):
    x = arange_values((2, 2, 5, 5), scale=1.0, modulo=200, shift=0).astype(dtype)
    run_cl_case(_fns().Copy, {"src": x}, {"dst": (x.shape, dtype)}, {}, {"dst": x}, variant, "exact")


@pytest.mark.parametrize("variant", CL_VARIANTS)
def test_pad(variant):
    x = arange_values((2, 3, 4, 5), scale=1.0)
    pw = ((0, 0), (0, 1), (1, 2), (2, 1))
    ref = np.pad(x, pw, constant_values=7.5)
    run_cl_case(_fns().Pad, {"src": x}, {"dst": (ref.shape, np.float32)}, dict(pad_width=pw, constant_value=7.5),
                {"dst": ref}, variant, "exact")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("dtype,value", [(np.float32, 2.5), (np.uint8, 7)])
def test_fill(dtype, value, variant):
    shape = (2, 2, 5, 5)
    run_cl_case(_fns().Fill, {}, {"dst": (shape, dtype)}, dict(value=value), {"dst": np.full(shape, value, dtype)},
                variant, "exact")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("src_t,dst_t", [(np.uint8, np.float32), (np.uint8, np.int32)], ids=["u8_f32", "u8_s32"])
def test_cast(src_t, dst_t, variant):
    x = arange_values((2, 2, 5, 5), scale=1.0, modulo=200, shift=0).astype(src_t)
    run_cl_case(_fns().Cast, {"src": x}, {"dst": (x.shape, dst_t)}, {}, {"dst": x.astype(dst_t)}, variant, "exact")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("qtype", [np.uint8, np.int8])
def test_quantize_dequantize(qtype, variant):
    scale, offset = 0.25, (10 if qtype == np.uint8 else -3)
    x = arange_values((2, 2, 5, 5), modulo=40, scale=0.3)
    info = np.iinfo(qtype)
    q = np.clip(np.round(x.astype(np.float64) / scale) + offset, info.min, info.max)
    # rounding of ties differs between implementations: compare within one quantization step
    f = run_cl_case(_fns().Quantize, {"src": x}, {"dst": (x.shape, qtype)}, dict(scale=scale, offset=offset), {},
                    variant)
    assert f.backend.name == "cl"
    run_cl_case(_fns().Dequantize, {"src": q.astype(qtype)}, {"dst": (x.shape, np.float32)},
                dict(scale=scale, offset=offset), {"dst": (q - offset) * scale}, variant, "f32")


@pytest.mark.parametrize("variant", CL_VARIANTS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("grid", [dict(half_pixel_centers=True), dict(align_corners=True), {}],
                         ids=["half_pixel", "align_corners", "top_left"])
def test_resize_bilinear(grid, layout, variant):
    """CLScale against TFLite's bilinear formula (acl_bridge.models.numpy_executor)."""
    from acl_bridge.models.numpy_executor import resize_bilinear

    nhwc = layout == "NHWC"
    x = arange_values((2, 5, 6, 3) if nhwc else (2, 3, 5, 6), modulo=23, scale=0.5)
    ref = resize_bilinear(x if nhwc else x.transpose(0, 2, 3, 1), (10, 9), **grid)
    ref = ref if nhwc else ref.transpose(0, 3, 1, 2)
    run_cl_case(_fns().Resize, {"src": x}, {"dst": (ref.shape, np.float32)}, dict(data_layout=layout, **grid),
                {"dst": ref}, variant, "f32_transcendental")
