"""QUANTIZE and DEQUANTIZE."""

from __future__ import annotations

from typing import Tuple

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import first_input, unary
from ..quantized import dequantize_gate, is_quantized, quantization, quantize_gate, tensor_q
from ..step import Lowered
from .table import rule


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
