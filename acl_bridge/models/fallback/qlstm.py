"""The numpy kernel of the lowering's ``qlstm`` steps (:mod:`..lowering.rules.qlstm`):
TFLite's integer LSTM step (:mod:`.lstm_integer`, bit for bit with TFLite's interpreter) on
the step's constants, quantization and scales, so the numpy executor gives TFLite's result
where ACL's QLSTMLayer runs the step."""

from __future__ import annotations

import numpy as np

from ..lowering.lstm_operands import LstmOperands
from ..lowering.rules.lstm import ROLES
from ..lowering.step import Step
from .lstm_integer import integer_lstm_step, prepare_integer_lstm
from .step_kernels import step_kernel


@step_kernel("qlstm", quantized=True)
def _qlstm_step(s: Step, x: np.ndarray, p: dict, c: dict, q: dict, dst: np.ndarray, arrays) -> np.ndarray:
    """One step from the step's state constants; its int8 output."""
    operands = tuple(None if k == 0 else c.get(r) for k, r in enumerate(ROLES[:24]))
    h, cell = c["output_state_in"], c["cell_state_in"]
    lstm = LstmOperands(False, True, x.shape[0], 1, x.shape[1], cell.shape[-1], h.shape[-1],
                        "input_to_input_weights" not in c, "cell_to_forget_weights" in c, False,
                        "forget_layer_norm_weights" in c, "TANH", 0.0, 0.0, operands)
    scales = {k: q[r][0] for k, r in enumerate(ROLES[:24]) if r in q}
    zero_points = {k: q[r][1] for k, r in enumerate(ROLES[:24]) if r in q}
    prepared = prepare_integer_lstm(lstm, scales, zero_points, p["matmul_scales"], p["hidden_scale"],
                                    p["hidden_zero_point"], q["dst"][0])
    wide = (np.asarray(v, np.int64) for v in (x, h, cell))
    return integer_lstm_step(*wide, prepared)[0].astype(np.int8)


__all__: list = []
