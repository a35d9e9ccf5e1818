"""LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM (float32) -> ``lstm`` steps, ACL's LSTMLayer
(:class:`acl_bridge.families.lstm.Lstm`).

LSTM is one step: the input, the weights and biases as step constants, the state inputs as
zero constants (variable tensors: :mod:`..lstm_operands`), the output as ``dst``.

UNIDIRECTIONAL_SEQUENCE_LSTM is two steps per time step t (time-major, or batch-major with
batch 1, which is the same memory): each reads x[t] (a view of the input), the output state
h[t-1] (a view of the output at t-1) and the cell state c[t-1]; one writes c[t] (a tensor the
plan adds), the other h[t] = y[t] straight into its slice of the output (a step writes one
tensor: ACL computes the step twice, the last cell state is not computed). A step leaves
out (``absent``) the roles of the optional parts the operator has not and the outputs it
does not take. Batch-major input with batch > 1 is refused (its time steps are not one
block of memory): the fallback runs it."""

from __future__ import annotations

from typing import List, Optional, Tuple

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import FUSED, refuse
from ..lstm_operands import CELL_STATE, OUTPUT_STATE, LstmOperands, read_lstm
from ..step import Concatenate, Intermediate, Lowered, Params, Reshape, Slice, Step
from .table import FLOAT32, rule

# acl_bridge.families.lstm.ROLES (the lowering names no bridge module): TFLite's 24 inputs, the outputs
GATES = ("input", "forget", "cell", "output")
ROLES: Tuple[str, ...] = (
    ("src",) + tuple(f"input_to_{g}_weights" for g in GATES) + tuple(f"recurrent_to_{g}_weights" for g in GATES)
    + ("cell_to_input_weights", "cell_to_forget_weights", "cell_to_output_weights", "input_gate_bias",
       "forget_gate_bias", "cell_bias", "output_gate_bias", "projection_weights", "projection_bias",
       "output_state_in", "cell_state_in") + tuple(f"{g}_layer_norm_weights" for g in GATES))
OUTPUTS = ("output_state_out", "cell_state_out", "dst")


def _params(lstm: LstmOperands, writes: str) -> Params:
    """The step's options and the roles it leaves out (it writes ``writes`` only)."""
    absent = tuple(r for k, r in enumerate(ROLES) if 0 < k < 24 and k not in (OUTPUT_STATE, CELL_STATE)
                   and lstm.operands[k] is None) + tuple(r for r in OUTPUTS if r != writes)
    act = FUSED.get(None if lstm.activation == "NONE" else lstm.activation)
    return ((("activation", act[0]), ("act_a", act[1]), ("act_b", act[2])) if act else ()) + (
        ("cell_clip", lstm.cell_clip), ("projection_clip", lstm.proj_clip), ("absent", absent))


def _constants(lstm: LstmOperands, states: bool) -> Tuple[Tuple[str, object], ...]:
    """The weights and biases present (with ``states``: the zero state inputs too)."""
    return tuple((ROLES[k], lstm.operands[k]) for k in range(1, 24) if lstm.operands[k] is not None
                 and (states or k not in (OUTPUT_STATE, CELL_STATE)))


@rule("LSTM", tensors=FLOAT32)
def lstm(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> one ``lstm`` step from the zero state."""
    operands = read_lstm(op, model)
    return (Step(op.index, op.opcode, "lstm", (op.inputs[0],), op.outputs[0], _params(operands, "dst"),
                 _constants(operands, True)),)


@rule("UNIDIRECTIONAL_SEQUENCE_LSTM", tensors=FLOAT32)
def unidirectional_sequence_lstm(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> two ``lstm`` steps per time step (the module says how)."""
    s = read_lstm(op, model)
    if not s.time_major and s.batch != 1:
        raise refuse(op, f"a batch-major input of batch {s.batch} (time-major, or batch 1)")
    x, y = op.inputs[0], op.outputs[0]
    out: List[Lowered] = []
    keys = iter(range(-2, -2 - 8 * s.time - 4, -1))

    def add(shape: Tuple[int, ...], like: int) -> int:
        key = next(keys)
        out.append(Intermediate(op.index, op.opcode, key, shape, like))
        return key

    if not s.time_major:  # (1, T, I) is (T, 1, I) in memory; the output likewise
        x3 = add((s.time, 1, s.n_input), x)
        out.append(Reshape(op.index, op.opcode, x, x3))
        y3 = add((s.time, 1, s.n_output), y)
    else:
        x3, y3 = x, y
    parts = []
    h: Optional[int] = None
    c: Optional[int] = None
    for t in range(s.time):
        xs = add((1, s.batch, s.n_input), x)
        cut = Step(op.index, op.opcode, "strided_slice", (x3,), xs,
                   (("begin", (t, 0, 0)), ("end", (t + 1, s.batch, s.n_input)), ("strides", (1, 1, 1)),
                    ("shrink_axis_mask", 0)))
        xt = add((s.batch, s.n_input), x)
        out += [Slice(op.index, op.opcode, x3, xs, 0, t, cut), Reshape(op.index, op.opcode, xs, xt)]
        reads = (xt,) if h is None else (xt, h, c)
        constants = _constants(s, h is None)
        if t + 1 < s.time:
            c_next = add((s.batch, s.n_cell), x)
            out.append(Step(op.index, op.opcode, "lstm", reads, c_next, _params(s, "cell_state_out"), constants))
        ht = add((s.batch, s.n_output), y)
        hs = add((1, s.batch, s.n_output), y)
        out += [Step(op.index, op.opcode, "lstm", reads, ht, _params(s, "dst"), constants),
                Reshape(op.index, op.opcode, ht, hs)]
        parts.append((hs, t))
        h, c = ht, (c_next if t + 1 < s.time else None)
    out.append(Concatenate(op.index, op.opcode, y3, 0, tuple(parts)))
    if y3 != y:
        out.append(Reshape(op.index, op.opcode, y, y3))  # y3 a view of the output (the output stays a buffer)
    return tuple(out)


__all__: list = []
