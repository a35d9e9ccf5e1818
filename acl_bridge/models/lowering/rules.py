"""The lowering table: one rule per TFLite operator, registered by its opcode name.

A rule is a function ``(op, model) -> tuple of Lowered`` (:class:`~.step.Step` bridge calls,
or :class:`~.step.Reshape` / :class:`~.step.Concatenate` placements for the view pass) that
raises UnsupportedModelError (:func:`~.helpers.refuse`) for what the bridge cannot run and
ModelFormatError (:func:`~.helpers.malformed`) for what contradicts itself. It sees the
whole operator and model, so it may look at tensor types and quantization and may return
several steps. Its registration also names the tensor-type gate (``tensors``) that
:func:`~..tflite_plan.plan_model` runs on every operator before any is lowered.

An opcode without a rule meets the default rule, :func:`refuse_operator`, which names the
operator, its index and why (Arm NN's ``ParseUnsupportedOperator``). ``SUPPORTED`` is the
table's keys, sorted.

Adding an operator: a ``@rule("OPCODE")`` function below in its family, and its case in
``tests/models/test_one_operator.py`` (a one-operator model run by TFLite's interpreter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, NoReturn, Tuple

import numpy as np

from ..format.tflite_reader import ModelFormatError, ModelSpec, OperatorSpec
from .helpers import (
    FUSED,
    Activation,
    TensorCheck,
    activation_params,
    constant,
    first_input,
    float32_except,
    float_option,
    fused_activation,
    int_option,
    integer_table,
    malformed,
    nhwc,
    no_fused_activation,
    option,
    optional_constant,
    refuse,
    unary,
    where,
    window,
)
from .quantized import (
    QUANTIZED_ACTIVATIONS,
    dequantize_gate,
    float32_or_quantized,
    is_quantized,
    quantization,
    quantize_gate,
    quantized_activation,
    quantized_constants,
    tensor_q,
)
from .step import Concatenate, Intermediate, Lowered, Params, Reshape, Step

RuleFunction = Callable[[OperatorSpec, ModelSpec], Tuple[Lowered, ...]]


@dataclass(frozen=True)
class Rule:
    """How one opcode is lowered: ``lower`` (the rule) and ``tensors`` (the type gate)."""

    opcode: str
    lower: RuleFunction
    tensors: TensorCheck


RULES: Dict[str, Rule] = {}
FLOAT32 = float32_except()
# float32, but input 1 is a constant integer table the rule reads (paddings, new shape, new size)
FLOAT32_WITH_TABLE = float32_except(1)
# float32 or int8 / uint8 (every live tensor; per-tensor quantization): the rule looks at the types
FLOAT32_OR_INT8 = float32_or_quantized()
FLOAT32_OR_INT8_WITH_TABLE = float32_or_quantized(1)
# ... with constant weights (input 1) and bias (input 2: int32 when quantized)
WEIGHTED = float32_or_quantized(weights=1, bias=2)
# why an operator without a rule has none, where there is more to say than the list
WHY_NOT: Dict[str, str] = {}


def rule(*opcodes: str, tensors: TensorCheck = FLOAT32) -> Callable[[RuleFunction], RuleFunction]:
    """Register the decorated function as the rule of ``opcodes``."""

    def register(lower: RuleFunction) -> RuleFunction:
        for code in opcodes:
            if code in RULES:
                raise ValueError(f"opcode {code} has two rules: {RULES[code].lower.__name__} and {lower.__name__}")
        RULES.update((code, Rule(code, lower, tensors)) for code in opcodes)
        return lower

    return register


def refuse_operator(op: OperatorSpec, model: ModelSpec) -> NoReturn:
    """The default rule: the operator has no rule, refused naming it, its index and why."""
    raise refuse(op, f"the operator ({WHY_NOT.get(op.opcode, 'supported operators: ' + ', '.join(SUPPORTED))})")


def rule_for(opcode: str) -> Rule:
    """The rule of ``opcode``, or the default rule (which refuses at the type gate already)."""
    return RULES.get(opcode) or Rule(opcode, refuse_operator, refuse_operator)


# ---------------------------------------------------------------------------- convolution-like
def _weights_and_bias(op: OperatorSpec, model: ModelSpec) -> Tuple[np.ndarray, np.ndarray, int]:
    """Constant weights (rank 4) and bias (zeros when absent), and the output channels."""
    w = constant(model, op, 1, "weights")
    cout = model.tensors[op.outputs[0]].shape[-1]
    b = optional_constant(model, op, 2, "bias")
    b = np.zeros(cout, np.float32) if b is None else b
    if w.ndim != 4 or b.shape != (cout,):
        raise malformed(op, f"weights {list(w.shape)} / bias {list(b.shape)} do not fit {cout} output channels")
    return w, b, cout


def _convolution_step(op: OperatorSpec, model: ModelSpec, kind: str, weights: np.ndarray, bias: np.ndarray,
                      kernel: Tuple[int, int], extra: Params) -> Step:
    stride, padding = window(op, model, *kernel)
    params = (("stride", stride), ("padding", padding)) + extra + activation_params(fused_activation(op))
    return unary(op, kind, params, (("weights", np.ascontiguousarray(weights)), ("bias", np.ascontiguousarray(bias))))


def _quantized_convolution(op: OperatorSpec, model: ModelSpec, kind: str, axis: int, extra: Params) -> Step:
    """An int8 / uint8 convolution or depthwise step: weights as stored (OHWI; 1xHxWx(C*M)
    -> HxWx(C*M)), int32 bias, per-channel scales on the output channels."""
    x, out = first_input(op), op.outputs[0]
    cout = model.tensors[out].shape[-1]
    w, b, wq, bq = quantized_constants(op, model, axis, cout)
    if w.ndim != 4 or w.shape[axis] != cout:
        raise malformed(op, f"weights {list(w.shape)} do not fit {cout} output channels")
    kh, kw = w.shape[1], w.shape[2]
    if kind == "depthwise":
        w = w.reshape(kh, kw, cout)
    stride, padding = window(op, model, kh, kw)
    params = ((("stride", stride), ("padding", padding)) + extra
              + activation_params(quantized_activation(op))
              + quantization(("src", tensor_q(op, model, x)), ("weights", wq), ("bias", bq),
                             ("dst", tensor_q(op, model, out))))
    return unary(op, kind, params, (("weights", np.ascontiguousarray(w)), ("bias", np.ascontiguousarray(b))))


@rule("CONV_2D", tensors=WEIGHTED)
def conv_2d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``convolution``: weights OHWI as TFLite stores them (the bridge's NHWC layout);
    int8: per-channel (axis 0) or per-tensor weights, int32 bias."""
    if is_quantized(model, first_input(op)):
        cin = model.tensors[first_input(op)].shape[-1]
        w = model.tensors[op.inputs[1]].shape
        if len(w) != 4 or w[3] != cin:
            raise malformed(op, f"weights {list(w)} do not map {cin} input channels")
        return (_quantized_convolution(op, model, "convolution", 0, ()),)
    w, b, cout = _weights_and_bias(op, model)
    cin = model.tensors[first_input(op)].shape[-1]
    if w.shape[0] != cout or w.shape[3] != cin:
        raise malformed(op, f"weights {list(w.shape)} do not map {cin} to {cout} channels")
    return (_convolution_step(op, model, "convolution", w, b, (w.shape[1], w.shape[2]), ()),)


@rule("DEPTHWISE_CONV_2D", tensors=WEIGHTED)
def depthwise_conv_2d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``depthwise``: weights 1xHxWx(C*M) -> HxWx(C*M); int8: per-channel (axis 3) or
    per-tensor weights, int32 bias."""
    cin = model.tensors[first_input(op)].shape[-1]
    if is_quantized(model, first_input(op)):
        w = model.tensors[op.inputs[1]].shape
        cout = model.tensors[op.outputs[0]].shape[-1]
        mult = int_option(op, "depth_multiplier", 0) or cout // max(cin, 1)
        if len(w) != 4 or w[0] != 1 or w[3] != cout or cin * mult != cout:
            raise malformed(op, f"weights {list(w)}, {cin} input channels, depth multiplier {mult} and "
                                f"{cout} output channels do not fit")
        return (_quantized_convolution(op, model, "depthwise", 3, (("depth_multiplier", mult),)),)
    w, b, cout = _weights_and_bias(op, model)
    mult = int_option(op, "depth_multiplier", 0) or cout // max(cin, 1)
    if w.shape[0] != 1 or w.shape[3] != cout or cin * mult != cout:
        raise malformed(op, f"weights {list(w.shape)}, {cin} input channels, depth multiplier {mult} and "
                            f"{cout} output channels do not fit")
    kh, kw = w.shape[1], w.shape[2]
    return (_convolution_step(op, model, "depthwise", w.reshape(kh, kw, cout), b, (kh, kw),
                              (("depth_multiplier", mult),)),)


@rule("FULLY_CONNECTED", tensors=WEIGHTED)
def fully_connected(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``fully_connected``: src (batch, in), weights (out, in) as TFLite stores them, bias
    (out,); float32, or int8 / uint8 with per-tensor or per-channel (axis 0) weights and
    int32 bias. Only 2-D input and output (keep_num_dims=False)."""
    src, out = first_input(op), op.outputs[0]
    x, y = model.tensors[src].shape, model.tensors[out].shape
    if option(op, "keep_num_dims", False):
        raise refuse(op, "option keep_num_dims=True")
    if len(x) != 2 or len(y) != 2 or x[0] != y[0]:
        raise refuse(op, f"input {list(x)} -> output {list(y)} (2-D (batch, in) -> (batch, out) only)")
    if len(op.inputs) < 2 or op.inputs[1] < 0:
        raise ModelFormatError(f"{where(op)} has no weights tensor")
    wshape = model.tensors[op.inputs[1]].shape
    if tuple(wshape) != (y[1], x[1]):
        raise malformed(op, f"weights {list(wshape)} do not map {x[1]} inputs to {y[1]} outputs")
    if is_quantized(model, src):
        w, b, wq, bq = quantized_constants(op, model, 0, y[1])
        params = activation_params(quantized_activation(op)) + quantization(
            ("src", tensor_q(op, model, src)), ("weights", wq), ("bias", bq), ("dst", tensor_q(op, model, out)))
    else:
        w = constant(model, op, 1, "weights")
        bias = optional_constant(model, op, 2, "bias")
        b = np.zeros(y[1], np.float32) if bias is None else bias
        if b.shape != (y[1],):
            raise malformed(op, f"bias {list(b.shape)} does not fit {y[1]} outputs")
        params = activation_params(fused_activation(op))
    return (unary(op, "fully_connected", params,
                  (("weights", np.ascontiguousarray(w)), ("bias", np.ascontiguousarray(b)))),)


# ---------------------------------------------------------------------------- elementwise
@rule("ADD", tensors=FLOAT32_OR_INT8)
def add(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``add``, and its fused activation as an in-place ``activation`` step on the sum;
    inputs of the output's shape only (no broadcasting); int8: each input and the output with
    its own scale and zero point."""
    t = model.tensors
    ins = tuple(i for i in op.inputs if i >= 0)
    if len(ins) != 2:
        raise ModelFormatError(f"{where(op)} has {len(ins)} inputs, expected 2")
    for i in ins:
        if t[i].shape != t[op.outputs[0]].shape:
            raise refuse(op, f"broadcasting input {list(t[i].shape)} to {list(t[op.outputs[0]].shape)}")
    if t[ins[0]].is_constant and t[ins[1]].is_constant:
        raise refuse(op, "two constant inputs")
    if t[ins[0]].is_constant:  # a + b = b + a: the live input first, the constant as role b
        ins = (ins[1], ins[0])
    out = op.outputs[0]
    if is_quantized(model, ins[0]):
        act = quantized_activation(op)
        yq = tensor_q(op, model, out)
        params = quantization(("a", tensor_q(op, model, ins[0])), ("b", tensor_q(op, model, ins[1])), ("dst", yq))
        act_params = quantization(("src", yq), ("dst", yq))
    else:
        act, params, act_params = fused_activation(op), (), ()
    constant_b = t[ins[1]].data
    if constant_b is not None:
        steps: Tuple[Lowered, ...] = (Step(op.index, op.opcode, "add", ins[:1], out, params,
                                           (("b", np.ascontiguousarray(constant_b)),)),)
    else:
        steps = (Step(op.index, op.opcode, "add", ins, out, params),)
    if act is None:
        return steps
    # ACL's addition takes no fused activation (24.11: CpuAdd's validate() refuses
    # act_info.enabled()), so the activation runs in place on the sum: in the quantized domain
    # a clamp at the output's own scale, as TFLite's fused activation is.
    function, a, b = act
    return steps + (Step(op.index, op.opcode, "activation", (out,), out,
                         (("function", function), ("a", a), ("b", b), ("in_place", True)) + act_params),)


@rule("PRELU")
def prelu(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``prelu``: the constant slopes with the input's rank (leading 1s, as numpy broadcasts)."""
    if len(op.inputs) != 2:
        raise ModelFormatError(f"{where(op)} has {len(op.inputs)} inputs, expected 2 (input, alpha)")
    alpha = constant(model, op, 1, "alpha")
    x = model.tensors[first_input(op)].shape
    if alpha.ndim > len(x):
        raise malformed(op, f"alpha {list(alpha.shape)} has more dimensions than input {list(x)}")
    alpha = alpha.reshape((1,) * (len(x) - alpha.ndim) + alpha.shape)
    if any(a not in (1, n) for a, n in zip(alpha.shape, x)):
        raise malformed(op, f"alpha {list(alpha.shape)} does not broadcast to input {list(x)}")
    return (unary(op, "prelu", (), (("alpha", np.ascontiguousarray(alpha, np.float32)),)),)


# ---------------------------------------------------------------------------- activations
# TFLite activation operator -> bridge activation: the fused ones, and LOGISTIC
ACTIVATIONS: Dict[str, Activation] = {name: act for name, act in FUSED.items() if name is not None and act is not None}
ACTIVATIONS["LOGISTIC"] = ("logistic", 0.0, 0.0)


@rule(*ACTIVATIONS, tensors=FLOAT32_OR_INT8)
def activation(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``activation`` (the plan then fuses it into its producer or runs it in place);
    int8 (RELU, RELU6, RELU_N1_TO_1): TFLite requantizes the input to the output's scale,
    then clamps."""
    function, a, b = ACTIVATIONS[op.opcode]
    params: Params = (("function", function), ("a", a), ("b", b))
    src = first_input(op)
    if is_quantized(model, src):
        if function not in QUANTIZED_ACTIVATIONS:
            raise refuse(op, f"the operator on {model.tensors[src].dtype} tensors")
        params += quantization(("src", tensor_q(op, model, src)), ("dst", tensor_q(op, model, op.outputs[0])))
    return (unary(op, "activation", params),)


# TFLite's int8 / uint8 softmax output: scale 1/256, zero point -128 / 0
SOFTMAX_OUTPUT = {np.dtype(np.int8): (1 / 256, -128), np.dtype(np.uint8): (1 / 256, 0)}


@rule("SOFTMAX", tensors=FLOAT32_OR_INT8)
def softmax(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``softmax`` along the last axis; int8 / uint8 out with scale 1/256 and zero point
    -128 / 0 (TFLite's requirement)."""
    params: Params = (("beta", float_option(op, "beta", 1.0)),)
    src, out = first_input(op), op.outputs[0]
    if is_quantized(model, src):
        yq, want = tensor_q(op, model, out), SOFTMAX_OUTPUT[model.tensors[out].dtype]
        if yq != want:
            raise refuse(op, f"{model.tensors[out].dtype} output quantization (scale {yq[0]}, zero point {yq[1]}); "
                             f"TFLite's is scale 1/256, zero point {want[1]}")
        params += quantization(("src", tensor_q(op, model, src)), ("dst", yq))
    return (unary(op, "softmax", params),)


# ---------------------------------------------------------------------------- quantization
@rule("QUANTIZE", tensors=quantize_gate)
def quantize(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``quantize``: float32 -> int8 / uint8, or a requantization between quantized tensors."""
    src, out = first_input(op), op.outputs[0]
    xq = tensor_q(op, model, src) if is_quantized(model, src) else None
    return (unary(op, "quantize", quantization(("src", xq), ("dst", tensor_q(op, model, out)))),)


@rule("DEQUANTIZE", tensors=dequantize_gate)
def dequantize(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``dequantize`` of a live int8 / uint8 tensor to float32 (DEQUANTIZE of a constant
    was expanded at load time by :func:`~..tflite_reader.fold_constant_dequantize`)."""
    return (unary(op, "dequantize", quantization(("src", tensor_q(op, model, first_input(op))))),)


# ---------------------------------------------------------------------------- pooling
@rule("MAX_POOL_2D", "AVERAGE_POOL_2D", tensors=FLOAT32_OR_INT8)
def pool_2d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``pooling`` (average over the elements inside the input, as TFLite); int8 / uint8
    with the same scale and zero point in and out (TFLite requires it)."""
    no_fused_activation(op)
    kh, kw = int_option(op, "filter_height"), int_option(op, "filter_width")
    stride, padding = window(op, model, kh, kw)
    pool = "max" if op.opcode == "MAX_POOL_2D" else "avg"
    params: Params = (("pool_type", pool), ("kernel", (kh, kw)), ("stride", stride), ("padding", padding))
    src, out = first_input(op), op.outputs[0]
    if is_quantized(model, src):
        xq, yq = tensor_q(op, model, src), tensor_q(op, model, out)
        if xq != yq:
            raise refuse(op, f"input quantization (scale {xq[0]}, zero point {xq[1]}) differing from the output's "
                             f"(scale {yq[0]}, zero point {yq[1]})")
        params += quantization(("src", xq), ("dst", yq))
    return (unary(op, "pooling", params),)


# the spatial axes of an NHWC tensor: the only ones MEAN is lowered over (global average pooling)
MEAN_AXES = (1, 2)


@rule("MEAN", tensors=FLOAT32_OR_INT8_WITH_TABLE)
def mean(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """MEAN over H and W of an NHWC tensor (constant axes [1, 2] or [2, 1], negative ones
    resolved as TFLite does) -> a global average ``pooling`` (kernel H x W, no padding) into
    (N, 1, 1, C): the output itself with keep_dims, else an :class:`Intermediate` of which
    the (N, C) output is a reshape view. Other axes are refused naming them.

    int8 / uint8 (``global_mean``: the numpy plan computes TFLite's MEAN, not its
    AVERAGE_POOL_2D): TFLite's reference kernel sums the ``n`` elements (``s``), subtracts ``n`` x the
    input zero point and rescales by ``in_scale / out_scale / n`` as one fixed-point
    multiplier (the Q31 multiplier of ``in_scale / out_scale`` shifted left by
    ``floor(log2 n)`` bits and divided by ``n``, truncating) in gemmlowp's two roundings (the
    rounding doubling high multiply, then a right shift rounding half away from zero);
    input and output may have different scales and zero points. ACL's average pooling
    requantizes in float instead (measured on 24.11: ``round(s / ((out_scale / in_scale) *
    n)) + out_zero_point - trunc(in_zero_point * in_scale / out_scale)``, the offset
    truncated toward zero; with equal quantization ``round(s / n)``, ties to even): within
    1 step of TFLite's arithmetic (tests/models/test_mean_acl.py)."""
    no_fused_activation(op)
    src, out = first_input(op), op.outputs[0]
    axes = np.asarray(integer_table(op, model, "a non-constant axis input")).reshape(-1)
    x, y = tuple(model.tensors[src].shape), tuple(model.tensors[out].shape)
    if len(x) != 4:
        raise refuse(op, f"MEAN of a rank-{len(x)} input {list(x)} (rank 4, NHWC, over axes [1, 2] only)")
    resolved = sorted({int(a) + 4 if a < 0 else int(a) for a in axes})
    if resolved != list(MEAN_AXES):
        raise refuse(op, f"MEAN over axes {axes.tolist()} (only over H and W: axes [1, 2])")
    keep = option(op, "keep_dims", False)
    if not isinstance(keep, bool):
        raise malformed(op, f"option keep_dims is {keep!r}, expected True or False")
    n, h, w, c = x
    pooled = (n, 1, 1, c)
    want = pooled if keep else (n, c)
    if y != want:
        raise malformed(op, f"the mean of {list(x)} over axes [1, 2] with keep_dims={keep} is {list(want)}, "
                            f"the output says {list(y)}")
    params: Params = (("pool_type", "avg"), ("kernel", (h, w)), ("stride", (1, 1)), ("padding", (0, 0, 0, 0)),
                      ("global_mean", True))
    if is_quantized(model, src):
        params += quantization(("src", tensor_q(op, model, src)), ("dst", tensor_q(op, model, out)))
    if keep:
        return (unary(op, "pooling", params),)
    key = -2
    return (Intermediate(op.index, op.opcode, key, pooled, out),
            Step(op.index, op.opcode, "pooling", (src,), key, params),
            Reshape(op.index, op.opcode, key, out))


# ---------------------------------------------------------------------------- shape and view
@rule("PAD", tensors=FLOAT32_WITH_TABLE)
def pad(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``pad`` (zeros) with the constant paddings ((before, after) per dimension)."""
    pads = integer_table(op, model, "non-constant paddings")
    x, y = model.tensors[first_input(op)].shape, model.tensors[op.outputs[0]].shape
    if pads.shape != (len(x), 2) or (pads < 0).any():
        raise malformed(op, f"paddings {pads.tolist()} do not fit input rank {len(x)}")
    out = tuple(int(d + a + b) for d, (a, b) in zip(x, pads))
    if out != tuple(y):
        raise malformed(op, f"{list(x)} padded by {pads.tolist()} is {list(out)}, the output says {list(y)}")
    return (unary(op, "pad", (("pad_width", tuple((int(a), int(b)) for a, b in pads)),)),)


@rule("RESIZE_BILINEAR", tensors=FLOAT32_WITH_TABLE)
def resize_bilinear(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``resize`` (bilinear) with TFLite's align_corners / half_pixel_centers; the size
    input must be a constant equal to the output's height and width."""
    size = np.asarray(integer_table(op, model, "a non-constant size input")).reshape(-1)
    x, y = nhwc(op, model)
    if size.tolist() != list(y[1:3]) or x[0] != y[0] or x[3] != y[3]:
        raise malformed(op, f"input {list(x)} resized to size {size.tolist()} does not give the output {list(y)}")
    align, half = bool(option(op, "align_corners", False)), bool(option(op, "half_pixel_centers", False))
    if align and half:
        raise refuse(op, "option align_corners=True together with half_pixel_centers=True")
    return (unary(op, "resize", (("align_corners", align), ("half_pixel_centers", half))),)


@rule("RESHAPE", tensors=FLOAT32_OR_INT8_WITH_TABLE)
def reshape(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """A view (or a counted copy): the new shape is the output's, the shape input is not read."""
    src, out = first_input(op), op.outputs[0]
    x, y = model.tensors[src].shape, model.tensors[out].shape
    if int(np.prod(x)) != int(np.prod(y)):
        raise malformed(op, f"{list(x)} -> {list(y)} changes the number of elements")
    return (Reshape(op.index, op.opcode, src, out),)


@rule("CONCATENATION", tensors=FLOAT32_OR_INT8)
def concatenation(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """Views: every input a slice of the output along the axis (or a counted copy into it)."""
    t = model.tensors
    no_fused_activation(op)
    out = op.outputs[0]
    rank = len(t[out].shape)
    axis = int_option(op, "axis", 0)
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise malformed(op, f"axis {option(op, 'axis')} for rank {rank}")
    parts: List[Tuple[int, int]] = []
    start = 0
    for i in op.inputs:
        if i < 0:
            raise malformed(op, f"input {len(parts)} is absent")
        shape = t[i].shape
        along = shape[axis] if len(shape) == rank else -1
        expect = tuple(t[out].shape[:axis]) + (along,) + tuple(t[out].shape[axis + 1:])
        if len(shape) != rank or tuple(shape) != expect:
            raise malformed(op, f"input {list(shape)} does not fit output {list(t[out].shape)} along axis {axis}")
        parts.append((i, start))
        start += shape[axis]
    if start != t[out].shape[axis]:
        raise malformed(op, f"inputs give {start} along axis {axis}, the output has {t[out].shape[axis]}")
    return (Concatenate(op.index, op.opcode, out, axis, tuple(parts)),)


SUPPORTED: Tuple[str, ...] = tuple(sorted(RULES))

__all__ = ["Rule", "RULES", "SUPPORTED", "RuleFunction", "rule", "rule_for", "refuse_operator", "MEAN_AXES"]
