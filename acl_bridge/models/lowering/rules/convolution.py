"""Convolution-like operators: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED (float32, and int8 /
uint8 with per-tensor or per-channel weights and int32 bias)."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from ...format.tflite_reader import ModelFormatError, ModelSpec, OperatorSpec
from ..helpers import (
    activation_params,
    constant,
    first_input,
    fused_activation,
    int_option,
    malformed,
    option,
    optional_constant,
    refuse,
    unary,
    where,
    window,
)
from ..quantized import is_quantized, quantization, quantized_activation, quantized_constants, tensor_q
from ..step import Lowered, Params, Step
from .table import WEIGHTED, rule


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
