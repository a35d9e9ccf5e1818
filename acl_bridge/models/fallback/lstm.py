"""LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM on numpy, float32 as TFLite's kernels compute them
(``lstm_eval.cc``'s float path): gates i, f, c, o; the input and forget gates' peepholes
read the old cell state, the output gate's the new one; layer normalization before the bias;
cell clip after the update, projection clip after the projection. The state inputs start
from zeros at every run (:mod:`..lowering.lstm_operands`). Also the numpy kernel of the
lowering's ``lstm`` steps."""

from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from ..lowering.lstm_operands import BIASES, INPUT_WEIGHTS, LAYER_NORM, PEEPHOLES, PROJECTION_BIAS, \
    PROJECTION_WEIGHTS, RECURRENT_WEIGHTS, LstmOperands, read_lstm
from ..lowering.rules.lstm import ROLES
from ..lowering.step import Step
from ..format.tflite_reader import ModelSpec, OperatorSpec, UnsupportedModelError
from .lstm_integer import check_integer_lstm, integer_lstm_sequence, read_integer_lstm
from .registry import FLOAT, Call, kernel
from .step_kernels import step_kernel

_F = np.float32
ACTIVATION = {
    "NONE": lambda v: v,
    "RELU": lambda v: np.maximum(v, _F(0)),
    "RELU_N1_TO_1": lambda v: np.clip(v, _F(-1), _F(1)),
    "RELU6": lambda v: np.clip(v, _F(0), _F(6)),
    "TANH": np.tanh,
}


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return (_F(1) / (_F(1) + np.exp(-v))).astype(_F)


def _layer_norm(v: np.ndarray) -> np.ndarray:
    """TFLite's MeanStddevNormalization along the last axis (epsilon 1e-8 on the variance)."""
    mean = v.mean(axis=-1, keepdims=True, dtype=_F)
    variance = ((v - mean) ** 2).mean(axis=-1, keepdims=True, dtype=_F)
    return (v - mean) / np.sqrt(variance + _F(1e-8))


def lstm_step(x: np.ndarray, h: np.ndarray, c: np.ndarray, w: Sequence[Optional[np.ndarray]], activation: str,
              cell_clip: float, proj_clip: float) -> Tuple[np.ndarray, np.ndarray]:
    """(output state, cell state) after one step on x (batch, n_input) from h (batch,
    n_output) and c (batch, n_cell); ``w[k]``: TFLite input ``k`` (None: absent)."""
    act = ACTIVATION[activation]

    def gate(k: int, peephole_k: Optional[int], cell: np.ndarray) -> np.ndarray:
        v = x @ w[INPUT_WEIGHTS[k]].T + h @ w[RECURRENT_WEIGHTS[k]].T
        if peephole_k is not None and w[PEEPHOLES[peephole_k]] is not None:
            v = v + w[PEEPHOLES[peephole_k]] * cell
        if w[LAYER_NORM[k]] is not None:
            v = _layer_norm(v) * w[LAYER_NORM[k]]
        return v + w[BIASES[k]]

    forget = _sigmoid(gate(1, 1, c))
    update = act(gate(2, None, c))
    inp = _F(1) - forget if w[INPUT_WEIGHTS[0]] is None else _sigmoid(gate(0, 0, c))
    c = (forget * c + inp * update).astype(_F)
    if cell_clip > 0:
        c = np.clip(c, _F(-cell_clip), _F(cell_clip))
    out = _sigmoid(gate(3, 2, c)) * act(c)
    if w[PROJECTION_WEIGHTS] is not None:
        out = out @ w[PROJECTION_WEIGHTS].T
        if w[PROJECTION_BIAS] is not None:
            out = out + w[PROJECTION_BIAS]
        if proj_clip > 0:
            out = np.clip(out, _F(-proj_clip), _F(proj_clip))
    return out.astype(_F), c


def lstm_sequence(x: np.ndarray, lstm: LstmOperands, h: Optional[np.ndarray] = None,
                  c: Optional[np.ndarray] = None) -> np.ndarray:
    """The operator's output on x (LSTM: (batch, n_input); the sequence operator: time-major
    or batch-major as ``lstm`` says), from h, c (default: the state operands, zeros)."""
    w = lstm.operands
    h = np.array(w[18] if h is None else h, _F)
    c = np.array(w[19] if c is None else c, _F)
    if not lstm.sequence:
        return lstm_step(np.asarray(x, _F), h, c, w, lstm.activation, lstm.cell_clip, lstm.proj_clip)[0]
    steps = np.asarray(x, _F) if lstm.time_major else np.swapaxes(np.asarray(x, _F), 0, 1)
    outs = []
    for xt in steps:
        h, c = lstm_step(xt, h, c, w, lstm.activation, lstm.cell_clip, lstm.proj_clip)
        outs.append(h)
    y = np.stack(outs)
    return y if lstm.time_major else np.swapaxes(y, 0, 1)


def _integer(op: OperatorSpec, model: ModelSpec) -> bool:
    """Whether the operator is TFLite's integer LSTM (int8 input): :mod:`.lstm_integer`."""
    return bool(op.inputs) and op.inputs[0] >= 0 and model.tensors[op.inputs[0]].dtype == np.int8


def _check(op: OperatorSpec, model: ModelSpec) -> Optional[str]:
    if _integer(op, model):
        return check_integer_lstm(op, model)
    try:
        read_lstm(op, model)
    except UnsupportedModelError as e:
        return str(e)
    return None


@kernel("LSTM", "UNIDIRECTIONAL_SEQUENCE_LSTM", dtypes=FLOAT + ("int8",), check=_check, binds=True)
def lstm(call: Call) -> Callable[[], None]:
    """Binds the operator's weights once (float32, or the integer LSTM's prepared parameters);
    each call runs every step from the zero state."""
    if _integer(call.op, call.model):
        prepared = read_integer_lstm(call.op, call.model)
        return lambda: call.write(integer_lstm_sequence(call.inputs[0], prepared))
    operands = read_lstm(call.op, call.model)
    return lambda: call.write(lstm_sequence(call.inputs[0], operands))


__all__ = ["lstm_step", "lstm_sequence", "ACTIVATION"]


# the bridge's activations of the lowering's lstm steps, as TFLite names them
_TFLITE_ACTIVATION = {None: "NONE", "tanh": "TANH", "relu": "RELU", "bounded_relu": "RELU6",
                      "lu_bounded_relu": "RELU_N1_TO_1"}


@step_kernel("lstm")
def _lstm_step(s: Step, x: np.ndarray, p: dict, c: dict, arrays: Dict[int, np.ndarray]) -> None:
    """One ``lstm`` step (:mod:`..lowering.rules.lstm`): it writes the output its ``absent``
    parameter does not leave out (dst or cell_state_out); its ``activation`` is the cell's."""
    live = iter(arrays[i] for i in s.inputs[1:])
    state = [c[r] if r in c else next(live) for r in ("output_state_in", "cell_state_in")]
    w = [c.get(r) for r in ROLES]
    h, cell = lstm_step(np.asarray(arrays[s.inputs[0]], _F), np.asarray(state[0], _F), np.asarray(state[1], _F), w,
                        _TFLITE_ACTIVATION[p.get("activation")], p["cell_clip"], p["projection_clip"])
    arrays[s.output][...] = h if "dst" not in p["absent"] else cell
