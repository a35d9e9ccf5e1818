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

from ..tflite_reader import ModelFormatError, ModelSpec, OperatorSpec
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
from .step import Concatenate, Lowered, Params, Reshape, Step

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
# why an operator without a rule has none, where there is more to say than the list
WHY_NOT = {
    "DEQUANTIZE": "only DEQUANTIZE of a constant is supported (expanded at load time)",
}


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


@rule("CONV_2D")
def conv_2d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``convolution``: weights OHWI as TFLite stores them (the bridge's NHWC layout)."""
    w, b, cout = _weights_and_bias(op, model)
    cin = model.tensors[first_input(op)].shape[-1]
    if w.shape[0] != cout or w.shape[3] != cin:
        raise malformed(op, f"weights {list(w.shape)} do not map {cin} to {cout} channels")
    return (_convolution_step(op, model, "convolution", w, b, (w.shape[1], w.shape[2]), ()),)


@rule("DEPTHWISE_CONV_2D")
def depthwise_conv_2d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``depthwise``: weights 1xHxWx(C*M) -> HxWx(C*M)."""
    w, b, cout = _weights_and_bias(op, model)
    cin = model.tensors[first_input(op)].shape[-1]
    mult = int_option(op, "depth_multiplier", 0) or cout // max(cin, 1)
    if w.shape[0] != 1 or w.shape[3] != cout or cin * mult != cout:
        raise malformed(op, f"weights {list(w.shape)}, {cin} input channels, depth multiplier {mult} and "
                            f"{cout} output channels do not fit")
    kh, kw = w.shape[1], w.shape[2]
    return (_convolution_step(op, model, "depthwise", w.reshape(kh, kw, cout), b, (kh, kw),
                              (("depth_multiplier", mult),)),)


# ---------------------------------------------------------------------------- elementwise
@rule("ADD")
def add(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``add`` with its fused activation; inputs of the output's shape only (no broadcasting)."""
    t = model.tensors
    ins = tuple(i for i in op.inputs if i >= 0)
    if len(ins) != 2:
        raise ModelFormatError(f"{where(op)} has {len(ins)} inputs, expected 2")
    for i in ins:
        if t[i].shape != t[op.outputs[0]].shape:
            raise refuse(op, f"broadcasting input {list(t[i].shape)} to {list(t[op.outputs[0]].shape)}")
    return (Step(op.index, op.opcode, "add", ins, op.outputs[0], activation_params(fused_activation(op))),)


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


@rule(*ACTIVATIONS)
def activation(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``activation`` (the plan then fuses it into its producer or runs it in place)."""
    function, a, b = ACTIVATIONS[op.opcode]
    return (unary(op, "activation", (("function", function), ("a", a), ("b", b))),)


@rule("SOFTMAX")
def softmax(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    return (unary(op, "softmax", (("beta", float_option(op, "beta", 1.0)),)),)


# ---------------------------------------------------------------------------- pooling
@rule("MAX_POOL_2D", "AVERAGE_POOL_2D")
def pool_2d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``pooling`` (average over the elements inside the input, as TFLite)."""
    no_fused_activation(op)
    kh, kw = int_option(op, "filter_height"), int_option(op, "filter_width")
    stride, padding = window(op, model, kh, kw)
    pool = "max" if op.opcode == "MAX_POOL_2D" else "avg"
    return (unary(op, "pooling", (("pool_type", pool), ("kernel", (kh, kw)), ("stride", stride),
                                  ("padding", padding))),)


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


@rule("RESHAPE", tensors=FLOAT32_WITH_TABLE)
def reshape(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """A view (or a counted copy): the new shape is the output's, the shape input is not read."""
    src, out = first_input(op), op.outputs[0]
    x, y = model.tensors[src].shape, model.tensors[out].shape
    if int(np.prod(x)) != int(np.prod(y)):
        raise malformed(op, f"{list(x)} -> {list(y)} changes the number of elements")
    return (Reshape(op.index, op.opcode, src, out),)


@rule("CONCATENATION")
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

__all__ = ["Rule", "RULES", "SUPPORTED", "RuleFunction", "rule", "rule_for", "refuse_operator"]
