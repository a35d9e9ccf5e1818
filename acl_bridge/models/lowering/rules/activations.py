"""Activation operators (RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1, TANH, LOGISTIC, HARD_SWISH,
LEAKY_RELU, ELU, SQRT, SQUARE, GELU: ACL's activation layer) and SOFTMAX."""

from __future__ import annotations

from typing import Dict, Tuple

import numpy as np

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import FUSED, Activation, first_input, float_option, option, refuse, unary
from ..quantized import QUANTIZED_ACTIVATIONS, is_quantized, quantization, tensor_q
from ..step import Lowered, Params
from .table import FLOAT32_OR_INT8, rule


# TFLite activation operator -> bridge activation: the fused ones, and the others ACL has
# (LEAKY_RELU's slope is its option alpha: the rule puts it in)
ACTIVATIONS: Dict[str, Activation] = {name: act for name, act in FUSED.items() if name is not None and act is not None}
ACTIVATIONS.update({
    "LOGISTIC": ("logistic", 0.0, 0.0), "HARD_SWISH": ("hard_swish", 0.0, 0.0), "ELU": ("elu", 1.0, 0.0),
    "LEAKY_RELU": ("leaky_relu", 0.2, 0.0), "SQRT": ("sqrt", 0.0, 0.0), "SQUARE": ("square", 0.0, 0.0),
    "RELU_0_TO_1": ("lu_bounded_relu", 1.0, 0.0),
    # ACL 24.x (ActivationFunction::GELU, the erf form); 20.08 refuses it as unsupported at
    # configure and the runner's fallback runs it
    "GELU": ("gelu", 0.0, 0.0)})
# int8 / uint8 beyond the clamps: TFLite's lookup tables (ACL's activation computes the same
# function and requantizes, within one step of the table)
TABLE_ACTIVATIONS = ("logistic", "tanh")


@rule(*ACTIVATIONS, tensors=FLOAT32_OR_INT8)
def activation(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``activation`` (the plan then fuses it into its producer or runs it in place);
    int8 / uint8 RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1: TFLite requantizes the input to the
    output's scale, then clamps; LOGISTIC and TANH: TFLite's lookup table of the function."""
    function, a, b = ACTIVATIONS[op.opcode]
    if op.opcode == "GELU" and option(op, "approximate", False):
        raise refuse(op, "option approximate=True (ACL's GELU is the erf form)")
    if op.opcode == "LEAKY_RELU":
        a = float_option(op, "alpha", a)
    params: Params = (("function", function), ("a", a), ("b", b))
    src = first_input(op)
    if is_quantized(model, src):
        if function not in QUANTIZED_ACTIVATIONS + TABLE_ACTIVATIONS:
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
