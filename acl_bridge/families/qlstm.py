"""The quantized LSTM family (native/acl_shim_qlstm.cpp): QLstm, one time step of TFLite's
integer LSTM (8x8_16) on ACL's NEQLSTMLayer (NEON, ACL 24.11; 20.08 refused as ACL's refusal,
CL refused). Its tensors are :class:`~.lstm.Lstm`'s roles with TFLite's integer types: int8
src, output states and dst (QASYMM8_SIGNED, ``(scale, zero point)``), int8 weights (QSYMM8),
int32 biases, int16 cell states, peepholes and layer-norm weights (QSYMM16); the symmetric
roles take ``(scale, 0)`` in ``quantization`` and are described as
:class:`~acl_bridge.mapping.SymmetricQuantization`. Not bit-exact with TFLite's kernel (ACL
computes its gate activations in float), and not TFLite's arithmetic where ACL differs: no gate
bias without layer normalization; a clip made every cell state -clip, so a clip is refused
(docs/models.md). No lowering rule uses it."""

from __future__ import annotations

import math
from typing import Sequence, Tuple

from ndarray.errors import UnsupportedOptionError

from .. import functions
from ..mapping import SymmetricQuantization
from .lstm import REQUIRED, ROLES, set_clips

# the roles ACL takes as QSYMM8 (int8 weights) and QSYMM16 (int16): symmetric, one scale
SYMMETRIC_ROLES: Tuple[str, ...] = tuple(r for r in ROLES if r.endswith("_weights") or r.startswith("cell_state"))


def _positive(name: str, v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise UnsupportedOptionError(f"QLstm: {name} is {v!r}, expected a finite number > 0")
    return float(v)


class QLstm(functions.AclFunction):
    """One step of TFLite's integer LSTM on :class:`~.lstm.Lstm`'s roles (the module says the
    types). Options: ``matmul_scales`` (the gates' i, f, c, o matmul output scales: TFLite's
    intermediates 0-3 with layer normalization, else 2^-12 each), ``hidden_scale`` and
    ``hidden_zero_point`` (the hidden state's, TFLite's intermediate 4), ``cell_clip`` and
    ``projection_clip`` (real bounds, 0 for none)."""

    kind, roles = "qlstm", ROLES
    outputs = ("output_state_out", "cell_state_out", "dst")
    optional = tuple(r for r in ROLES if r not in REQUIRED)
    const_roles = ROLES[1:24]

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        arrays, kind, params, quant = super()._call(args, options, quantization)
        for role in SYMMETRIC_ROLES:
            q = quant.get(role)
            if q is None or isinstance(q, SymmetricQuantization):
                continue
            try:
                scale, zero_point = q
            except (TypeError, ValueError):
                raise UnsupportedOptionError(f"QLstm: quantization of {role} is {q!r}, expected (scale, 0)") from None
            if isinstance(zero_point, bool) or zero_point != 0:
                raise UnsupportedOptionError(f"QLstm: quantization of {role} has zero point {zero_point!r}, expected 0 "
                                             f"(ACL's QSYMM8 / QSYMM16 are symmetric)")
            quant[role] = SymmetricQuantization(scale)
        return arrays, kind, params, quant

    @classmethod
    def _params(cls, matmul_scales: Sequence[float] = (2.0 ** -12,) * 4, hidden_scale: float = 2.0 ** -7,
                hidden_zero_point: int = 0, cell_clip: float = 0.0, projection_clip: float = 0.0):
        p = functions.default_params()
        scales = tuple(matmul_scales) if isinstance(matmul_scales, (tuple, list)) else ()
        if len(scales) != 4:
            raise UnsupportedOptionError(f"QLstm: matmul_scales is {matmul_scales!r}, expected 4 scales (gates i, f, "
                                         f"c, o)")
        for k, s in enumerate(scales):
            p.qlstm_matmul_scales[k] = _positive(f"matmul_scales[{k}]", s)
        p.qlstm_hidden_scale = _positive("hidden_scale", hidden_scale)
        if isinstance(hidden_zero_point, bool) or not isinstance(hidden_zero_point, int) \
                or not -128 <= hidden_zero_point <= 127:
            raise UnsupportedOptionError(f"QLstm: hidden_zero_point is {hidden_zero_point!r}, expected an int8 value")
        p.qlstm_hidden_zero_point = hidden_zero_point
        set_clips(p, "QLstm", cell_clip, projection_clip)
        for name, v in (("cell_clip", cell_clip), ("projection_clip", projection_clip)):
            if v:  # measured on ACL 24.11: every cell state -32768 whatever the clip (docs/models.md)
                raise UnsupportedOptionError(f"QLstm: {name} is {v!r}, expected 0: ACL's QLSTMLayer clips with "
                                             f"LU_BOUNDED_RELU(-clip, clip), min(-clip, max(clip, x)), which "
                                             f"saturates every value (TFLite's fallback kernel clips as TFLite)")
        return p


CLASSES: Tuple[type, ...] = (QLstm,)

__all__ = ["QLstm", "CLASSES", "SYMMETRIC_ROLES"]
