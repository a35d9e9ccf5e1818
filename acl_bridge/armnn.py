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

from __future__ import annotations

import contextlib
import inspect
import io
import logging
import warnings
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ndarray import AclNdarrayError, InvalidLayoutError, NdArray, NotRepresentableError, ShapeDescriptor

from .layout import window_kernel, window_padding, window_stride
from .mapping import check_quantization

ArrayLike = Union[NdArray, np.ndarray]
Quantization = Optional[Tuple[float, int]]


# ---------------------------------------------------------------------------- errors, warnings
class ArmnnError(AclNdarrayError, RuntimeError):
    """Arm NN refused something (optimize, load, run); carries Arm NN's own messages."""


class ArmnnUnavailableError(ArmnnError):
    """pyarmnn cannot be imported here (the message says why)."""


class PyArmnnDeprecationWarning(FutureWarning):
    """pyarmnn announced its own deprecation (23.08: removed upstream in 24.05)."""


class ArmnnCopyWarning(UserWarning):
    """An NdArray is staged through a dense copy on every run (see module docstring)."""


# ---------------------------------------------------------------------------- lazy import
_STATE: Dict[str, object] = {"module": None, "error": None, "notes": ()}


def load():
    """The ``pyarmnn`` module, imported on first use; ArmnnUnavailableError says why not.

    What pyarmnn prints or logs while importing is captured into :func:`import_notes`; a
    deprecation notice is re-raised once as :class:`PyArmnnDeprecationWarning`.
    """
    if _STATE["module"] is not None:
        return _STATE["module"]
    if _STATE["error"] is not None:
        raise ArmnnUnavailableError(_STATE["error"])
    out = io.StringIO()
    records: List[logging.LogRecord] = []

    class _Collect(logging.Handler):
        def emit(self, record):
            records.append(record)

    logger = logging.getLogger("pyarmnn")
    handler, propagate = _Collect(), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with contextlib.redirect_stdout(out):
            import pyarmnn as ann  # noqa: PLC0415  (lazy on purpose)
    except ImportError as e:
        _STATE["error"] = (
            f"pyarmnn could not be imported: {e} (Arm NN's Python bindings are Debian's python3-pyarmnn "
            f"on arm64, with a backend such as libarmnn-cpuacc-backend22 (bookworm) or "
            f"libarmnn-cpuacc-backend33 (trixie))"
        )
        raise ArmnnUnavailableError(_STATE["error"]) from None
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
    notes = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
    notes += [f"{r.levelname}: {r.getMessage()}" for r in records]
    _STATE["notes"] = tuple(notes)
    _STATE["module"] = ann
    for note in notes:
        if "deprecat" in note.lower():
            warnings.warn(PyArmnnDeprecationWarning(f"pyarmnn {armnn_version()}: {note}"), stacklevel=2)
    return ann


def armnn_available() -> Tuple[bool, str]:
    """(True, "pyarmnn 33.0.0 (Arm NN 23.08)") or (False, why not). Never raises.

    A probe: if it is what first imports pyarmnn, the deprecation notice is recorded in
    :func:`import_notes` but not raised as a warning."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PyArmnnDeprecationWarning)
            load()
    except ArmnnUnavailableError as e:
        return False, str(e)
    except Exception as e:  # a broken installation (missing libarmnn, ABI mismatch...)
        _STATE["error"] = f"pyarmnn failed to import: {type(e).__name__}: {e}"
        return False, _STATE["error"]
    return True, f"pyarmnn {armnn_version()} (Arm NN {release()})"


def import_notes() -> Tuple[str, ...]:
    """What pyarmnn printed or logged while importing (e.g. its deprecation notice)."""
    return tuple(_STATE["notes"])


def armnn_version() -> str:
    """``pyarmnn.GetVersion()``: '22.0.0' for Arm NN 20.08, '33.0.0' for 23.08."""
    return str(load().GetVersion())


_RELEASES = {22: "20.08", 33: "23.08"}


def release() -> str:
    """The Arm NN release name ('20.08', '23.08'); 'unknown (major N)' for others."""
    major = int(armnn_version().split(".")[0])
    return _RELEASES.get(major, f"unknown (major {major})")


def _legacy_weights_api(ann) -> bool:
    """True where weights/biases are arguments of AddConvolution2dLayer (Arm NN 20.08)."""
    try:
        params = inspect.signature(ann.INetwork.AddConvolution2dLayer).parameters
    except (TypeError, ValueError):
        return int(armnn_version().split(".")[0]) < 30
    return "weights" in params


# ---------------------------------------------------------------------------- data types
# numpy dtype -> pyarmnn DataType attribute name; quantized ones by storage type.
_PLAIN = {np.dtype("float32"): "DataType_Float32", np.dtype("float16"): "DataType_Float16",
          np.dtype("int32"): "DataType_Signed32", np.dtype("bool"): "DataType_Boolean"}
_QUANTIZED = {np.dtype("uint8"): "DataType_QAsymmU8", np.dtype("int8"): "DataType_QAsymmS8",
              np.dtype("int16"): "DataType_QSymmS16"}
_NUMPY_OF = {"DataType_Float32": "float32", "DataType_Float16": "float16", "DataType_Signed32": "int32",
             "DataType_Boolean": "bool", "DataType_QAsymmU8": "uint8", "DataType_QAsymmS8": "int8",
             "DataType_QSymmS8": "int8", "DataType_QSymmS16": "int16"}


def data_type_name(dtype, quantization: Quantization = None) -> str:
    """pyarmnn DataType name for a numpy dtype (+ quantization); NotRepresentableError if none."""
    dt = np.dtype(dtype)
    if dt.byteorder == (">" if np.little_endian else "<"):
        raise NotRepresentableError(f"dtype {dt} is not in native byte order, which Arm NN requires")
    if quantization is None:
        if dt in _PLAIN:
            return _PLAIN[dt]
        hint = " (quantized types need quantization=(scale, offset))" if dt in _QUANTIZED else ""
        raise NotRepresentableError(
            f"dtype {dt} has no Arm NN data type{hint}, expected one of {sorted(t.name for t in _PLAIN)}")
    if dt not in _QUANTIZED:
        raise NotRepresentableError(
            f"dtype {dt} has no quantized Arm NN data type, expected one of {sorted(t.name for t in _QUANTIZED)}")
    scale, offset = check_quantization(quantization, dt)
    if dt == np.dtype("int16") and offset != 0:
        raise NotRepresentableError(f"quantization offset is {offset}, Arm NN's QSymmS16 is symmetric (offset 0)")
    return _QUANTIZED[dt]



def _shape_of(obj) -> Tuple[int, ...]:
    shape = tuple(int(n) for n in obj)
    if any(n <= 0 for n in shape):
        raise NotRepresentableError(f"shape is {shape}, Arm NN tensors need every dimension >= 1")
    if len(shape) > 5:
        raise NotRepresentableError(f"shape {shape} has rank {len(shape)}, Arm NN tensors have at most 5 dimensions")
    return shape or (1,)


def tensor_info(array_or_descriptor: Union[NdArray, ShapeDescriptor, np.ndarray],
                quantization: Quantization = None, *, constant: bool = False):
    """pyarmnn ``TensorInfo`` for an NdArray / descriptor (Arm NN's shape is numpy's shape,
    outermost first; a scalar becomes (1,)). ``constant`` marks it constant (23.08 needs that
    for ConstTensors; 20.08 has no such flag and ignores it)."""
    ann = load()
    d = _descriptor(array_or_descriptor)
    name = data_type_name(d.dtype, quantization)
    scale, offset = (0.0, 0) if quantization is None else check_quantization(quantization, d.dtype)
    info = ann.TensorInfo(ann.TensorShape(_shape_of(d.shape)), getattr(ann, name), scale, offset)
    if constant and hasattr(info, "SetConstant"):
        info.SetConstant(True)
    return info


def _descriptor(obj) -> ShapeDescriptor:
    if isinstance(obj, NdArray):
        return obj.descriptor
    if isinstance(obj, ShapeDescriptor):
        return obj
    if isinstance(obj, np.ndarray):
        return NdArray.from_numpy(obj).descriptor
    raise InvalidLayoutError(f"expected an NdArray, numpy array or ShapeDescriptor, got {type(obj).__name__}")


def describe(info) -> Tuple[Tuple[int, ...], np.dtype, Quantization]:
    """(shape, numpy dtype, quantization or None) of a pyarmnn TensorInfo."""
    ann = load()
    code = info.GetDataType()
    names = [n for n in _NUMPY_OF if getattr(ann, n, None) == code]
    if not names:
        raise NotRepresentableError(f"Arm NN data type {code} has no numpy equivalent here: {info!r}")
    shape = tuple(int(info.GetShape()[i]) for i in range(info.GetNumDimensions()))
    quantized = names[0] in _QUANTIZED.values() or names[0] == "DataType_QSymmS8"
    quant = (float(info.GetQuantizationScale()), int(info.GetQuantizationOffset())) if quantized else None
    return shape, np.dtype(_NUMPY_OF[names[0]]), quant


def descriptor_from_tensor_info(info) -> Tuple[ShapeDescriptor, Quantization]:
    """The dense C-order ShapeDescriptor of an Arm NN tensor, and its quantization (or None)."""
    shape, dtype, quant = describe(info)
    return ShapeDescriptor.create(shape, dtype), quant


def format_tensor_info(info) -> str:
    """Compact text of a pyarmnn TensorInfo: ``QAsymmU8[1,3,4,4] q=(0.5,10) const``."""
    shape, dtype, quant = describe(info)
    ann = load()
    name = next(n for n in _NUMPY_OF if getattr(ann, n, None) == info.GetDataType()).replace("DataType_", "")
    q = f" q=({quant[0]:g},{quant[1]})" if quant else ""
    const = " const" if hasattr(info, "IsConstant") and info.IsConstant() else ""
    return f"{name}[{','.join(map(str, shape))}]{q}{const}"


# ---------------------------------------------------------------------------- copies
@dataclass(frozen=True)
class CopyStats:
    """Copies the bridge made between NdArrays and Arm NN tensors."""

    copies: int = 0
    bytes_copied: int = 0


_TOTAL = [0, 0]  # copies, bytes (process-wide)


def copy_stats() -> CopyStats:
    """Staged copies made by this module in this process, all bindings together."""
    return CopyStats(*_TOTAL)


def dense_view(array: ArrayLike) -> Optional[np.ndarray]:
    """The NdArray's elements as one C-contiguous numpy array over the SAME memory, or None
    when they are not one dense block (padding, strides) and Arm NN would need a copy."""
    if isinstance(array, np.ndarray):
        view = array
    else:
        view = array.numpy()
    if view.flags.c_contiguous and view.dtype.isnative:
        return view.view()  # a fresh view object: pyarmnn flips writeable on what it gets
    return None


def _staging_reason(array: ArrayLike) -> str:
    if isinstance(array, NdArray):
        d = array.descriptor
        what = "a padded buffer" if d.has_padded_buffer else "not C-contiguous"
        return f"{what}: {d!r}"
    return f"not C-contiguous: shape={array.shape}, strides={array.strides}"


def _as_ndarray(a: ArrayLike, role: str) -> NdArray:
    if isinstance(a, NdArray):
        return a
    if isinstance(a, np.ndarray):
        return NdArray.from_numpy(a)
    raise InvalidLayoutError(f"{role} must be an NdArray or a numpy array, got {type(a).__name__}")


class _Staged:
    """One NdArray and the dense memory Arm NN uses for it (the same memory when possible)."""

    def __init__(self, array: NdArray, role: str, allow_copy: bool):
        self.array = array
        self.role = role
        view = dense_view(array)
        self.in_place = view is not None
        if view is None:
            if not allow_copy:
                raise NotRepresentableError(
                    f"{role}: Arm NN tensors are dense and this NdArray is {_staging_reason(array)}; "
                    f"allow_copy=False")
            view = np.empty(array.shape, array.dtype)
        self.dense = view
        self.reason = None if self.in_place else _staging_reason(array)

    @property
    def nbytes(self) -> int:
        return int(self.dense.nbytes)


def const_tensor(array: ArrayLike, quantization: Quantization = None, *, allow_copy: bool = True):
    """``(ConstTensor, bytes_copied)``: a pyarmnn ConstTensor over the NdArray's memory (0 bytes
    copied) or, for a padded/strided NdArray, over a dense copy (counted, and warned about).

    The ConstTensor keeps a reference to the memory; Arm NN reads it when the tensor is used
    (as a network input on every run; weights are copied by Arm NN when the layer is added).
    """
    ann = load()
    nd = _as_ndarray(array, "const_tensor")
    s = _Staged(nd, "const_tensor", allow_copy)
    copied = 0
    if not s.in_place:
        warnings.warn(ArmnnCopyWarning(f"const_tensor: copying {s.nbytes} bytes into a dense buffer: {s.reason}"),
                      stacklevel=2)
        s.dense[...] = nd.numpy()
        copied = s.nbytes
        _count(copied)
    return ann.ConstTensor(tensor_info(nd, quantization, constant=True), s.dense.view()), copied


def to_ndarray(tensor) -> NdArray:
    """An NdArray over a pyarmnn Tensor's / ConstTensor's own memory (no copy)."""
    shape = tuple(int(tensor.GetShape()[i]) for i in range(tensor.GetNumDimensions()))
    mem = tensor.get_memory_area()
    return NdArray.from_numpy(mem.reshape(shape))


def _count(nbytes: int) -> None:
    _TOTAL[0] += 1
    _TOTAL[1] += nbytes


# ---------------------------------------------------------------------------- networks
class Node:
    """One layer output while a :class:`Network` is being described."""

    def __init__(self, layer, shape, dtype="float32", quantization: Quantization = None, name: str = ""):
        self.layer = layer
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.quantization = quantization
        self.name = name

    @property
    def slot(self):
        return self.layer.GetOutputSlot(0)

    def __repr__(self) -> str:
        return f"Node({self.name}: {self.dtype.name}[{','.join(map(str, self.shape))}])"


def _sides(padding) -> Tuple[int, int, int, int]:
    """(top, bottom, left, right) for Arm NN's descriptors, from any window padding form
    that acl_bridge.layout.window_padding takes."""
    p = window_padding(padding)
    return p.top, p.bottom, p.left, p.right


def _window_out(size: int, k: int, stride: int, before: int, after: int, what: str) -> int:
    # floor((size + before + after - k) / stride) + 1, Arm NN's OutputShapeRounding_Floor.
    span = size + before + after - k
    if span < 0:
        raise InvalidLayoutError(f"{what}: window {k} is larger than the padded input {size + before + after}")
    return span // stride + 1


class Network:
    """A small Arm NN network described in Python (no model file), NCHW float32 or quantized.

    >>> net = Network()
    >>> x = net.input((1, 3, 8, 8))
    >>> y = net.activation(net.conv2d(x, w, b, padding=1), "relu")
    >>> net.output(y)
    >>> run = net.compile().bind([x_nd])      # configure once ...
    >>> out, = run.run()                      # ... run many (NdArrays out)

    Output shapes are computed here (and checked by Arm NN at optimize time); ``layers``
    lists (name, description, output TensorInfo text) for printing.
    """

    def __init__(self):
        self.ann = load()
        self._net = self.ann.INetwork()
        self._legacy = _legacy_weights_api(self.ann)
        self._keep: List[object] = []  # ConstTensors and their memory stay alive with the network
        self.inputs: List[Node] = []
        self.outputs: List[Node] = []
        self.layers: List[Tuple[str, str, str]] = []
        self.bytes_copied = 0  # weights staged through dense copies

    # -- plumbing
    def _finish(self, layer, shape, what: str, name: str, dtype="float32", quantization=None, sources=()) -> Node:
        for i, src in enumerate(sources):
            src.slot.Connect(layer.GetInputSlot(i))
        node = Node(layer, shape, dtype, quantization, name)
        info = tensor_info(ShapeDescriptor.create(_shape_of(shape), dtype), quantization)
        layer.GetOutputSlot(0).SetTensorInfo(info)
        self.layers.append((name, what, format_tensor_info(info)))
        return node

    def _const(self, array: ArrayLike, role: str):
        ct, copied = const_tensor(array)
        self.bytes_copied += copied
        self._keep.append(ct)
        return ct

    def _const_layer(self, array: ArrayLike, name: str):
        """23.08: a ConstantLayer holding weights or biases (Arm NN copies the data)."""
        nd = _as_ndarray(array, name)
        ct = self._const(nd, name)
        layer = self._net.AddConstantLayer(ct, name)
        layer.GetOutputSlot(0).SetTensorInfo(tensor_info(nd, constant=True))
        return layer

    def _name(self, name: Optional[str], kind: str) -> str:
        return name or f"{kind}{len(self.layers)}"

    # -- layers
    def input(self, shape, dtype="float32", quantization: Quantization = None, name: Optional[str] = None) -> Node:
        binding = len(self.inputs)
        name = self._name(name, "input")
        layer = self._net.AddInputLayer(binding, name)
        node = self._finish(layer, _shape_of(shape), f"input binding {binding}", name, dtype, quantization)
        self.inputs.append(node)
        return node

    def output(self, x: Node, name: Optional[str] = None) -> int:
        binding = len(self.outputs)
        layer = self._net.AddOutputLayer(binding, self._name(name, "output"))
        x.slot.Connect(layer.GetInputSlot(0))
        self.outputs.append(x)
        return binding

    def activation(self, x: Node, function: str = "relu", a: float = 0.0, b: float = 0.0,
                   name: Optional[str] = None) -> Node:
        """relu, bounded_relu (min(a, max(b, x)) as Arm NN's BoundedReLu), sigmoid, tanh
        (a * tanh(b * x)), leaky_relu (alpha a), linear (a * x + b), abs, sqrt, square, elu."""
        ann = self.ann
        functions = {"relu": "ReLu", "bounded_relu": "BoundedReLu", "sigmoid": "Sigmoid", "logistic": "Sigmoid",
                     "tanh": "TanH", "leaky_relu": "LeakyReLu", "linear": "Linear", "abs": "Abs",
                     "sqrt": "Sqrt", "square": "Square", "elu": "Elu", "soft_relu": "SoftReLu"}
        if function not in functions:
            raise InvalidLayoutError(f"function is {function!r}, expected one of {sorted(functions)}")
        desc = ann.ActivationDescriptor()
        desc.m_Function = getattr(ann, "ActivationFunction_" + functions[function])
        desc.m_A, desc.m_B = float(a), float(b)
        name = self._name(name, function)
        layer = self._net.AddActivationLayer(desc, name)
        return self._finish(layer, x.shape, f"activation {function} a={a:g} b={b:g}", name, x.dtype,
                            x.quantization, [x])

    def conv2d(self, x: Node, weights: ArrayLike, bias: Optional[ArrayLike] = None, stride=1, padding=0,
               name: Optional[str] = None) -> Node:
        """NCHW convolution (cross-correlation): weights (O, I, KH, KW), bias (O,)."""
        ann = self.ann
        w = _as_ndarray(weights, "weights")
        if len(x.shape) != 4 or len(w.shape) != 4 or w.shape[1] != x.shape[1]:
            raise InvalidLayoutError(f"conv2d: input {x.shape} (N,C,H,W) and weights {w.shape} (O,C,KH,KW) do not fit")
        sy, sx = window_stride(stride)
        top, bottom, left, right = _sides(padding)
        desc = ann.Convolution2dDescriptor()
        desc.m_PadTop, desc.m_PadBottom, desc.m_PadLeft, desc.m_PadRight = top, bottom, left, right
        desc.m_StrideX, desc.m_StrideY = sx, sy
        desc.m_BiasEnabled = bias is not None
        desc.m_DataLayout = ann.DataLayout_NCHW
        name = self._name(name, "conv")
        if self._legacy:
            b = self._const(_as_ndarray(bias, "bias"), "bias") if bias is not None else None
            layer = self._net.AddConvolution2dLayer(desc, self._const(w, "weights"), b, name)
        else:
            layer = self._net.AddConvolution2dLayer(desc, name)
            self._const_layer(w, name + "_weights").GetOutputSlot(0).Connect(layer.GetInputSlot(1))
            if bias is not None:
                self._const_layer(bias, name + "_bias").GetOutputSlot(0).Connect(layer.GetInputSlot(2))
        n, _, h, wd = x.shape
        out = (n, w.shape[0], _window_out(h, w.shape[2], sy, top, bottom, name),
               _window_out(wd, w.shape[3], sx, left, right, name))
        what = f"conv {w.shape[2]}x{w.shape[3]} stride ({sy},{sx}) pad ({top},{bottom},{left},{right}) bias={bias is not None}"
        x.slot.Connect(layer.GetInputSlot(0))
        return self._finish(layer, out, what, name)

    def pool2d(self, x: Node, pool_type: str = "max", kernel=2, stride=None, padding=0,
               name: Optional[str] = None) -> Node:
        """NCHW max/average pooling (average excludes padding, floor rounding)."""
        ann = self.ann
        kinds = {"max": "Max", "avg": "Average", "average": "Average", "l2": "L2"}
        if pool_type not in kinds:
            raise InvalidLayoutError(f"pool_type is {pool_type!r}, expected one of {sorted(kinds)}")
        kh, kw = window_kernel(kernel)
        sy, sx = window_stride(stride if stride is not None else kernel)
        top, bottom, left, right = _sides(padding)
        desc = ann.Pooling2dDescriptor()
        desc.m_PoolType = getattr(ann, "PoolingAlgorithm_" + kinds[pool_type])
        desc.m_PoolWidth, desc.m_PoolHeight = kw, kh
        desc.m_StrideX, desc.m_StrideY = sx, sy
        desc.m_PadTop, desc.m_PadBottom, desc.m_PadLeft, desc.m_PadRight = top, bottom, left, right
        desc.m_OutputShapeRounding = ann.OutputShapeRounding_Floor
        desc.m_PaddingMethod = ann.PaddingMethod_Exclude
        desc.m_DataLayout = ann.DataLayout_NCHW
        name = self._name(name, pool_type + "pool")
        layer = self._net.AddPooling2dLayer(desc, name)
        n, c, h, w = x.shape
        out = (n, c, _window_out(h, kh, sy, top, bottom, name), _window_out(w, kw, sx, left, right, name))
        return self._finish(layer, out, f"{pool_type} pool {kh}x{kw} stride ({sy},{sx})", name, x.dtype,
                            x.quantization, [x])

    def reshape(self, x: Node, shape, name: Optional[str] = None) -> Node:
        shape = _shape_of(shape)
        if int(np.prod(shape)) != int(np.prod(x.shape)):
            raise InvalidLayoutError(f"reshape: {x.shape} has {int(np.prod(x.shape))} elements, {shape} has {int(np.prod(shape))}")
        desc = self.ann.ReshapeDescriptor()
        desc.m_TargetShape = self.ann.TensorShape(shape)
        name = self._name(name, "reshape")
        layer = self._net.AddReshapeLayer(desc, name)
        return self._finish(layer, shape, f"reshape to {shape}", name, x.dtype, x.quantization, [x])

    def fully_connected(self, x: Node, weights: ArrayLike, bias: Optional[ArrayLike] = None,
                        name: Optional[str] = None) -> Node:
        """y = x @ weights.T + bias; x (N, in), weights (out, in), bias (out,)."""
        ann = self.ann
        w = _as_ndarray(weights, "weights")
        if len(x.shape) != 2 or len(w.shape) != 2 or w.shape[1] != x.shape[1]:
            raise InvalidLayoutError(f"fully_connected: input {x.shape} (N,in) and weights {w.shape} (out,in) do not fit")
        desc = ann.FullyConnectedDescriptor()
        desc.m_BiasEnabled = bias is not None
        desc.m_TransposeWeightMatrix = True  # weights are (out, in)
        name = self._name(name, "fc")
        if self._legacy:
            b = self._const(_as_ndarray(bias, "bias"), "bias") if bias is not None else None
            layer = self._net.AddFullyConnectedLayer(desc, self._const(w, "weights"), b, name)
        else:
            layer = self._net.AddFullyConnectedLayer(desc, name)
            self._const_layer(w, name + "_weights").GetOutputSlot(0).Connect(layer.GetInputSlot(1))
            if bias is not None:
                self._const_layer(bias, name + "_bias").GetOutputSlot(0).Connect(layer.GetInputSlot(2))
        x.slot.Connect(layer.GetInputSlot(0))
        return self._finish(layer, (x.shape[0], w.shape[0]), f"fully connected {w.shape[1]}->{w.shape[0]}", name)

    def softmax(self, x: Node, beta: float = 1.0, name: Optional[str] = None) -> Node:
        """Softmax over the last axis."""
        desc = self.ann.SoftmaxDescriptor()
        desc.m_Beta = float(beta)
        name = self._name(name, "softmax")
        layer = self._net.AddSoftmaxLayer(desc, name)
        return self._finish(layer, x.shape, f"softmax beta={beta:g}", name, x.dtype, x.quantization, [x])

    # -- compile
    def compile(self, backends: Sequence[str] = ("CpuAcc",)) -> "CompiledNetwork":
        """Optimize for ``backends`` and load into a fresh runtime."""
        ann = self.ann
        if not self.outputs:
            raise InvalidLayoutError("the network has no output: call output(node) first")
        runtime = ann.IRuntime(ann.CreationOptions())
        try:
            opt, messages = ann.Optimize(self._net, [ann.BackendId(b) for b in backends], runtime.GetDeviceSpec(),
                                         ann.OptimizerOptions())
        except Exception as e:  # pyarmnn raises RuntimeError / InvalidArgumentException
            raise ArmnnError(f"Optimize for {list(backends)} failed: {' '.join(str(e).split())}") from None
        try:
            net_id, messages2 = runtime.LoadNetwork(opt)
        except Exception as e:
            raise ArmnnError(f"LoadNetwork failed: {' '.join(str(e).split())}") from None
        return CompiledNetwork(self, runtime, net_id, tuple(backends), [str(m) for m in messages or ()])


class CompiledNetwork:
    """A network loaded into an Arm NN runtime."""

    def __init__(self, network: Network, runtime, net_id, backends, messages):
        self.network = network  # keeps weights alive (20.08 layers may reference them)
        self.runtime = runtime
        self.net_id = net_id
        self.backends = backends
        self.messages = messages
        self.input_infos = [(i, runtime.GetInputTensorInfo(net_id, i)) for i in range(len(network.inputs))]
        self.output_infos = [(i, runtime.GetOutputTensorInfo(net_id, i)) for i in range(len(network.outputs))]

    def bind(self, inputs: Sequence[ArrayLike], outputs: Optional[Sequence[ArrayLike]] = None, *,
             allow_copy: bool = True) -> "Binding":
        """Configure once: Arm NN tensors over these NdArrays (see :class:`Binding`)."""
        return Binding(self, inputs, outputs, allow_copy)

    def run(self, inputs: Sequence[ArrayLike], outputs: Optional[Sequence[ArrayLike]] = None, *,
            allow_copy: bool = True) -> List[NdArray]:
        """One inference; returns the output NdArrays."""
        return self.bind(inputs, outputs, allow_copy=allow_copy).run()

    def __del__(self):
        try:
            self.runtime.UnloadNetwork(self.net_id)
        except Exception:
            pass


class Binding:
    """Inputs and outputs of a compiled network bound to NdArrays: configure once, run many.

    Dense NdArrays are used in place (Arm NN reads the inputs' memory and writes the
    outputs' memory on every :meth:`run`, so updating an input NdArray between runs is
    seen). Padded or strided ones are staged through dense buffers: ``staged`` names them,
    ``bytes_per_run`` says how many bytes each run copies, ``bytes_copied`` the total.
    ``outputs=None`` allocates dense output NdArrays (``self.outputs``).
    """

    def __init__(self, compiled: CompiledNetwork, inputs, outputs, allow_copy: bool):
        ann = load()
        self.compiled = compiled
        if len(inputs) != len(compiled.input_infos):
            raise InvalidLayoutError(f"got {len(inputs)} inputs, the network has {len(compiled.input_infos)}")
        net = compiled.network
        if outputs is None:
            outputs = [NdArray.empty(n.shape, n.dtype) for n in net.outputs]
        if len(outputs) != len(compiled.output_infos):
            raise InvalidLayoutError(f"got {len(outputs)} outputs, the network has {len(compiled.output_infos)}")
        self.inputs = [_as_ndarray(a, f"input {i}") for i, a in enumerate(inputs)]
        self.outputs = [_as_ndarray(a, f"output {i}") for i, a in enumerate(outputs)]
        for role, arrays, nodes in (("input", self.inputs, net.inputs), ("output", self.outputs, net.outputs)):
            for i, (a, node) in enumerate(zip(arrays, nodes)):
                if a.shape != node.shape or a.dtype != node.dtype:
                    raise InvalidLayoutError(
                        f"{role} {i} is {a.dtype.name}{list(a.shape)}, the network's {role} {node.name!r} is "
                        f"{node.dtype.name}{list(node.shape)}")
        for i, a in enumerate(self.outputs):
            if a.readonly:
                raise InvalidLayoutError(f"output {i} is read-only: {a!r}")
        self._in = [_Staged(a, f"input {i}", allow_copy) for i, a in enumerate(self.inputs)]
        self._out = [_Staged(a, f"output {i}", allow_copy) for i, a in enumerate(self.outputs)]
        self.staged = tuple(s.role for s in self._in + self._out if not s.in_place)
        self.bytes_per_run = sum(s.nbytes for s in self._in + self._out if not s.in_place)
        self.bytes_copied = 0
        self.copies = 0
        if self.staged:
            warnings.warn(ArmnnCopyWarning(
                f"Arm NN tensors are dense: copying {self.bytes_per_run} bytes per run for "
                + "; ".join(f"{s.role} ({s.reason})" for s in self._in + self._out if not s.in_place)),
                stacklevel=3)
        self._input_tensors = []
        for (binding, info), s in zip(compiled.input_infos, self._in):
            if hasattr(info, "SetConstant"):
                info.SetConstant(True)  # 23.08: ConstTensor refuses non-constant infos
            # a view: pyarmnn marks what it is given read-only, the staging copy writes s.dense
            self._input_tensors.append((binding, ann.ConstTensor(info, s.dense.view())))
        self._output_tensors = [(binding, _output_tensor(ann, info, s.dense))
                                for (binding, info), s in zip(compiled.output_infos, self._out)]

    def run(self) -> List[NdArray]:
        for s in self._in:
            if not s.in_place:
                s.dense[...] = s.array.numpy()
                self._count(s.nbytes)
        try:
            self.compiled.runtime.EnqueueWorkload(self.compiled.net_id, self._input_tensors, self._output_tensors)
        except Exception as e:
            raise ArmnnError(f"EnqueueWorkload failed: {' '.join(str(e).split())}") from None
        for s in self._out:
            if not s.in_place:
                s.array.numpy()[...] = s.dense
                self._count(s.nbytes)
        return self.outputs

    def _count(self, nbytes: int) -> None:
        self.copies += 1
        self.bytes_copied += nbytes
        _count(nbytes)


def _output_tensor(ann, info, memory: np.ndarray):
    """An Arm NN Tensor that writes into ``memory`` (dense, writable, exactly the info's size).

    pyarmnn's own ``Tensor(info)`` always allocates its own memory; its SWIG base class takes
    (info, writable buffer), which is what is used here, with the memory kept alive by the
    returned object.
    """
    from pyarmnn._generated.pyarmnn import Tensor as SwigTensor  # noqa: PLC0415

    if memory.nbytes != info.GetNumBytes():
        raise InvalidLayoutError(f"output buffer has {memory.nbytes} bytes, Arm NN expects {info.GetNumBytes()}")
    t = SwigTensor(info, memory)
    try:
        t._ndarray_memory = memory  # keep-alive (the Binding holds it too): Arm NN writes here
    except AttributeError:
        pass
    return t


__all__ = [
    "ArmnnCopyWarning", "ArmnnError", "ArmnnUnavailableError", "Binding", "CompiledNetwork", "CopyStats",
    "Network", "Node", "PyArmnnDeprecationWarning", "armnn_available", "armnn_version", "const_tensor",
    "copy_stats", "data_type_name", "dense_view", "describe", "descriptor_from_tensor_info",
    "format_tensor_info", "import_notes", "load", "release", "tensor_info", "to_ndarray",
]
