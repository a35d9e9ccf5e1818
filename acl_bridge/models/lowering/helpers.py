"""The parts the lowering rules share: refusals and format errors that name the operator,
typed option access, the tensor-type gate, TFLite's SAME padding and windows, fused
activations, constants and integer tables (paddings, sizes)."""

from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

import numpy as np

from ..format.tflite_reader import ModelFormatError, ModelSpec, OperatorSpec, UnsupportedModelError
from .step import Params, Step

# A bridge activation: (function, a, b) as ACL's ActivationLayerInfo takes them.
Activation = Tuple[str, float, float]
# A check on an operator's tensors, run for every operator before any is lowered.
TensorCheck = Callable[[OperatorSpec, ModelSpec], None]

# TFLite fused activation -> bridge activation (None: none)
FUSED: Dict[Optional[str], Optional[Activation]] = {
    None: None, "RELU": ("relu", 0.0, 0.0), "RELU6": ("bounded_relu", 6.0, 0.0),
    "RELU_N1_TO_1": ("lu_bounded_relu", 1.0, -1.0), "TANH": ("tanh", 1.0, 1.0)}


# ---------------------------------------------------------------------------- shapes
def broadcast_shape(a: Tuple[int, ...], b: Tuple[int, ...]) -> Optional[Tuple[int, ...]]:
    """numpy's broadcast of two shapes of extents >= 0 (``np.broadcast_shapes(a, b)``, in
    Python: numpy's call makes arrays, a few each binary operator of a load costs under QEMU),
    or None where they do not broadcast."""
    n = max(len(a), len(b))
    out = []
    for x, y in zip((1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(out)


# ---------------------------------------------------------------------------- errors
def where(op: OperatorSpec) -> str:
    """How every message names the operator: ``operator #12 CONV_2D``."""
    return f"operator #{op.index} {op.opcode}"


def refuse(op: OperatorSpec, what: str) -> UnsupportedModelError:
    """A well-formed operator this library does not run (``what``: the option, type...)."""
    return UnsupportedModelError(f"{where(op)}: {what} is not supported: {op!r}")


def malformed(op: OperatorSpec, what: str) -> ModelFormatError:
    """An operator whose tensors or options contradict each other."""
    return ModelFormatError(f"{where(op)}: {what}")


# ---------------------------------------------------------------------------- options
def option(op: OperatorSpec, name: str, default: object = None) -> object:
    """The option as the reader stored it (``default`` where the operator has no options)."""
    return op.options_by_name.get(name, default)


def int_option(op: OperatorSpec, name: str, default: Optional[int] = None) -> int:
    """An integer option; ModelFormatError when it is missing (and has no default) or no
    integer (a bool is none here: the reader gives booleans only to boolean options)."""
    value = option(op, name, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise malformed(op, f"option {name} is {value!r}, expected an integer")
    return value


def float_option(op: OperatorSpec, name: str, default: float) -> float:
    value = option(op, name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise malformed(op, f"option {name} is {value!r}, expected a number")
    return float(value)


# ---------------------------------------------------------------------------- tensors
def float32_except(*integer_inputs: int) -> TensorCheck:
    """The gate of the float32 rules: one output, every tensor float32 except the inputs at
    positions ``integer_inputs`` (integer tables: paddings, new shape, new size), whose
    values the rule reads itself."""

    def check(op: OperatorSpec, model: ModelSpec) -> None:
        free = {op.inputs[k] for k in integer_inputs if k < len(op.inputs)}
        for i in tuple(op.inputs) + tuple(op.outputs):
            if i >= 0 and model.tensors[i].dtype != np.float32 and i not in free:
                raise refuse(op, f"tensor #{i} {model.tensors[i].name!r} of type {model.tensors[i].dtype} "
                                 f"(float32 only)")
        if len(op.outputs) != 1:
            raise refuse(op, f"{len(op.outputs)} outputs")

    return check


def first_input(op: OperatorSpec) -> int:
    if not op.inputs or op.inputs[0] < 0:
        raise ModelFormatError(f"{where(op)} has no input")
    return op.inputs[0]


def unary(op: OperatorSpec, kind: str, params: Params = (),
          constants: Tuple[Tuple[str, np.ndarray], ...] = ()) -> Step:
    """The step of an operator that reads its first input (the others are constants the rule
    turned into ``params`` or ``constants``) and writes its one output."""
    return Step(op.index, op.opcode, kind, (first_input(op),), op.outputs[0], params, constants)


def nhwc(op: OperatorSpec, model: ModelSpec) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """Input and output shapes of an operator that works on NHWC images (rank 4, else refused)."""
    x, y = model.tensors[first_input(op)].shape, model.tensors[op.outputs[0]].shape
    if len(x) != 4 or len(y) != 4:
        raise refuse(op, f"input rank {len(x)} / output rank {len(y)} (expected 4, NHWC)")
    return tuple(x), tuple(y)


def constant(model: ModelSpec, op: OperatorSpec, k: int, role: str) -> np.ndarray:
    """Input ``k`` as a float32 constant; ModelFormatError when the operator has none."""
    value = optional_constant(model, op, k, role)
    if value is None:
        raise ModelFormatError(f"{where(op)} has no {role} tensor")
    return value


def optional_constant(model: ModelSpec, op: OperatorSpec, k: int, role: str) -> Optional[np.ndarray]:
    """Input ``k`` as a float32 constant, None when absent (index -1 or past the end);
    refused when it is computed or of another type."""
    t = op.inputs[k] if k < len(op.inputs) else -1
    if t < 0:
        return None
    spec = model.tensors[t]
    if spec.data is None:
        raise refuse(op, f"non-constant {role} (tensor #{t} {spec.name!r})")
    if spec.dtype != np.float32:
        raise refuse(op, f"{role} of type {spec.dtype} (only float32, or float16 / int8 through DEQUANTIZE)")
    return spec.data


def integer_table(op: OperatorSpec, model: ModelSpec, refusal: str) -> np.ndarray:
    """The constant second input of PAD / RESIZE_BILINEAR-like operators (paddings, size);
    ``refusal`` names it when the operator has no second input or it is computed."""
    data = model.tensors[op.inputs[1]].data if len(op.inputs) == 2 and op.inputs[1] >= 0 else None
    if data is None:
        raise refuse(op, refusal)
    return data


# ---------------------------------------------------------------------------- windows
def same_padding(size: int, kernel: int, stride: int, out: int) -> Tuple[int, int]:
    """TFLite's SAME padding along one axis (``ComputePaddingHeightWidth``):
    total = max((out - 1) * stride + kernel - size, 0), before = total // 2, after = the rest."""
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def window(op: OperatorSpec, model: ModelSpec, kh: int, kw: int) -> Tuple[Tuple[int, int], Tuple[int, int, int, int]]:
    """(stride, (top, bottom, left, right)) of a convolution or pooling window of ``kh`` x
    ``kw`` on an NHWC input; the output's height and width are checked against the padding."""
    (_, h, w, _), (_, oh, ow, _) = nhwc(op, model)
    sh, sw = int_option(op, "stride_h", 1), int_option(op, "stride_w", 1)
    if sh < 1 or sw < 1:
        raise malformed(op, f"stride {sh}x{sw}, expected >= 1: {op!r}")
    if option(op, "dilation_h", 1) != 1 or option(op, "dilation_w", 1) != 1:
        raise refuse(op, f"option dilation_h_factor={option(op, 'dilation_h')}, "
                         f"dilation_w_factor={option(op, 'dilation_w')}")
    if option(op, "padding") == "SAME":
        expect = (-(-h // sh), -(-w // sw))
        top, bottom = same_padding(h, kh, sh, oh)
        left, right = same_padding(w, kw, sw, ow)
    else:
        expect = ((h - kh) // sh + 1, (w - kw) // sw + 1)
        top = bottom = left = right = 0
    if (oh, ow) != expect:
        raise malformed(op, f"output is {oh}x{ow}, padding {option(op, 'padding')} with kernel {kh}x{kw} and "
                            f"stride {sh}x{sw} on {h}x{w} gives {expect[0]}x{expect[1]}")
    return (sh, sw), (top, bottom, left, right)


# ---------------------------------------------------------------------------- activations
def fused_activation(op: OperatorSpec) -> Optional[Activation]:
    """The operator's fused activation as a bridge activation (None: none); refused when the
    bridge has none for it (SIGN_BIT)."""
    act = option(op, "fused_activation_function")
    if (act is None or isinstance(act, str)) and act in FUSED:
        return FUSED[act]
    raise refuse(op, f"option fused_activation_function={act}")


def no_fused_activation(op: OperatorSpec) -> None:
    """Refuse a fused activation on an operator whose bridge function takes none."""
    if fused_activation(op) is not None:
        raise refuse(op, f"option fused_activation_function={option(op, 'fused_activation_function')}")


def activation_params(act: Optional[Activation]) -> Params:
    """A fused activation as step parameters (none when ``act`` is None)."""
    return () if act is None else (("activation", act[0]), ("act_a", act[1]), ("act_b", act[2]))
