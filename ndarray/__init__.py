"""Padded-buffer tensor memory descriptions in the style of libnd4j, speaking numpy, PyTorch,
XLA, DirectML and DLPack conventions. Pure Python + numpy."""

from .errors import (
    AclNdarrayError,
    ArgumentTypeError,
    ExportRefusedError,
    IndexOutOfRangeError,
    InvalidLayoutError,
    LayoutError,
    NotRepresentableError,
    PaddingNotFreeError,
    ReadOnlyError,
    UnsupportedOptionError,
)
from .descriptor import ShapeDescriptor
from .layout_rules import recover_padding
from .strides import dense_strides
from .array import NdArray

__all__ = [
    "AclNdarrayError",
    "ArgumentTypeError",
    "ExportRefusedError",
    "IndexOutOfRangeError",
    "UnsupportedOptionError",
    "ReadOnlyError",
    "PaddingNotFreeError",
    "LayoutError",
    "InvalidLayoutError",
    "NotRepresentableError",
    "ShapeDescriptor",
    "NdArray",
    "dense_strides",
    "recover_padding",
]
