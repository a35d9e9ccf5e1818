"""The LSTM family (native/acl_shim_lstm.cpp): Lstm, one float time step of ACL's LSTMLayer
(NELSTMLayer / CLLSTMLayer, ACL 24.11) on TFLite's LSTM tensors. ACL 20.08's LSTMLayer did not
return from configure (measured): there construction raises AclStatusError naming
NELSTMLayer::validate, which the model runner's partition takes as ACL's refusal."""

from __future__ import annotations

import math
from typing import Optional, Tuple

from ndarray.errors import UnsupportedOptionError

from .. import functions

GATES = ("input", "forget", "cell", "output")
# TFLite's 24 LSTM inputs in its order (lstm_shared.h), then the three outputs
ROLES: Tuple[str, ...] = (
    ("src",) + tuple(f"input_to_{g}_weights" for g in GATES) + tuple(f"recurrent_to_{g}_weights" for g in GATES)
    + ("cell_to_input_weights", "cell_to_forget_weights", "cell_to_output_weights", "input_gate_bias",
       "forget_gate_bias", "cell_bias", "output_gate_bias", "projection_weights", "projection_bias",
       "output_state_in", "cell_state_in") + tuple(f"{g}_layer_norm_weights" for g in GATES)
    + ("output_state_out", "cell_state_out", "dst"))
REQUIRED = ("src", "input_to_forget_weights", "input_to_cell_weights", "input_to_output_weights",
            "recurrent_to_forget_weights", "recurrent_to_cell_weights", "recurrent_to_output_weights",
            "forget_gate_bias", "cell_bias", "output_gate_bias", "output_state_in", "cell_state_in")


class Lstm(functions.AclFunction):
    """One LSTM time step (TFLite's float LSTM: gates i, f, c, o): src (batch, n_input);
    weights (n_cell, n_input), recurrent weights (n_cell, n_output), biases and peepholes
    (n_cell,), projection weights (n_output, n_cell) and bias (n_output,), layer-norm
    coefficients (n_cell,), as TFLite stores them; output_state_in / _out and dst (batch,
    n_output), cell_state_in / _out (batch, n_cell). Absent input_to_input_weights (with
    recurrent_to_input_weights and input_gate_bias) is CIFG; cell_to_forget / _output
    peepholes; projection_weights a projection; forget / cell / output layer-norm
    coefficients layer normalization. Any of the three outputs may be left out (the shim
    keeps a tensor of its own). ``activation`` (``act_a``, ``act_b``): the cell activation
    (TFLite's fused activation: tanh is ``("tanh", 1, 1)``); ``cell_clip``,
    ``projection_clip``: bounds of |cell state| and |projected output|, 0 for none."""

    kind, roles = "lstm", ROLES
    outputs = ("output_state_out", "cell_state_out", "dst")
    optional = tuple(r for r in ROLES if r not in REQUIRED)
    const_roles = ROLES[1:24]

    @classmethod
    def _params(cls, activation: Optional[str] = "tanh", act_a: float = 1.0, act_b: float = 1.0,
                cell_clip: float = 0.0, projection_clip: float = 0.0):
        p = functions.default_params()
        functions._activation_params(p, activation, act_a, act_b)
        set_clips(p, "Lstm", cell_clip, projection_clip)
        return p


def set_clips(p, kind: str, cell_clip: float, projection_clip: float) -> None:
    """``p.cell_clip`` and ``p.projection_clip`` (the lstm family's), each checked: a finite
    number >= 0, 0 for none (UnsupportedOptionError naming ``kind`` and the option)."""
    for name, v in (("cell_clip", cell_clip), ("projection_clip", projection_clip)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise UnsupportedOptionError(f"{kind}: {name} is {v!r}, expected a finite number >= 0 (0: no clip)")
        setattr(p, name, float(v))


CLASSES: Tuple[type, ...] = (Lstm,)

__all__ = ["Lstm", "CLASSES", "ROLES", "GATES"]
