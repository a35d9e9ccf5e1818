"""Arm NN (pyarmnn) interop: NdArrays in and out of Arm NN networks.

Works with the two pyarmnn releases Debian ships for arm64:

=========  ================  ===============  =========================================
Debian     pyarmnn package   ``GetVersion()``  what differs for this module
=========  ================  ===============  =========================================
bookworm   20.08             22.0.0           weights/biases are arguments of
                                              ``AddConvolution2dLayer`` /
                                              ``AddFullyConnectedLayer``; TensorInfo has
                                              no "constant" flag
trixie     23.08             33.0.0           weights/biases are ``ConstantLayer`` s wired
                                              to input slots 1 and 2; a ConstTensor needs
                                              a TensorInfo marked constant
=========  ================  ===============  =========================================

What users should know about pyarmnn 23.08: importing it prints
``WARNING: PyArmNN is deprecated ... Expected to be removed in release 24.05`` to *stdout*
(a plain ``print``, not a Python warning). Arm NN 23.08 is the last release with pyarmnn; Arm
points Python users at the TensorFlow Lite delegate instead. This module keeps pyarmnn usable
with what the distributions ship: the import is lazy (:func:`load`), the text is captured
instead of polluting stdout, recorded in :func:`import_notes`, and re-raised once as a
:class:`PyArmnnDeprecationWarning` (a ``FutureWarning``: shown by default, filter it with
``warnings.filterwarnings("ignore", category=PyArmnnDeprecationWarning)``).

Copies. Arm NN tensors are dense (C order, no strides, no padding). An NdArray whose
logical elements are one C-contiguous block is handed to Arm NN in place: an input is a
``ConstTensor`` over the NdArray's memory, an output is a ``Tensor`` Arm NN writes straight
into the NdArray. Anything else (a padded buffer, a strided view) is *staged*: copied into a
dense buffer (inputs, before every run) or copied back out of one (outputs, after every
run). Staging is never silent: it warns with :class:`ArmnnCopyWarning` when set up, every
staged copy is counted in bytes (``Binding.bytes_copied``, :func:`copy_stats`), and
``allow_copy=False`` makes it an error. These counts are the copies *this bridge* makes; Arm
NN itself still copies inputs into and outputs out of its backend tensors unless memory
import/export is enabled in its optimizer options, which this module does not do.

Quantized tensors: an NdArray carries no quantization, so it is passed as
``quantization=(scale, offset)``: uint8 -> ``QAsymmU8``, int8 -> ``QAsymmS8``, int16 (offset
0) -> ``QSymmS16``; ``real = scale * (stored - offset)``.
"""

from .loader import (
    ArmnnCopyWarning,
    ArmnnError,
    ArmnnUnavailableError,
    PyArmnnDeprecationWarning,
    armnn_available,
    armnn_version,
    import_notes,
    load,
    release,
)
from .network import Binding, CompiledNetwork, Network, Node
from .tensors import (
    CopyStats,
    armnn_tensor_info,
    const_tensor,
    copy_stats,
    data_type_name,
    dense_view,
    describe,
    descriptor_from_armnn_info,
    format_tensor_info,
    to_ndarray,
)

__all__ = [
    "ArmnnCopyWarning", "ArmnnError", "ArmnnUnavailableError", "Binding", "CompiledNetwork", "CopyStats",
    "Network", "Node", "PyArmnnDeprecationWarning", "armnn_available", "armnn_version", "armnn_tensor_info",
    "const_tensor", "copy_stats", "data_type_name", "dense_view", "describe", "descriptor_from_armnn_info",
    "format_tensor_info", "import_notes", "load", "release", "to_ndarray",
]
