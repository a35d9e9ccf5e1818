"""Neural-network layers: TRANSPOSE_CONV (-> ``deconvolution``), L2_POOL_2D (an L2 ``pooling``),
L2_NORMALIZATION (-> ``l2_normalize``), LOCAL_RESPONSE_NORMALIZATION (-> ``normalization``),
LOG_SOFTMAX, RESIZE_NEAREST_NEIGHBOR (a nearest ``resize``), BATCH_MATMUL (-> ``matmul``) and CONV_3D (->
``convolution_3d``):
the kinds of :mod:`acl_bridge.families.nn` and the older ``pooling`` / ``softmax`` /
``resize``. What ACL 20.08 lacks (MatMul, Conv3D) is refused at configure, so the partitioned
runner falls back."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from ...format.tflite_reader import ModelFormatError, ModelSpec, OperatorSpec
from ..helpers import (
    constant,
    first_input,
    fused_activation,
    float_option,
    int_option,
    malformed,
    nhwc,
    no_fused_activation,
    option,
    optional_constant,
    refuse,
    same_padding,
    unary,
    where,
    window,
)
from ..quantized import bias_q, float32_or_quantized, is_quantized, one_quantization, quantization, tensor_q, weights_q
from ..step import Lowered, Params, Step
from .shape import resize_grid
from .table import FLOAT32, FLOAT32_OR_INT8_WITH_TABLE, rule

# TRANSPOSE_CONV's inputs: output_shape (an int32 table), weights (OHWI), input, bias (optional)
SHAPE, WEIGHTS, INPUT, BIAS = 0, 1, 2, 3


def _transpose_conv_padding(op: OperatorSpec, size: int, kernel: int, stride: int, out: int) -> Tuple[int, int]:
    """(before, after) cropped from the full (size - 1) * stride + kernel output along one axis:
    before as TFLite computes it (``ComputePaddingHeightWidth`` on the output's size: SAME's
    total // 2, VALID 0), after the rest; refused when the output reaches past the full one."""
    if option(op, "padding") == "SAME":
        before = same_padding(out, kernel, stride, -(-out // stride))[0]
    else:
        before = 0
    after = (size - 1) * stride + kernel - out - before
    if after < 0:
        raise refuse(op, f"an output of {out} from {size} inputs with kernel {kernel}, stride {stride} and padding "
                         f"{option(op, 'padding')} (past the transposed convolution's {size - 1} * {stride} + "
                         f"{kernel} elements: ACL's deconvolution crops, it does not extend)")
    return before, after


@rule("TRANSPOSE_CONV", tensors=float32_or_quantized(SHAPE, weights=WEIGHTS, bias=BIAS))
def transpose_conv(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``deconvolution``: weights OHWI as TFLite stores them, the output_shape input a
    constant equal to the output's shape, TFLite's SAME / VALID padding as the crop of the full
    output; float32, or int8 / uint8 with per-tensor or per-channel (axis 0) weights and int32
    bias. A fused activation is refused (ACL's deconvolution takes none)."""
    t = model.tensors
    if len(op.inputs) < 3 or op.inputs[INPUT] < 0 or op.inputs[WEIGHTS] < 0:
        raise ModelFormatError(f"{where(op)} has {len(op.inputs)} inputs, expected output_shape, weights, input "
                               f"and an optional bias")
    no_fused_activation(op)
    src, out = op.inputs[INPUT], op.outputs[0]
    x, y, w = tuple(t[src].shape), tuple(t[out].shape), t[op.inputs[WEIGHTS]]
    shape = t[op.inputs[SHAPE]].data
    if shape is None:
        raise refuse(op, "a non-constant output_shape input")
    if len(x) != 4 or len(y) != 4 or len(w.shape) != 4:
        raise refuse(op, f"input {list(x)}, weights {list(w.shape)}, output {list(y)} (rank 4, NHWC, only)")
    if np.asarray(shape).reshape(-1).tolist() != list(y):
        raise malformed(op, f"output_shape {np.asarray(shape).reshape(-1).tolist()} differs from the output {list(y)}")
    if w.data is None:
        raise refuse(op, f"non-constant weights (tensor #{w.index} {w.name!r})")
    cout, kh, kw, cin = w.shape
    if x[0] != y[0] or x[3] != cin or y[3] != cout:
        raise malformed(op, f"weights {list(w.shape)} do not map input {list(x)} to output {list(y)}")
    sh, sw = int_option(op, "stride_h", 1), int_option(op, "stride_w", 1)
    if sh < 1 or sw < 1:
        raise malformed(op, f"stride {sh}x{sw}, expected >= 1")
    top, bottom = _transpose_conv_padding(op, x[1], kh, sh, y[1])
    left, right = _transpose_conv_padding(op, x[2], kw, sw, y[2])
    params: Params = (("stride", (sh, sw)), ("padding", (top, bottom, left, right)))
    k = op.inputs[BIAS] if len(op.inputs) > BIAS else -1
    if k >= 0 and t[k].data is None:
        raise refuse(op, f"non-constant bias (tensor #{k} {t[k].name!r})")
    if is_quantized(model, src):
        wq = weights_q(op, w, 0)
        bq = bias_q(tensor_q(op, model, src), wq)
        bias = np.zeros(cout, np.int32) if k < 0 else t[k].data
        params += quantization(("src", tensor_q(op, model, src)), ("weights", wq), ("bias", bq),
                               ("dst", tensor_q(op, model, out)))
    else:
        bias = np.zeros(cout, np.float32) if k < 0 else t[k].data
    if bias.shape != (cout,):
        raise malformed(op, f"bias {list(bias.shape)} does not fit {cout} output channels")
    return (Step(op.index, op.opcode, "deconvolution", (src,), out, params,
                 (("weights", np.ascontiguousarray(w.data)), ("bias", np.ascontiguousarray(bias)))),)


@rule("L2_POOL_2D")
def l2_pool_2d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``pooling`` of type l2: sqrt of the mean square over the elements inside the input
    (TFLite's count, ACL's exclude_padding); float32 (TFLite has no int8 L2_POOL_2D)."""
    no_fused_activation(op)
    kh, kw = int_option(op, "filter_height"), int_option(op, "filter_width")
    stride, padding = window(op, model, kh, kw)
    return (unary(op, "pooling", (("pool_type", "l2"), ("kernel", (kh, kw)), ("stride", stride),
                                  ("padding", padding))),)


@rule("L2_NORMALIZATION")
def l2_normalization(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``l2_normalize`` along the last axis with epsilon 1e-12: TFLite divides by
    max(sqrt(sum of squares), 1e-6), ACL by sqrt(max(sum of squares, epsilon)). float32, rank
    1 to 4 (ACL's tensors)."""
    no_fused_activation(op)
    x, y = model.tensors[first_input(op)].shape, model.tensors[op.outputs[0]].shape
    if tuple(x) != tuple(y):
        raise malformed(op, f"input {list(x)} and output {list(y)} differ")
    if not 1 <= len(x) <= 4:
        raise refuse(op, f"a rank-{len(x)} input (rank 1 to 4)")
    return (unary(op, "l2_normalize", (("axis", -1), ("epsilon", 1e-12))),)


@rule("LOCAL_RESPONSE_NORMALIZATION")
def local_response_normalization(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``normalization`` across channels: TFLite's radius r sums the squares of channels
    c - r .. c + r (ACL's norm_size 2r + 1, alpha unscaled), bias, alpha, beta as given.
    float32, NHWC."""
    nhwc(op, model)
    radius = int_option(op, "radius", 5)
    if radius < 0:
        raise malformed(op, f"option radius is {radius}, expected >= 0")
    params: Params = (("radius", radius), ("bias", float_option(op, "bias", 1.0)),
                      ("alpha", float_option(op, "alpha", 1.0)), ("beta", float_option(op, "beta", 0.5)))
    return (unary(op, "normalization", params),)


@rule("LOG_SOFTMAX")
def log_softmax(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``log_softmax`` along the last axis (float32)."""
    x, y = model.tensors[first_input(op)].shape, model.tensors[op.outputs[0]].shape
    if tuple(x) != tuple(y):
        raise malformed(op, f"input {list(x)} and output {list(y)} differ")
    return (unary(op, "log_softmax", (("beta", 1.0),)),)


@rule("RESIZE_NEAREST_NEIGHBOR", tensors=FLOAT32_OR_INT8_WITH_TABLE)
def resize_nearest_neighbor(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``resize`` (nearest) with TFLite's align_corners (round half away from zero) /
    half_pixel_centers (ACL's CENTER sampling) / neither (floor); both at once refused. The
    size input a constant equal to the output's height and width; int8 / uint8 with one
    quantization in and out (TFLite's requirement)."""
    align, half = resize_grid(op, model)
    params: Params = (("interpolation", "nearest"), ("align_corners", align), ("half_pixel_centers", half))
    if is_quantized(model, first_input(op)):
        params += one_quantization(op, model, first_input(op), op.outputs[0])
    return (unary(op, "resize", params),)


@rule("BATCH_MATMUL", tensors=FLOAT32)
def batch_matmul(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``matmul`` (float32): a @ b over the last two axes with adj_x / adj_y, ranks 2 to 4,
    the leading (batch) axes equal (ACL's MatMul does not broadcast them); a constant input
    is a step constant. ACL 20.08 has no MatMul: refused at configure (the fallback runs it)."""
    t = model.tensors
    ins = tuple(i for i in op.inputs if i >= 0)
    if len(ins) != 2:
        raise ModelFormatError(f"{where(op)} has {len(ins)} inputs, expected 2")
    if t[ins[0]].is_constant and t[ins[1]].is_constant:
        raise refuse(op, "two constant inputs")
    a, b, y = (tuple(t[i].shape) for i in (ins[0], ins[1], op.outputs[0]))
    adj_a, adj_b = bool(option(op, "adj_x", False)), bool(option(op, "adj_y", False))
    if not (2 <= len(a) <= 4 and len(b) == len(a)):
        raise refuse(op, f"inputs {list(a)} and {list(b)} (ranks 2 to 4, the same for both)")
    if a[:-2] != b[:-2]:
        raise refuse(op, f"batch axes {list(a[:-2])} and {list(b[:-2])} that differ (ACL's MatMul does not "
                         f"broadcast them)")
    m, k = (a[-1], a[-2]) if adj_a else (a[-2], a[-1])
    k2, n = (b[-1], b[-2]) if adj_b else (b[-2], b[-1])
    if k != k2 or y != a[:-2] + (m, n):
        raise malformed(op, f"{list(a)} (adj_x={adj_a}) @ {list(b)} (adj_y={adj_b}) does not give {list(y)}")
    constants = tuple((role, np.ascontiguousarray(t[i].data)) for role, i in zip(("a", "b"), ins) if t[i].is_constant)
    live = tuple(i for i in ins if not t[i].is_constant)
    return (Step(op.index, op.opcode, "matmul", live, op.outputs[0], (("adj_a", adj_a), ("adj_b", adj_b)),
                 constants),)


@rule("CONV_3D")
def conv_3d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``convolution_3d`` (float32, NDHWC): weights DHWIO as TFLite stores them, bias
    optional, TFLite's SAME / VALID padding per axis, the fused activation an in-place
    ``activation`` step;
    dilations other than 1 refused. ACL 20.08 has no Conv3D: refused at configure (the
    fallback runs it)."""
    src, out = first_input(op), op.outputs[0]
    x, y = tuple(model.tensors[src].shape), tuple(model.tensors[out].shape)
    w = constant(model, op, 1, "weights")
    if len(x) != 5 or len(y) != 5 or w.ndim != 5:
        raise refuse(op, f"input {list(x)}, weights {list(w.shape)}, output {list(y)} (rank 5, NDHWC, only)")
    kd, kh, kw, cin, cout = w.shape
    if x[4] != cin or y[4] != cout or x[0] != y[0]:
        raise malformed(op, f"weights {list(w.shape)} do not map input {list(x)} to output {list(y)}")
    bias = optional_constant(model, op, 2, "bias")
    bias = np.zeros(cout, np.float32) if bias is None else bias
    if bias.shape != (cout,):
        raise malformed(op, f"bias {list(bias.shape)} does not fit {cout} output channels")
    if any(option(op, f"dilation_{a}", 1) != 1 for a in "dhw"):
        raise refuse(op, "dilation factors other than 1")
    strides = tuple(int_option(op, f"stride_{a}", 1) for a in "dhw")
    if min(strides) < 1:
        raise malformed(op, f"strides {list(strides)}, expected >= 1")
    same = option(op, "padding") == "SAME"
    pads, expect = [], []
    for size, k, s_, o in zip(x[1:4], (kd, kh, kw), strides, y[1:4]):
        pads.append(same_padding(size, k, s_, o) if same else (0, 0))
        expect.append(-(-size // s_) if same else (size - k) // s_ + 1)
    if list(y[1:4]) != expect:
        raise malformed(op, f"output is {list(y[1:4])}, padding {option(op, 'padding')} with kernel {[kd, kh, kw]} "
                            f"and strides {list(strides)} on {list(x[1:4])} gives {expect}")
    step = unary(op, "convolution_3d", (("stride", strides), ("padding", tuple(pads))),
                 (("weights", np.ascontiguousarray(w)), ("bias", np.ascontiguousarray(bias))))
    act = fused_activation(op)
    if act is None:
        return (step,)
    # an in-place activation step: CLConv3D takes no fused activation ("Fused activation not
    # supported", measured on 24.11), NEConv3D does
    function, a, b = act
    return step, Step(op.index, op.opcode, "activation", (out,), out,
                      (("function", function), ("a", a), ("b", b), ("in_place", True)))


__all__ = ["conv_3d", "transpose_conv", "l2_pool_2d", "l2_normalization", "local_response_normalization", "log_softmax",
           "resize_nearest_neighbor", "batch_matmul"]
