"""The CPU fallback: TFLite operators the lowering does not put on ACL, run with numpy.

Kernels register themselves by TFLite opcode (:mod:`.registry`, ``@kernel``), one module per
family: :mod:`.data_movement` (shapes, views, copies, padding, casts), :mod:`.quantization`,
:mod:`.elementwise` (binary arithmetic and comparisons), :mod:`.activations` (unary),
:mod:`.reduce`, :mod:`.nn` (softmax, normalization, and the layers the lowering lowers but
ACL refused), :mod:`.nn_layers` (the neural-network layers' steps and fallbacks), :mod:`.custom` (MediaPipe's custom operators), :mod:`.pooling3d` (TFLite's 3-D pooling custom operators), :mod:`.gather_nd`, :mod:`.lstm` (LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM), :mod:`.detection`
(SSD models' ``TFLite_Detection_PostProcess``). Nothing here imports ACL: it needs numpy only.

:func:`unsupported` says at load why an operator cannot run here; :func:`prepare` binds an
operator to its arrays once and returns the function that runs it.
"""

from . import activations, custom, data_movement, elementwise, nn, nn_layers, quantization, reduce  # noqa: F401  (they register)
from . import detection, gather_nd, lstm, pooling3d  # noqa: F401  (they register)
from .registry import KERNELS, Call, Kernel, kernel, prepare, unsupported

__all__ = ["KERNELS", "Call", "Kernel", "kernel", "prepare", "unsupported"]
