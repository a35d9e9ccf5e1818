"""The CPU fallback: TFLite operators the lowering does not put on ACL, run with numpy.

Kernels register themselves by TFLite opcode (:mod:`.registry`, ``@kernel``), one module per
family: :mod:`.data_movement` (shapes, views, copies, padding, casts), :mod:`.quantization`,
:mod:`.elementwise` (binary arithmetic and comparisons), :mod:`.activations` (unary),
:mod:`.reduce`, :mod:`.nn` (softmax, normalization, and the layers the lowering lowers but
ACL refused), :mod:`.nn_layers` (the neural-network layers' steps and fallbacks), :mod:`.custom` (MediaPipe's custom operators), :mod:`.pooling3d` (TFLite's 3-D pooling custom operators), :mod:`.gather_nd`, :mod:`.lstm` (LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM), :mod:`.detection`
(SSD models' ``TFLite_Detection_PostProcess``). A family is found by being a module of this
package (no list names them; :data:`FAMILIES`, in name order), as the lowering's rules and the
ACL families are. Nothing here imports ACL: it needs numpy only.

:func:`unsupported` says at load why an operator cannot run here; :func:`prepare` binds an
operator to its arrays once and returns the function that runs it.
"""

import importlib
import pkgutil
from types import ModuleType
from typing import Tuple

from .registry import KERNELS, Call, Kernel, kernel, prepare, unsupported


def _families() -> Tuple[ModuleType, ...]:
    """Every module of this package, in name order (importing a family registers its kernels)."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return tuple(importlib.import_module(f"{__name__}.{name}") for name in names)


FAMILIES: Tuple[ModuleType, ...] = _families()

__all__ = ["FAMILIES", "KERNELS", "Call", "Kernel", "kernel", "prepare", "unsupported"]
