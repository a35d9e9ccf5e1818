"""int8 LSTM (TFLite's integer LSTM, 8x8_16) -> one ``qlstm`` step, ACL's NEQLSTMLayer
(:class:`acl_bridge.families.qlstm.QLstm`), where ACL computes what TFLite's kernel does
within a few int8 steps (measured: tests/acl/test_qlstm.py, tests/models/test_qlstm_lowering.py).

This module registers LSTM's rule: float32 goes to :mod:`.lstm`'s, int8 here. One step
from TFLite's reset state, as the float rule: the input, the weights,
biases and the zero states (the output state at its zero point, the cell state 0) as step
constants, the output as ``dst``; the gates' matmul scales are the operator's intermediates
0-3 with layer normalization (2^-12 without, as TFLite reads them), the hidden state's scale
and zero point intermediate 4. Refused (the partitioned runner's fallback then runs TFLite's
kernel bit for bit), each for a measured or read cause (docs/models.md, LSTM row): a cell or
projection clip (ACL clips with LU_BOUNDED_RELU(a=-clip, b=clip), min(a, max(b, x)): every
cell state becomes -clip, saturated), a projection (ACL adds what its output state tensor
holds to the projection), a peephole with n_cell != n_output
(TFLite's kernel applies it over n_output cells) and a cell activation other than TANH. An int8 UNIDIRECTIONAL_SEQUENCE_LSTM stays at the
float32 type gate (its later steps start from a cell state that ACL's forget gate x cell
product, kept in Q0.15, saturates at 1)."""

from __future__ import annotations

import math
from typing import Tuple

import numpy as np

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import refuse
from ..step import Lowered, Step
from ..lstm_operands import CELL_STATE, OUTPUT_STATE, LstmOperands, read_lstm
from ..quantized import per_tensor, quantization
from . import lstm as float_lstm
from .lstm import OUTPUTS, ROLES, _constants
from .table import FLOAT32, rule

# ACL's NEQLSTMLayer validate: the cell state's scale 2^n with n <= -9 (as TFLite's kernel)
MAX_CELL_LOG2 = -9


def is_integer_lstm(op: OperatorSpec, model: ModelSpec) -> bool:
    """Whether ``op`` is an LSTM on int8 (TFLite's integer LSTM)."""
    return bool(op.inputs) and op.inputs[0] >= 0 and model.tensors[op.inputs[0]].dtype == np.int8


def _refusals(op: OperatorSpec, lstm: LstmOperands) -> None:
    """UnsupportedModelError for the configurations ACL does not compute as TFLite (the module
    says why)."""
    if lstm.cell_clip > 0 or lstm.proj_clip > 0:
        raise refuse(op, f"an int8 LSTM with cell_clip {lstm.cell_clip} / proj_clip {lstm.proj_clip} on ACL (its "
                         f"QLSTMLayer clips with LU_BOUNDED_RELU(a=-clip, b=clip), min(a, max(b, x)): every value "
                         f"becomes -clip)")
    if lstm.projection:
        raise refuse(op, "an int8 LSTM with a projection on ACL (its QLSTMLayer adds the contents of its output "
                         "state tensor to the projection)")
    if lstm.peephole and lstm.n_cell != lstm.n_output:
        raise refuse(op, f"an int8 LSTM with peepholes and n_cell {lstm.n_cell} != n_output {lstm.n_output} on ACL "
                         f"(TFLite's kernel applies the peephole over n_output cells)")
    if lstm.activation != "TANH":
        raise refuse(op, f"an int8 LSTM with the cell activation {lstm.activation} on ACL (its QLSTMLayer: TANH)")


def lower_integer_lstm(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> one ``qlstm`` step from the zero state; refuses (UnsupportedModelError naming the
    input, option or configuration) what ACL does not compute as TFLite (the module says
    what) and what TFLite's 8x8_16 kernel does not take."""
    lstm = read_lstm(op, model, integer=True)
    _refusals(op, lstm)
    t = model.tensors
    if len(op.intermediates) != 5:
        raise refuse(op, f"an integer LSTM with {len(op.intermediates)} intermediates (TFLite's 8x8_16 kernel reads "
                         f"5: the four gates' matmul scales and the hidden state's)")
    mid = [per_tensor(op, t[i]) for i in op.intermediates]
    q = {}
    for k, role in enumerate(ROLES[:24]):
        if k < len(op.inputs) and op.inputs[k] >= 0 and t[op.inputs[k]].dtype != np.int32:
            q[role] = per_tensor(op, t[op.inputs[k]])
    cell_log2 = math.log2(q["cell_state_in"][0])
    if abs(cell_log2 - round(cell_log2)) >= 1e-3 or round(cell_log2) > MAX_CELL_LOG2:
        raise refuse(op, f"a cell state of scale {q['cell_state_in'][0]} (TFLite's integer LSTM and ACL's QLSTMLayer "
                         f"take 2^n, n <= {MAX_CELL_LOG2})")
    y = per_tensor(op, t[op.outputs[0]])
    q["dst"] = y
    # TFLite reads the gates' intermediates only with layer normalization (Q3.12 without); ACL
    # needs a scale > 0 for each, the CIFG input gate's too
    scales = tuple(float(mid[g][0]) if lstm.layer_norm and mid[g][0] > 0 else 2.0 ** -12 for g in range(4))
    absent = tuple(r for k, r in enumerate(ROLES) if 0 < k < 24 and k not in (OUTPUT_STATE, CELL_STATE)
                   and lstm.operands[k] is None) + tuple(r for r in OUTPUTS if r != "dst")
    params = (("matmul_scales", scales), ("hidden_scale", float(mid[4][0])), ("hidden_zero_point", int(mid[4][1])),
              ("absent", absent)) + quantization(*q.items())
    return (Step(op.index, op.opcode, "qlstm", (op.inputs[0],), op.outputs[0], params, _constants(lstm, True)),)


def _float32_or_integer(op: OperatorSpec, model: ModelSpec) -> None:
    """LSTM's type gate: an int8 input passes (:func:`lower_integer_lstm` checks the rest),
    else the float32 gate."""
    if not is_integer_lstm(op, model):
        FLOAT32(op, model)


@rule("LSTM", tensors=_float32_or_integer)
def lstm(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> int8: :func:`lower_integer_lstm`; float32: :func:`.lstm.lstm`."""
    return lower_integer_lstm(op, model) if is_integer_lstm(op, model) else float_lstm.lstm(op, model)


__all__ = ["is_integer_lstm", "lower_integer_lstm"]
