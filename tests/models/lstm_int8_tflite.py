"""One-operator integer LSTM / UNIDIRECTIONAL_SEQUENCE_LSTM models (TFLite's 8x8_16 kernel)
written with the ``tflite`` package's builders: :func:`.lstm_tflite.lstm_operands`'s float
weights quantized as TFLite's quantizer lays them out (int8 weights and int16 peephole and
layer-norm weights, symmetric per tensor; int32 biases at the input x weight scale, or at
the layer-norm scale x 2^-10 with layer normalization; an int16 cell state of scale 2^-11),
and the operator's five ``intermediates`` (the gates' matmul outputs, int16, and the
hidden state, int8) that TFLite's kernel reads its scales from."""

from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from .lstm_tflite import STATE, add_buffer, lstm_operands
from .tiny_tflite import _int_vector, _m, _quantization, finish_one_operator

# (scale, zero point) of the graph input and output (the output state's too)
X_Q, Y_Q = (4.0 / 255, 3), (2.0 / 255, -2)
CELL_SCALE = 2.0 ** -11
INT_TYPES = {np.dtype(np.int8): "INT8", np.dtype(np.int16): "INT16", np.dtype(np.int32): "INT32"}


def _symmetric(v: np.ndarray, dtype) -> Tuple[np.ndarray, float]:
    top = np.iinfo(dtype).max
    scale = float(np.abs(v).max()) / top or 1.0
    return np.clip(np.round(v / scale), -top, top).astype(dtype), scale


def quantized_operands(operands: Sequence, layer_norm_scales: Dict[int, float], hidden_scale: float
                       ) -> Tuple[list, Dict[int, Tuple[float, int]]]:
    """The integer operands (None, :data:`STATE` kept) and each one's (scale, zero point)."""
    out, quant = list(operands), {}
    for k, v in enumerate(operands):
        if not isinstance(v, np.ndarray):
            continue
        if k in (9, 10, 11, 20, 21, 22, 23):
            out[k], s = _symmetric(v, np.int16)
            quant[k] = (s, 0)
            layer_norm_scales[k] = s
        elif k not in (12, 13, 14, 15, 17):
            out[k], s = _symmetric(v, np.int8)
            quant[k] = (s, 0)
    for k in (12, 13, 14, 15, 17):
        v = operands[k]
        if not isinstance(v, np.ndarray):
            continue
        if k == 17:
            s = quant[16][0] * hidden_scale
        elif operands[20 + k - 12] is not None and isinstance(operands[20 + k - 12], np.ndarray):
            s = layer_norm_scales[20 + k - 12] * 2.0 ** -10
        else:
            s = quant[1 + k - 12][0] * X_Q[0]
        out[k] = np.round(v / s).astype(np.int32)
        quant[k] = (s, 0)
    return out, quant


def int8_lstm_model(opcode: str, x_shape: Sequence[int], y_shape: Sequence[int], operands: Sequence, batch: int,
                    n_cell: int, n_output: int, options: Dict[str, object], gate_scale: float = 1e-4,
                    hidden_q: Tuple[float, int] = (2.0 ** -7, 0), intermediates: int = 5,
                    intermediate_ids: Optional[Sequence[int]] = None, cell_scale: float = CELL_SCALE) -> bytes:
    """Model bytes: int8 graph input ``input`` -> the integer ``opcode`` on the float
    ``operands`` (:func:`.lstm_tflite.lstm_operands`) quantized -> int8 graph output ``output``;
    ``gate_scale`` the intermediates 0-3 (used with layer normalization), ``hidden_q`` the
    hidden state's (intermediate 4), ``intermediates`` how many the operator lists
    (``intermediate_ids``: the indices written instead, malformed ones included), ``cell_scale``
    the cell state's scale."""
    import flatbuffers

    T, B = _m("Tensor"), _m("Buffer")
    import tflite

    ints, quant = quantized_operands(operands, {}, hidden_q[0])
    b = flatbuffers.Builder(4096)
    buffers, specs, ids = [], [("input", tuple(x_shape), 0, False, "INT8", X_Q)], []
    B.BufferStart(b)
    buffers.append(B.BufferEnd(b))
    for k, v in enumerate(ints):
        if k == 0:
            ids.append(0)
        elif isinstance(v, np.ndarray):
            ids.append(len(specs))
            specs.append((f"const{k}", v.shape, add_buffer(b, v, buffers), False, INT_TYPES[v.dtype], quant[k]))
        elif isinstance(v, str) and v == STATE:
            ids.append(len(specs))
            specs.append(("output_state", (batch, n_output), 0, True, "INT8", Y_Q) if k == 18 else
                         ("cell_state", (batch, n_cell), 0, True, "INT16", (cell_scale, 0)))
        else:
            ids.append(-1)
    specs.append(("output", tuple(y_shape), 0, False, "INT8", Y_Q))
    mids = [(f"gate{g}_matmul", (), 0, False, "INT16", (gate_scale, 0)) for g in range(4)] + \
        [("effective_hidden", (), 0, False, "INT8", hidden_q)]
    mids = mids[:intermediates] + [mids[g % 4] for g in range(max(0, intermediates - 5))]
    output = len(specs) - 1
    first_mid = len(specs)
    tensors = []
    for name, shape, buf, variable, dtype, q in specs + mids:
        n = b.CreateString(name)
        sh = _int_vector(b, T.TensorStartShapeVector, shape)
        qp = _quantization(b, q)
        T.TensorStart(b)
        T.TensorAddShape(b, sh)
        T.TensorAddType(b, getattr(tflite.TensorType, dtype))
        T.TensorAddBuffer(b, buf)
        T.TensorAddName(b, n)
        T.TensorAddQuantization(b, qp)
        T.TensorAddIsVariable(b, variable)
        tensors.append(T.TensorEnd(b))
    table = "LSTMOptions" if opcode == "LSTM" else "UnidirectionalSequenceLSTMOptions"
    return finish_one_operator(b, tensors, ids, output, (table, options), opcode, buffers,
                               intermediates=tuple(range(first_mid, first_mid + len(mids)))
                               if intermediate_ids is None else tuple(intermediate_ids))


def int8_lstm_case_model(opcode: str, batch: int, n_input: int, n_cell: int, n_output: int,
                         time: Optional[int] = None, time_major: bool = False, cell_clip: float = 0.0,
                         proj_clip: float = 0.0, gate_scale: float = 1e-4, hidden_q: Tuple[float, int] = (2.0 ** -7, 0),
                         intermediates: int = 5, **variant: bool) -> bytes:
    """:func:`int8_lstm_model` of :func:`.lstm_tflite.lstm_operands` (``variant``: cifg,
    peephole, projection, projection_bias, layer_norm) with TANH, as
    :func:`.lstm_tflite.lstm_case_model` lays out the float one."""
    operands = lstm_operands(n_input, n_cell, n_output, **variant)
    options: Dict[str, object] = {"FusedActivationFunction": "TANH", "CellClip": cell_clip, "ProjClip": proj_clip}
    kw = {"gate_scale": gate_scale, "hidden_q": hidden_q, "intermediates": intermediates}
    if opcode == "LSTM":
        return int8_lstm_model(opcode, (batch, n_input), (batch, n_output), operands, batch, n_cell, n_output, options,
                               **kw)
    options["TimeMajor"] = time_major
    lead = (time, batch) if time_major else (batch, time)
    return int8_lstm_model(opcode, lead + (n_input,), lead + (n_output,), operands, batch, n_cell, n_output, options,
                           **kw)
