"""One-operator LSTM / UNIDIRECTIONAL_SEQUENCE_LSTM models written with the ``tflite``
package's builders (their state inputs 18 and 19 are TFLite variable tensors, which
``tiny_tflite.one_operator_model`` cannot write), and random weights for every option
combination (CIFG, peephole, projection, layer normalization)."""

from __future__ import annotations

from typing import Dict, Optional, Sequence

import numpy as np

from .tiny_tflite import _int_vector, _m, finish_one_operator

STATE = "state"  # inputs 18 and 19: variable tensors


def lstm_operands(n_input: int, n_cell: int, n_output: int, *, cifg: bool = False, peephole: bool = False,
                  projection: bool = False, projection_bias: bool = False, layer_norm: bool = False,
                  seed: int = 5) -> list:
    """The operator's 24 inputs: None at 0 (the graph input), :data:`STATE` at 18 and 19, a float32
    constant or None (absent) elsewhere, in TFLite's order (weights i, f, c, o; recurrent
    weights; peepholes; biases; projection; layer-norm coefficients)."""
    rng = np.random.default_rng(seed)

    def f(*shape):
        return rng.uniform(-0.6, 0.6, shape).astype(np.float32)

    ops: list = [None] * 24
    for k in range(4):  # gates i, f, c, o
        if k == 0 and cifg:
            continue
        ops[1 + k] = f(n_cell, n_input)
        ops[5 + k] = f(n_cell, n_output)
        ops[12 + k] = f(n_cell)
        if layer_norm:
            ops[20 + k] = (1 + f(n_cell)).astype(np.float32)
    if peephole:
        for k in range(3):
            ops[9 + k] = None if k == 0 and cifg else f(n_cell)
    if projection:
        ops[16] = f(n_output, n_cell)
        ops[17] = f(n_output) if projection_bias else None
    ops[18] = ops[19] = STATE
    return ops


def add_buffer(b, v: np.ndarray, buffers: list) -> int:
    """The index of a new Buffer holding ``v``'s little-endian bytes, appended to ``buffers``."""
    B = _m("Buffer")
    data = b.CreateByteVector(np.ascontiguousarray(v, v.dtype.newbyteorder("<")).tobytes())
    B.BufferStart(b)
    B.BufferAddData(b, data)
    buffers.append(B.BufferEnd(b))
    return len(buffers) - 1


def lstm_model(opcode: str, x_shape: Sequence[int], y_shape: Sequence[int], operands: Sequence, batch: int,
               n_cell: int, n_output: int, options: Dict[str, object]) -> bytes:
    """Model bytes: float32 graph input ``input`` of ``x_shape`` -> ``opcode`` (LSTM or
    UNIDIRECTIONAL_SEQUENCE_LSTM) on ``operands`` (:func:`lstm_operands`) -> graph output
    ``output`` of ``y_shape``; the state tensors ``output_state`` (batch, n_output) and
    ``cell_state`` (batch, n_cell) are variable; ``options`` by the builder's field names."""
    import flatbuffers
    import tflite

    T, B = _m("Tensor"), _m("Buffer")
    b = flatbuffers.Builder(4096)
    buffers, specs, ids = [], [("input", tuple(x_shape), 0, False)], []
    B.BufferStart(b)
    buffers.append(B.BufferEnd(b))
    for k, v in enumerate(operands):
        if k == 0:
            ids.append(0)
        elif isinstance(v, np.ndarray):
            ids.append(len(specs))
            specs.append((f"const{k}", v.shape, add_buffer(b, np.asarray(v, "<f4"), buffers), False))
        elif v == STATE:
            ids.append(len(specs))
            specs.append(("output_state" if k == 18 else "cell_state", (batch, n_output if k == 18 else n_cell), 0,
                          True))
        else:
            ids.append(-1)
    specs.append(("output", tuple(y_shape), 0, False))
    tensors = []
    for name, shape, buf, variable in specs:
        n = b.CreateString(name)
        sh = _int_vector(b, T.TensorStartShapeVector, shape)
        T.TensorStart(b)
        T.TensorAddShape(b, sh)
        T.TensorAddType(b, tflite.TensorType.FLOAT32)
        T.TensorAddBuffer(b, buf)
        T.TensorAddName(b, n)
        T.TensorAddIsVariable(b, variable)
        tensors.append(T.TensorEnd(b))
    table = "LSTMOptions" if opcode == "LSTM" else "UnidirectionalSequenceLSTMOptions"
    return finish_one_operator(b, tensors, ids, len(specs) - 1, (table, options), opcode, buffers)


def lstm_case_model(opcode: str, batch: int, n_input: int, n_cell: int, n_output: int, time: Optional[int] = None,
                    time_major: bool = False, activation: str = "TANH", cell_clip: float = 0.0,
                    proj_clip: float = 0.0, **variant: bool) -> bytes:
    """:func:`lstm_model` of :func:`lstm_operands` (``variant``: cifg, peephole, projection,
    projection_bias, layer_norm): LSTM on (batch, n_input), or the sequence operator on
    (time, batch, n_input) with ``time_major`` else (batch, time, n_input)."""
    operands = lstm_operands(n_input, n_cell, n_output, **variant)
    options: Dict[str, object] = {"FusedActivationFunction": activation, "CellClip": cell_clip, "ProjClip": proj_clip}
    if opcode == "LSTM":
        return lstm_model(opcode, (batch, n_input), (batch, n_output), operands, batch, n_cell, n_output, options)
    options["TimeMajor"] = time_major
    lead = (time, batch) if time_major else (batch, time)
    return lstm_model(opcode, lead + (n_input,), lead + (n_output,), operands, batch, n_cell, n_output, options)
