"""The int8 side of the lowering rules: the type gate that lets an operator be float32 or
quantized (int8 / uint8, per-tensor quantization on every live tensor), quantization
parameters as the steps carry them (``("quantization", ((role, q), ...))``, the
int8-contract: ``q`` = (scale, zero_point) per tensor, (tuple of scales, 0) per output channel
for weights, int32 bias (input scale x weight scale, 0)), and the constants of quantized
convolutions and fully connected layers."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import numpy as np

from ..format.tflite_reader import ModelSpec, OperatorSpec, TensorSpec
from .helpers import Activation, TensorCheck, fused_activation, malformed, option, refuse
from .step import Params

QUANTIZED = (np.dtype(np.int8), np.dtype(np.uint8))
# (scale, zero point) per tensor, or (scales per output channel, 0)
Q = Tuple[Union[float, Tuple[float, ...]], int]
# fused activations with a clamp in the quantized domain (TFLite's CalculateActivationRangeQuantized)
QUANTIZED_ACTIVATIONS = (None, "relu", "bounded_relu", "lu_bounded_relu")


def is_quantized(model: ModelSpec, t: int) -> bool:
    return model.tensors[t].dtype in QUANTIZED


def live(op: OperatorSpec, model: ModelSpec, constant_inputs: Tuple[int, ...] = ()) -> Tuple[int, ...]:
    """The operator's tensors that are computed or fed at run time (its output included),
    leaving out the inputs at positions ``constant_inputs`` (weights, bias, tables)."""
    ins = tuple(i for k, i in enumerate(op.inputs) if i >= 0 and k not in constant_inputs)
    return ins + tuple(op.outputs)


_FLOAT32_ONLY = frozenset((np.dtype(np.float32),))


def all_float32(op: OperatorSpec, tensors: Sequence[TensorSpec]) -> bool:
    """True where every tensor is float32, False where every one is int8 (or every one uint8)
    with one scale and zero point each; refused otherwise, naming the types."""
    dtypes = {t.dtype for t in tensors}
    if dtypes == _FLOAT32_ONLY:
        return True
    if len(dtypes) != 1 or not dtypes <= set(QUANTIZED):
        raise refuse(op, "tensor types " + ", ".join(f"#{t.index} {t.dtype}" for t in tensors)
                     + " (float32 only, or int8 only, or uint8 only)")
    for t in tensors:
        per_tensor(op, t)
    return False


def float32_or_quantized(*constant_inputs: int, weights: Optional[int] = None, bias: Optional[int] = None) -> TensorCheck:
    """The gate of the rules that run float32 or int8: one output; every live tensor float32,
    or every live tensor int8 (or every one uint8) with one scale and zero point. Inputs at
    ``constant_inputs`` (integer tables) are the rule's to read; in the quantized form the
    ``weights`` input must be int8 / uint8 with quantization and the ``bias`` input int32."""

    skip = tuple(set(constant_inputs) | {k for k in (weights, bias) if k is not None})  # (once per rule)

    def check(op: OperatorSpec, model: ModelSpec) -> None:
        if len(op.outputs) != 1:
            raise refuse(op, f"{len(op.outputs)} outputs")
        if all_float32(op, [model.tensors[i] for i in live(op, model, skip)]):
            for k in (weights, bias):
                i = op.inputs[k] if k is not None and k < len(op.inputs) else -1
                if i >= 0 and model.tensors[i].dtype != np.float32:
                    raise refuse(op, f"tensor #{i} {model.tensors[i].name!r} of type {model.tensors[i].dtype} "
                                     f"in a float32 operator (hybrid quantization)")
            return
        if weights is not None and weights < len(op.inputs) and op.inputs[weights] >= 0:
            w = model.tensors[op.inputs[weights]]
            if w.dtype not in QUANTIZED or w.quantization is None:
                raise refuse(op, f"weights tensor #{w.index} {w.name!r} of type {w.dtype} "
                                 f"{'without' if w.quantization is None else 'with'} quantization "
                                 f"(int8 / uint8 with quantization in a quantized operator)")
        if bias is not None and bias < len(op.inputs) and op.inputs[bias] >= 0:
            b = model.tensors[op.inputs[bias]]
            if b.dtype != np.int32:
                raise refuse(op, f"bias tensor #{b.index} {b.name!r} of type {b.dtype} (int32 in a quantized operator)")

    return check


def quantize_gate(op: OperatorSpec, model: ModelSpec) -> None:
    """QUANTIZE: a live float32 or int8 / uint8 input, an int8 / uint8 output, per tensor."""
    if len(op.inputs) != 1 or len(op.outputs) != 1 or op.inputs[0] < 0:
        raise refuse(op, f"{len(op.inputs)} inputs / {len(op.outputs)} outputs (1 and 1)")
    x, y = model.tensors[op.inputs[0]], model.tensors[op.outputs[0]]
    if x.is_constant:
        raise refuse(op, f"QUANTIZE of the constant tensor #{x.index} {x.name!r}")
    if x.dtype != np.float32 and x.dtype not in QUANTIZED or y.dtype not in QUANTIZED:
        raise refuse(op, f"types {x.dtype} -> {y.dtype} (float32 / int8 / uint8 -> int8 / uint8)")
    if x.dtype in QUANTIZED:
        per_tensor(op, x)
    per_tensor(op, y)


def dequantize_gate(op: OperatorSpec, model: ModelSpec) -> None:
    """DEQUANTIZE of a live tensor (a constant one was folded at load time): int8 / uint8 ->
    float32, per tensor."""
    if len(op.inputs) != 1 or len(op.outputs) != 1 or op.inputs[0] < 0:
        raise refuse(op, f"{len(op.inputs)} inputs / {len(op.outputs)} outputs (1 and 1)")
    x, y = model.tensors[op.inputs[0]], model.tensors[op.outputs[0]]
    if x.dtype not in QUANTIZED or y.dtype != np.float32:
        raise refuse(op, f"types {x.dtype} -> {y.dtype} (int8 / uint8 -> float32; float16 constants are folded "
                         f"at load time)")
    per_tensor(op, x)


def per_tensor(op: OperatorSpec, t: TensorSpec) -> Tuple[float, int]:
    """(scale, zero point) of a live quantized tensor; refused without quantization or with
    more than one scale."""
    q = t.quantization
    if q is None or not q.scale:
        raise refuse(op, f"tensor #{t.index} {t.name!r} of type {t.dtype} without quantization parameters")
    if len(q.scale) != 1:
        raise refuse(op, f"per-axis quantization ({len(q.scale)} scales) of the live tensor #{t.index} {t.name!r}")
    return float(q.scale[0]), int(q.zero_point[0]) if q.zero_point else 0


def tensor_q(op: OperatorSpec, model: ModelSpec, t: int) -> Tuple[float, int]:
    return per_tensor(op, model.tensors[t])


def weights_q(op: OperatorSpec, w: TensorSpec, axis: int) -> Q:
    """Weights quantization: (scale, zero point) per tensor, or (scales, 0) per output
    channel along ``axis`` (symmetric: every zero point 0)."""
    q = w.quantization
    assert q is not None  # the gate checked it
    if len(q.scale) == 1:
        zp = int(q.zero_point[0]) if q.zero_point else 0
        if w.dtype == np.int8 and zp != 0:
            raise malformed(op, f"int8 weights tensor #{w.index} {w.name!r} has zero point {zp}, expected 0")
        return float(q.scale[0]), zp
    if q.quantized_dimension != axis or len(q.scale) != w.shape[axis]:
        raise malformed(op, f"weights tensor #{w.index} {w.name!r}: {len(q.scale)} scales on axis "
                            f"{q.quantized_dimension}, expected {w.shape[axis]} on axis {axis} (output channels)")
    if any(q.zero_point):
        raise refuse(op, f"per-channel weights tensor #{w.index} {w.name!r} with nonzero zero points")
    # Python floats, as numpy's float64 gives them (without a numpy call per operator: a first
    # start's cost under emulation)
    return tuple(map(float, q.scale)), 0


def bias_q(x: Tuple[float, int], w: Q) -> Q:
    """The int32 bias's quantization: input scale x weight scale(s), zero point 0."""
    s, scale = w[0], float(x[0])
    if isinstance(s, tuple):  # float64 products, as numpy's (Python floats are IEEE doubles)
        if set(map(type, s)) <= _FLOAT:  # (weights_q's: the products in map's own loop, no frame per channel)
            return tuple(map(scale.__mul__, s)), 0
        return tuple([scale * float(v) for v in s]), 0
    return scale * float(s), 0


_FLOAT = frozenset((float,))


def quantized_constants(op: OperatorSpec, model: ModelSpec, axis: int, cout: int
                        ) -> Tuple[np.ndarray, np.ndarray, Q, Q]:
    """(weights as stored, int32 bias (zeros when absent), weights q, bias q)."""
    w = model.tensors[op.inputs[1]]
    if w.data is None:
        raise refuse(op, f"non-constant weights (tensor #{w.index} {w.name!r})")
    wq = weights_q(op, w, axis)
    x = tensor_q(op, model, op.inputs[0])
    k = op.inputs[2] if len(op.inputs) > 2 else -1
    if k >= 0 and model.tensors[k].data is None:
        raise refuse(op, f"non-constant bias (tensor #{k} {model.tensors[k].name!r})")
    b = np.zeros(cout, np.int32) if k < 0 else model.tensors[k].data
    if b.shape != (cout,):
        raise malformed(op, f"bias {list(b.shape)} does not fit {cout} output channels")
    return w.data, b, wq, bias_q(x, wq)


def quantization(*roles: Tuple[str, Optional[Q]]) -> Params:
    """The ``quantization`` step parameter (roles without quantization left out)."""
    return (("quantization", tuple((r, q) for r, q in roles if q is not None)),)


def one_quantization(op: OperatorSpec, model: ModelSpec, src: int, out: int) -> Params:
    """The ``quantization`` parameter of an operator that moves or compares stored values:
    src and dst with one scale and zero point (TFLite's requirement), refused otherwise."""
    xq, yq = tensor_q(op, model, src), tensor_q(op, model, out)
    if xq != yq:
        raise refuse(op, f"input quantization (scale {xq[0]}, zero point {xq[1]}) differing from the output's "
                         f"(scale {yq[0]}, zero point {yq[1]})")
    return quantization(("src", xq), ("dst", yq))


def quantized_activation(op: OperatorSpec) -> Optional[Activation]:
    """The fused activation of a quantized operator: a clamp of its output, refused where
    TFLite has none (TANH, SIGN_BIT)."""
    act = fused_activation(op)
    if act is not None and act[0] not in QUANTIZED_ACTIVATIONS:
        raise refuse(op, f"option fused_activation_function={option(op, 'fused_activation_function')} "
                         f"on a quantized operator")
    return act


__all__ = ["QUANTIZED", "QUANTIZED_ACTIVATIONS", "Q", "is_quantized", "all_float32", "float32_or_quantized", "quantize_gate",
           "dequantize_gate", "per_tensor", "tensor_q", "weights_q", "bias_q", "quantized_constants",
           "quantization", "one_quantization", "quantized_activation"]
