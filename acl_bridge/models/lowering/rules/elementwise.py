"""Elementwise operators: the binary ones (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM,
SQUARED_DIFFERENCE, POW, and FLOOR_DIV as a division and a floor) with numpy broadcasting, PRELU, and the unary ones (ABS, EXP, LOG,
NEG, RSQRT, SIN, FLOOR, ROUND) -> the bridge's elementwise kinds
(:mod:`acl_bridge.families.elementwise`, and ``add`` / ``sub`` / ``mul``)."""

from __future__ import annotations

from typing import Dict, Tuple

import numpy as np

from ...format.tflite_reader import ModelFormatError, ModelSpec, OperatorSpec
from ..helpers import broadcast_shape, constant, first_input, fused_activation, malformed, refuse, unary, where
from ..quantized import is_quantized, quantization, quantized_activation, tensor_q
from ..step import Intermediate, Lowered, Params, Step
from .table import FLOAT32, FLOAT32_OR_INT8, rule

# TFLite binary operator -> step kind
BINARY: Dict[str, str] = {"ADD": "add", "SUB": "sub", "MUL": "mul", "DIV": "div", "MAXIMUM": "maximum",
                          "MINIMUM": "minimum", "SQUARED_DIFFERENCE": "squared_difference", "POW": "power"}
# a op b == b op a: the live input goes first, a constant takes role b
COMMUTATIVE = frozenset({"ADD", "MUL", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE"})
# int8 / uint8 on ACL (the others are float on ACL: its division and power are; int8 MUL: ACL
# 24.11's quantized NEPixelWiseMultiplication crashed, a segmentation fault in the runner,
# emulated arm64, with and without broadcasting (20.08 ran it), so it stays on the CPU fallback)
QUANTIZED_BINARY = frozenset({"ADD", "SUB", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE"})
# TFLite compares the stored values: one quantization in and out
SAME_QUANTIZATION = frozenset({"MAXIMUM", "MINIMUM"})
# TFLite unary operator -> step kind (float32)
UNARY: Dict[str, str] = {"ABS": "abs", "EXP": "exp", "LOG": "log", "NEG": "neg", "RSQRT": "rsqrt", "SIN": "sin",
                         "FLOOR": "floor", "ROUND": "round"}


def _broadcast(op: OperatorSpec, model: ModelSpec, ins: Tuple[int, int]) -> Tuple[int, ...]:
    """The output's shape, checked to be the inputs' numpy broadcast (ModelFormatError otherwise)."""
    t = model.tensors
    y = tuple(t[op.outputs[0]].shape)
    both = broadcast_shape(tuple(t[ins[0]].shape), tuple(t[ins[1]].shape))
    if both is None:
        raise malformed(op, f"inputs {list(t[ins[0]].shape)} and {list(t[ins[1]].shape)} do not broadcast")
    if both != y:
        raise malformed(op, f"inputs {list(t[ins[0]].shape)} and {list(t[ins[1]].shape)} broadcast to {list(both)}, "
                            f"the output says {list(y)}")
    return y


def _two_inputs(op: OperatorSpec, model: ModelSpec) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """A binary operator's two inputs and its output's shape (their numpy broadcast);
    ModelFormatError for another number of inputs, a refusal for two constants."""
    ins = tuple(i for i in op.inputs if i >= 0)
    if len(ins) != 2:
        raise ModelFormatError(f"{where(op)} has {len(ins)} inputs, expected 2")
    y = _broadcast(op, model, ins)
    if all(model.tensors[i].is_constant for i in ins):
        raise refuse(op, "two constant inputs")
    return ins, y


def _operands(model: ModelSpec, ins: Tuple[int, ...], y: Tuple[int, ...], roles: Tuple[str, ...]):
    """A binary step's live inputs, and its constants by role with the output's rank (leading 1s)."""
    t = model.tensors
    live = tuple(i for i in ins if not t[i].is_constant)
    constants = tuple((roles[k], np.ascontiguousarray(t[i].data.reshape((1,) * (len(y) - t[i].data.ndim)
                                                                         + t[i].data.shape)))
                      for k, i in enumerate(ins) if t[i].is_constant)
    return live, constants


@rule(*BINARY, tensors=FLOAT32_OR_INT8)
def binary(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``add`` / ``sub`` / ``mul`` / ``div`` / ``maximum`` / ``minimum`` /
    ``squared_difference`` / ``power``, broadcasting as numpy (a constant input takes the
    output's rank, leading 1s), and the fused activation as an in-place ``activation`` step
    on the result (ACL's functions of this family take none). int8 / uint8 (ADD, SUB, SQUARED_DIFFERENCE, MAXIMUM,
    MINIMUM): each input and the output with its own scale and zero point (MAXIMUM / MINIMUM:
    one quantization for all, as TFLite requires)."""
    t = model.tensors
    ins, y = _two_inputs(op, model)
    roles = ("a", "b")
    if op.opcode in COMMUTATIVE and t[ins[0]].is_constant:  # the live input first, the constant as role b
        ins = (ins[1], ins[0])
    kind, out = BINARY[op.opcode], op.outputs[0]
    if is_quantized(model, ins[0]):
        if op.opcode not in QUANTIZED_BINARY:
            raise refuse(op, f"the operator on {t[ins[0]].dtype} tensors (int8 / uint8: "
                             f"{', '.join(sorted(QUANTIZED_BINARY))})")
        yq = tensor_q(op, model, out)
        qs = (tensor_q(op, model, ins[0]), tensor_q(op, model, ins[1]))
        if op.opcode in SAME_QUANTIZATION and {qs[0], qs[1]} != {yq}:
            raise refuse(op, f"inputs quantized {qs[0]} and {qs[1]} with the output {yq} (one quantization only)")
        act = quantized_activation(op)
        params: Params = quantization((roles[0], qs[0]), (roles[1], qs[1]), ("dst", yq))
        act_params: Params = quantization(("src", yq), ("dst", yq))
    else:
        act, params, act_params = fused_activation(op), (), ()
    live, constants = _operands(model, ins, y, roles)
    steps: Tuple[Lowered, ...] = (Step(op.index, op.opcode, kind, live, out, params, constants),)
    if act is None:
        return steps
    # in the quantized domain a clamp at the output's own scale, as TFLite's fused activation is
    function, a, b = act
    return steps + (Step(op.index, op.opcode, "activation", (out,), out,
                         (("function", function), ("a", a), ("b", b), ("in_place", True)) + act_params),)


@rule("FLOOR_DIV", tensors=FLOAT32)
def floor_div(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``div`` into a tensor the plan adds, then ``floor`` into the output: TFLite's
    floor(a / b) on float32 (IEEE division, an exact floor), broadcasting as DIV; int32 is
    refused at the type gate (ACL divides floats only) and runs on the fallback."""
    ins, y = _two_inputs(op, model)
    live, constants = _operands(model, ins, y, ("a", "b"))
    quotient, out = -2, op.outputs[0]
    return (Intermediate(op.index, op.opcode, quotient, y, out),
            Step(op.index, op.opcode, "div", live, quotient, (), constants),
            Step(op.index, op.opcode, "floor", (quotient,), out, ()))


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


@rule(*UNARY, tensors=FLOAT32)
def elementwise_unary(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``abs`` / ``exp`` / ``log`` / ``neg`` / ``rsqrt`` / ``sin`` / ``floor`` / ``round``
    (float32; ROUND: ties to even, as TFLite)."""
    x, y = model.tensors[first_input(op)].shape, model.tensors[op.outputs[0]].shape
    if tuple(x) != tuple(y):
        raise malformed(op, f"input {list(x)} and output {list(y)} differ")
    return (unary(op, UNARY[op.opcode]),)
