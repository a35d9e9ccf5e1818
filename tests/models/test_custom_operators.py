"""MediaPipe's custom operators on the CPU fallback (host): ``Convolution2DTransposeBias``,
``MaxPoolingWithArgmax2D``, ``MaxUnpooling2D``. TFLite's interpreter cannot run them (they
are MediaPipe's registrations), so each is checked against a numpy reference written here
from the operator's definition, loop by loop as the kernel's C does it: alone (one-operator
models written with the ``tflite`` builders, through the reader) and together in a small
graph with an ACL operator between them, planned (plan_model) and run (run_plan). An unknown
custom operator, or a known one with options its kernel refuses, is refused at load with
every such operator named."""

import struct

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.models.format.model_cache import read_model_cached  # noqa: E402
from acl_bridge.models.format.tflite_reader import UnsupportedModelError, read_model  # noqa: E402
from acl_bridge.models.lowering.partition import CUSTOM  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402

from .conftest import host_only_under_emulation, tolerance  # noqa: E402
from .graph_tflite import graph_model  # noqa: E402

pytestmark = host_only_under_emulation

SAME, VALID = 1, 2
TCONV, POOL, UNPOOL = ("CUSTOM:Convolution2DTransposeBias", "CUSTOM:MaxPoolingWithArgmax2D",
                       "CUSTOM:MaxUnpooling2D")


def transpose_params(padding, stride_w, stride_h):
    """TfLiteTransposeConvParams' bytes (padding, stride_width, stride_height, activation)."""
    return struct.pack("<4i", padding, stride_w, stride_h, 0)


def pool_params(padding, stride_w, stride_h, filter_w, filter_h, activation=0):
    """TfLitePoolParams' bytes: the six fields, then ``computed.padding`` (4 ints, unused)."""
    return struct.pack("<10i", padding, stride_w, stride_h, filter_w, filter_h, activation, 0, 0, 0, 0)


# ------------------------------------------------------------------- references from the definitions
def ref_transpose_conv(x, w, b, padding, sw, sh):
    n, h, wd, ci = x.shape
    o, fh, fw, _ = w.shape
    tot_h = max(0, fh - (h - 1) % sh - 1) if padding == SAME else 0
    tot_w = max(0, fw - (wd - 1) % sw - 1) if padding == SAME else 0
    oh, ow = sh * (h - 1) + fh - tot_h, sw * (wd - 1) + fw - tot_w
    y = np.zeros((n, oh, ow, o), np.float64) + b
    for bb in range(n):
        for iy in range(h):
            for ix in range(wd):
                for fy in range(fh):
                    for fx in range(fw):
                        oy, ox = iy * sh - tot_h // 2 + fy, ix * sw - tot_w // 2 + fx
                        if 0 <= oy < oh and 0 <= ox < ow:
                            y[bb, oy, ox] += w[:, fy, fx, :] @ x[bb, iy, ix].astype(np.float64)
    return y.astype(np.float32)


def _out(padding, size, stride, filt):
    return -(-size // stride) if padding == SAME else (size - filt + stride) // stride


def ref_pool_argmax(x, padding, sw, sh, fw, fh, clamp=(-np.inf, np.inf)):
    n, h, w, ch = x.shape
    oh, ow = _out(padding, h, sh, fh), _out(padding, w, sw, fw)
    ph, pw = max(0, ((oh - 1) * sh + fh - h) // 2), max(0, ((ow - 1) * sw + fw - w) // 2)
    y, idx = np.zeros((n, oh, ow, ch), np.float32), np.zeros((n, oh, ow, ch), np.float32)
    for bb in range(n):
        for oy in range(oh):
            for ox in range(ow):
                for k in range(ch):
                    best, where = np.finfo(np.float32).min, 0
                    for fy in range(fh):
                        for fx in range(fw):
                            iy, ix = oy * sh - ph + fy, ox * sw - pw + fx
                            if 0 <= iy < h and 0 <= ix < w and x[bb, iy, ix, k] > best:
                                best, where = x[bb, iy, ix, k], fy * fw + fx
                    y[bb, oy, ox, k] = min(max(best, clamp[0]), clamp[1])
                    idx[bb, oy, ox, k] = np.float32(where) + np.float32(0.1)
    return y, idx


def ref_unpool(x, idx, sw, sh, fw, fh):
    n, h, w, ch = x.shape
    oh, ow = h * fh, w * fw
    ph, pw = max(0, ((h - 1) * sh + fh - oh) // 2), max(0, ((w - 1) * sw + fw - ow) // 2)
    y = np.zeros((n, oh, ow, ch), np.float32)
    for bb in range(n):
        for iy in range(h):
            for ix in range(w):
                for k in range(ch):
                    i = int(idx[bb, iy, ix, k])
                    y[bb, iy * sh - ph + i // fw, ix * sw - pw + i % fw, k] = x[bb, iy, ix, k]
    return y


# ------------------------------------------------------------------- one operator at a time
def _run_one(data, inputs):
    plan = plan_model(read_model(data), fallback=True)
    assert [(f.kind, f.opcode.startswith("CUSTOM:")) for f in plan.fallbacks] == [(CUSTOM, True)]
    return run_plan(plan, inputs)


TCONV_CASES = [  # (x shape, weights shape OHWI, padding, stride w, stride h)
    ((1, 3, 4, 2), (3, 3, 3, 2), SAME, 2, 2),
    ((2, 5, 3, 3), (2, 4, 4, 3), SAME, 2, 2),
    ((1, 4, 4, 2), (3, 3, 3, 2), VALID, 2, 2),
    ((1, 3, 5, 1), (2, 3, 2, 1), SAME, 1, 3),
    ((1, 2, 2, 4), (5, 2, 2, 4), VALID, 2, 1),
]


@pytest.mark.parametrize("case", TCONV_CASES, ids=lambda c: f"{c[0]}-{c[1]}-{'same' if c[2] == SAME else 'valid'}-s{c[3]}{c[4]}")
def test_convolution_2d_transpose_bias(case):
    xs, ws, padding, sw, sh = case
    rng = np.random.default_rng(sum(xs + ws))
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    ref = ref_transpose_conv(x, w, b, padding, sw, sh)
    t = [("x", xs, "float32", None, None), ("w", ws, "float32", w, None), ("b", (ws[0],), "float32", b, None),
         ("y", ref.shape, "float32", None, None)]
    data = graph_model(t, [(TCONV, ["x", "w", "b"], ["y"], ("custom", transpose_params(padding, sw, sh)))],
                       ["x"], ["y"])
    np.testing.assert_allclose(_run_one(data, x)["y"], ref, atol=tolerance(ref))


POOL_CASES = [  # (x shape, padding, stride w, stride h, filter w, filter h, activation)
    ((1, 4, 4, 2), SAME, 2, 2, 2, 2, 0),
    ((2, 5, 7, 3), SAME, 2, 2, 2, 2, 0),
    ((1, 7, 6, 2), VALID, 2, 2, 3, 3, 0),
    ((1, 6, 5, 1), SAME, 1, 2, 3, 2, 3),  # RELU6
    ((1, 5, 5, 2), SAME, 2, 2, 3, 3, 1),  # RELU, overlapping windows
]


def _pool_input(shape, seed):
    """Small integers (ties: the first greatest wins) with a -inf and a NaN among them."""
    x = np.random.default_rng(seed).integers(-4, 9, shape).astype(np.float32)
    x.flat[1] = -np.inf
    x.flat[-2] = np.nan
    return x


@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: f"{c[0]}-{'same' if c[1] == SAME else 'valid'}-s{c[2]}{c[3]}-f{c[4]}{c[5]}-a{c[6]}")
def test_max_pooling_with_argmax_2d(case):
    xs, padding, sw, sh, fw, fh, act = case
    x = _pool_input(xs, sum(xs))
    clamp = {0: (-np.inf, np.inf), 1: (0, np.inf), 3: (0, 6)}[act]
    ref_y, ref_i = ref_pool_argmax(x, padding, sw, sh, fw, fh, clamp)
    t = [("x", xs, "float32", None, None), ("y", ref_y.shape, "float32", None, None),
         ("i", ref_y.shape, "float32", None, None)]
    data = graph_model(t, [(POOL, ["x"], ["y", "i"], ("custom", pool_params(padding, sw, sh, fw, fh, act)))],
                       ["x"], ["y", "i"])
    got = _run_one(data, x)
    np.testing.assert_array_equal(got["y"], ref_y)
    np.testing.assert_array_equal(got["i"], ref_i)


UNPOOL_CASES = [  # (x shape, stride w, stride h, filter w, filter h)
    ((1, 2, 3, 2), 2, 2, 2, 2),
    ((2, 3, 2, 3), 2, 2, 2, 2),
    ((1, 3, 3, 1), 3, 3, 3, 3),
    ((1, 3, 4, 2), 1, 1, 2, 2),  # overlapping: several values at one place, the last wins
]


@pytest.mark.parametrize("case", UNPOOL_CASES, ids=lambda c: f"{c[0]}-s{c[1]}{c[2]}-f{c[3]}{c[4]}")
def test_max_unpooling_2d(case):
    xs, sw, sh, fw, fh = case
    rng = np.random.default_rng(sum(xs))
    x = rng.standard_normal(xs).astype(np.float32)
    idx = (rng.integers(0, fw * fh, xs) + 0.1).astype(np.float32)
    ref = ref_unpool(x, idx, sw, sh, fw, fh)
    t = [("x", xs, "float32", None, None), ("i", xs, "float32", None, None), ("y", ref.shape, "float32", None, None)]
    data = graph_model(t, [(UNPOOL, ["x", "i"], ["y"], ("custom", pool_params(SAME, sw, sh, fw, fh)))],
                       ["x", "i"], ["y"])
    np.testing.assert_array_equal(_run_one(data, {"x": x, "i": idx})["y"], ref)


# ------------------------------------------------------------------- in a graph, with ACL between
def _segmenter_like():
    """An encoder-decoder step as the segmenters have it: (p, i) = MaxPoolingWithArgmax2D(x);
    r = RELU(p) (ACL); u = MaxUnpooling2D(r, i); y = Convolution2DTransposeBias(u, w, b);
    z = ADD(y, y) (ACL)."""
    rng = np.random.default_rng(7)
    w = rng.standard_normal((3, 3, 3, 2)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    t = [("x", (1, 6, 8, 2), "float32", None, None), ("p", (1, 3, 4, 2), "float32", None, None),
         ("i", (1, 3, 4, 2), "float32", None, None), ("r", (1, 3, 4, 2), "float32", None, None),
         ("u", (1, 6, 8, 2), "float32", None, None), ("w", w.shape, "float32", w, None),
         ("b", (3,), "float32", b, None), ("y", (1, 12, 16, 3), "float32", None, None),
         ("z", (1, 12, 16, 3), "float32", None, None)]
    pool = ("custom", pool_params(SAME, 2, 2, 2, 2))
    ops = [(POOL, ["x"], ["p", "i"], pool), ("RELU", ["p"], ["r"], None), (UNPOOL, ["r", "i"], ["u"], pool),
           (TCONV, ["u", "w", "b"], ["y"], ("custom", transpose_params(SAME, 2, 2))), ("ADD", ["y", "y"], ["z"], None)]
    return graph_model(t, ops, ["x"], ["z"]), w, b


def test_the_three_in_a_graph_between_acl_operators():
    data, w, b = _segmenter_like()
    plan = plan_model(read_model(data), fallback=True)
    assert tuple((side, len(ks)) for side, ks in plan.segments()) == (
        ("fallback", 1), ("acl", 1), ("fallback", 2), ("acl", 1))
    assert [f.opcode for f in plan.fallbacks] == [POOL, UNPOOL, TCONV] and {f.kind for f in plan.fallbacks} == {CUSTOM}
    x = np.random.default_rng(8).standard_normal((1, 6, 8, 2)).astype(np.float32)
    p, i = ref_pool_argmax(x, SAME, 2, 2, 2, 2)
    y = ref_transpose_conv(ref_unpool(np.maximum(p, 0), i, 2, 2, 2, 2), w, b, SAME, 2, 2)
    np.testing.assert_allclose(run_plan(plan, x)["z"], y + y, atol=tolerance(y))


# ------------------------------------------------------------------- the reader, the cache, refusals
def test_custom_options_reach_the_operator_and_survive_the_model_cache(tmp_path):
    data, _, _ = _segmenter_like()
    model = read_model(data)
    assert model.operators[0].option("custom_options") == pool_params(SAME, 2, 2, 2, 2).hex()
    assert model.operators[3].option("custom_options") == transpose_params(SAME, 2, 2).hex()
    assert model.operators[1].option("custom_options") is None
    for _ in range(2):  # cold, then warm from the file
        cached, _ = read_model_cached(data, tmp_path)
        assert cached.operators == model.operators


def test_unknown_custom_operators_and_refused_options_are_all_named_at_load():
    t = [(n, (1, 4, 4, 2), "float32", None, None) for n in ("x", "a", "p", "i", "y")]
    ops = [("CUSTOM:MyOwnOp", ["x"], ["a"], ("custom", b"\x01")), ("RELU", ["a"], ["a2"], None),
           (POOL, ["a2"], ["p", "i"], ("custom", struct.pack("<3i", SAME, 2, 2))),
           (UNPOOL, ["p", "i"], ["y"], ("custom", pool_params(0, 2, 2, 2, 2)))]
    t.insert(2, ("a2", (1, 4, 4, 2), "float32", None, None))
    data = graph_model(t, ops, ["x"], ["y"])
    with pytest.raises(UnsupportedModelError, match=(
            r"^3 operator\(s\) run neither on ACL nor on the CPU fallback: "
            r"operator #0 CUSTOM:MyOwnOp \(no fallback kernel for the operator; not on ACL: custom\); "
            r"operator #2 CUSTOM:MaxPoolingWithArgmax2D \(custom_options has 12 bytes, expected at least 20 "
            r"\(5 int32 fields\); not on ACL: custom\); "
            r"operator #3 CUSTOM:MaxUnpooling2D \(padding is 0, expected 1 \(SAME\) or 2 \(VALID\); "
            r"not on ACL: custom\)$")):
        plan_model(read_model(data), fallback=True)


def test_a_wrong_output_shape_is_refused_at_load():
    t = [("x", (1, 4, 4, 2), "float32", None, None), ("y", (1, 3, 3, 2), "float32", None, None),
         ("i", (1, 2, 2, 2), "float32", None, None)]
    data = graph_model(t, [(POOL, ["x"], ["y", "i"], ("custom", pool_params(SAME, 2, 2, 2, 2)))], ["x"], ["y", "i"])
    with pytest.raises(UnsupportedModelError, match=r"operator #0 CUSTOM:MaxPoolingWithArgmax2D \(output 0 shape "
                                                    r"\[1, 3, 3, 2\], expected \[1, 2, 2, 2\]; not on ACL: custom\)"):
        plan_model(read_model(data), fallback=True)
