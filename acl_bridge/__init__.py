"""Zero-copy Arm Compute Library tensors over NdArray memory.

The pure mapping (``tensor_info``, ``auto_padding``, ``extend_padding``,
``descriptor_from_tensor_info``) works on any machine. The native part (cffi over ACL's C++
API: ``AclTensor`` and the NEON functions) exists only where it was built against ACL;
``native_available()`` says why not, and using a native name elsewhere raises
``AclUnavailableError`` with that reason.
"""

from .mapping import (
    AclTensorInfo,
    PaddingSize,
    auto_padding,
    descriptor_from_tensor_info,
    extend_padding,
    padded_descriptor,
    tensor_info,
)
from .native import (
    AclError,
    AclExceptionError,
    AclInvalidArgumentError,
    AclNotImportedError,
    AclOutOfMemoryError,
    AclReport,
    AclStatusError,
    AclUnavailableError,
    AclUnsupportedError,
    acl_version,
    build_information,
    compiled_acl_version,
    cpu_report,
    native_available,
    num_threads,
    set_num_threads,
)
from .errors import AclCopyFallbackWarning
from .tensor import AclTensor
from .plan import Action, FunctionPlan, Origin, Reason, TensorPlan
from .functions import AclFunction, required_padding, total_copy_count
from .families import (
    Activation,
    Add,
    Cast,
    Convolution,
    Copy,
    DepthwiseConvolution,
    Dequantize,
    Fill,
    FullyConnected,
    Gemm,
    Mul,
    Pad,
    Permute,
    Pooling,
    PRelu,
    Quantize,
    Resize,
    Softmax,
    Sub,
)
from .schedule import Schedule
from .workspace import Workspace, WorkspaceReport

__all__ = [
    # pure mapping
    "AclTensorInfo", "PaddingSize", "auto_padding", "descriptor_from_tensor_info", "extend_padding",
    "padded_descriptor", "tensor_info",
    # native layer
    "AclError", "AclExceptionError", "AclInvalidArgumentError", "AclNotImportedError", "AclOutOfMemoryError",
    "AclReport", "AclStatusError", "AclUnavailableError", "AclUnsupportedError", "acl_version",
    "build_information", "compiled_acl_version", "cpu_report", "native_available", "num_threads",
    "set_num_threads", "AclTensor",
    # functions
    "AclCopyFallbackWarning", "AclFunction", "Activation", "Add", "Cast", "Convolution", "Copy",
    "DepthwiseConvolution", "Dequantize", "Fill", "FullyConnected", "Gemm", "Mul", "Pad", "Permute",
    "Pooling", "PRelu", "Quantize", "Resize", "Softmax", "Sub", "required_padding", "total_copy_count", "Schedule",
    "Workspace", "WorkspaceReport",
    # plans
    "Action", "FunctionPlan", "Origin", "Reason", "TensorPlan",
]
