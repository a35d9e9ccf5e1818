"""TFLite's LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM operands, read and checked once for the
lowering rule (:mod:`.rules.lstm`) and the fallback kernel (:mod:`..fallback.lstm`).

Both operators take the same 24 inputs (TFLite's ``lstm_shared.h``): 0 the input; 1-4 the
input weights of gates i, f, c, o (n_cell, n_input); 5-8 their recurrent weights (n_cell,
n_output); 9-11 the peephole weights of i, f, o (n_cell); 12-15 the gate biases; 16 / 17 the
projection weights (n_output, n_cell) and bias; 18 / 19 the output and cell state (variable
tensors, read as zeros: :mod:`..format.tflite_reader`); 20-23 the layer-norm coefficients.
An absent input 1 (with 5, 9 and 12, 20) is CIFG: the input gate is 1 - forget gate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from ..format.tflite_reader import ModelSpec, OperatorSpec
from .helpers import malformed, option, refuse

INPUT, OUTPUT_STATE, CELL_STATE = 0, 18, 19
INPUT_WEIGHTS, RECURRENT_WEIGHTS, PEEPHOLES, BIASES, LAYER_NORM = (1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11), \
    (12, 13, 14, 15), (20, 21, 22, 23)
PROJECTION_WEIGHTS, PROJECTION_BIAS = 16, 17
ACTIVATIONS = ("NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH")
# TFLite's integer LSTM (8x8_16, lstm.cc): each input's type where the input is int8
INTEGER_TYPES = {**{k: np.dtype(np.int8) for k in INPUT_WEIGHTS + RECURRENT_WEIGHTS + (PROJECTION_WEIGHTS,
                                                                                      OUTPUT_STATE)},
                 **{k: np.dtype(np.int16) for k in PEEPHOLES + LAYER_NORM + (CELL_STATE,)},
                 **{k: np.dtype(np.int32) for k in BIASES + (PROJECTION_BIAS,)}}


@dataclass(frozen=True)
class LstmOperands:
    """What one LSTM operator computes: sizes, options, and which optional parts it has.
    ``operands[k]`` is TFLite input ``k``'s constant value (float32; for the integer LSTM,
    :data:`INTEGER_TYPES`) or None (absent or the live input 0)."""

    sequence: bool
    time_major: bool
    batch: int
    time: int  # 1 for LSTM
    n_input: int
    n_cell: int
    n_output: int
    cifg: bool
    peephole: bool
    projection: bool
    layer_norm: bool
    activation: str
    cell_clip: float
    proj_clip: float
    operands: Tuple[Optional[np.ndarray], ...]


def _present(op: OperatorSpec, k: int) -> bool:
    return k < len(op.inputs) and op.inputs[k] >= 0


def read_lstm(op: OperatorSpec, model: ModelSpec, integer: bool = False) -> LstmOperands:
    """The operator's :class:`LstmOperands`; refuses (UnsupportedModelError naming the input or
    option) the BASIC kernel, hybrid (non-float32) weights, weights or states that are not
    constants, SIGN_BIT; ModelFormatError for inputs that contradict each other. With
    ``integer``, an int8 input is TFLite's integer LSTM: its inputs' types are then
    :data:`INTEGER_TYPES` (the rest refused naming the input)."""
    sequence = op.opcode == "UNIDIRECTIONAL_SEQUENCE_LSTM"
    t = model.tensors
    quantized = integer and op.inputs and op.inputs[0] >= 0 and t[op.inputs[0]].dtype == np.int8
    if option(op, "kernel_type", "FULL") != "FULL":
        raise refuse(op, "the BASIC LSTM kernel (kernel_type BASIC)")
    if len(op.inputs) not in (20, 24) or len(op.outputs) != 1:
        raise malformed(op, f"has {len(op.inputs)} inputs and {len(op.outputs)} outputs, expected 20 or 24 inputs "
                            f"and one output (the full LSTM kernel)")
    values = []
    for k, i in enumerate(op.inputs):
        if k == INPUT or i < 0:
            values.append(None)
            continue
        if quantized and t[i].dtype != INTEGER_TYPES[k]:
            raise refuse(op, f"input {k} of type {t[i].dtype} in an integer LSTM (TFLite's 8x8_16 kernel takes "
                             f"{INTEGER_TYPES[k]} there)")
        if not quantized and t[i].dtype != np.float32:
            raise refuse(op, f"input {k} of type {t[i].dtype} (hybrid or quantized LSTM; float32 only)")
        if t[i].data is None:
            raise refuse(op, f"input {k} {t[i].name!r} that is not a constant or a variable tensor (weights, biases "
                             f"and the state must be)")
        values.append(t[i].data)
    x, y = t[op.inputs[INPUT]], t[op.outputs[0]]
    io = np.int8 if quantized else np.float32
    if x.dtype != io or y.dtype != io:
        raise refuse(op, f"input type {x.dtype} / output type {y.dtype} ({'int8 both' if quantized else 'float32 only'})")
    time_major = bool(option(op, "time_major", True)) if sequence else True
    if len(x.shape) != (3 if sequence else 2):
        raise malformed(op, f"input has shape {list(x.shape)}, expected rank {3 if sequence else 2}")
    if sequence:
        time, batch = x.shape[:2] if time_major else x.shape[1::-1]
    else:
        time, batch = 1, x.shape[0]
    n_input = x.shape[-1]
    for k in INPUT_WEIGHTS[1:] + RECURRENT_WEIGHTS[1:] + BIASES[1:] + (OUTPUT_STATE, CELL_STATE):
        if not _present(op, k):
            raise malformed(op, f"input {k} is absent, expected it (required by TFLite's LSTM)")
    n_cell = t[op.inputs[2]].shape[0]
    n_output = t[op.inputs[6]].shape[-1]
    cifg = not _present(op, 1)
    peephole = _present(op, 10)
    projection = _present(op, PROJECTION_WEIGHTS)
    layer_norm = len(op.inputs) == 24 and _present(op, 21)
    expected = {k: (n_cell, n_input) for k in INPUT_WEIGHTS}
    expected.update({k: (n_cell, n_output) for k in RECURRENT_WEIGHTS})
    expected.update({k: (n_cell,) for k in PEEPHOLES + BIASES + LAYER_NORM})
    expected.update({PROJECTION_WEIGHTS: (n_output, n_cell), PROJECTION_BIAS: (n_output,),
                     OUTPUT_STATE: (batch, n_output), CELL_STATE: (batch, n_cell)})
    wanted = set(INPUT_WEIGHTS[1:] + RECURRENT_WEIGHTS[1:] + BIASES[1:] + (OUTPUT_STATE, CELL_STATE))
    if not cifg:
        wanted |= {1, 5, 12}
    if peephole:
        wanted |= {10, 11} | (set() if cifg else {9})
    if projection:
        wanted.add(PROJECTION_WEIGHTS)
    if layer_norm:
        wanted |= set(LAYER_NORM[1:]) | (set() if cifg else {20})
    optional = {PROJECTION_BIAS} if projection else set()
    for k, shape in expected.items():
        there = _present(op, k)
        if there and k not in wanted | optional:
            raise malformed(op, f"input {k} is present where its part of the LSTM is absent (cifg={cifg}, "
                                f"peephole={peephole}, projection={projection}, layer_norm={layer_norm})")
        if k in wanted and not there:
            raise malformed(op, f"input {k} is absent, expected it (cifg={cifg}, peephole={peephole}, "
                                f"projection={projection}, layer_norm={layer_norm})")
        if there and tuple(t[op.inputs[k]].shape) != shape:
            raise malformed(op, f"input {k} has shape {list(t[op.inputs[k]].shape)}, expected {list(shape)}")
    lead = ((time, batch) if time_major else (batch, time)) if sequence else (batch,)
    if tuple(y.shape) != lead + (n_output,):
        raise malformed(op, f"output has shape {list(y.shape)}, expected {list(lead + (n_output,))}")
    activation = option(op, "fused_activation_function") or "NONE"
    if activation not in ACTIVATIONS:
        raise refuse(op, f"fused activation {activation} (expected one of {', '.join(ACTIVATIONS)})")
    clips = [float(option(op, name, 0.0) or 0.0) for name in ("cell_clip", "proj_clip")]
    if any(c < 0 or not np.isfinite(c) for c in clips):
        raise malformed(op, f"cell_clip {clips[0]} and proj_clip {clips[1]}: expected finite values >= 0")
    return LstmOperands(sequence, time_major, batch, time, n_input, n_cell, n_output, cifg, peephole, projection,
                        layer_norm, str(activation), clips[0], clips[1], tuple(values) + (None,) * (24 - len(values)))


__all__ = ["LstmOperands", "read_lstm", "INTEGER_TYPES", "INPUT", "OUTPUT_STATE", "CELL_STATE", "INPUT_WEIGHTS", "RECURRENT_WEIGHTS",
           "PEEPHOLES", "BIASES", "LAYER_NORM", "PROJECTION_WEIGHTS", "PROJECTION_BIAS", "ACTIVATIONS"]
