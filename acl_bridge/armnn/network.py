"""Arm NN networks described in Python (no model file), compiled and bound to NdArrays."""

from __future__ import annotations

import logging
import warnings
import weakref
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ndarray import InvalidLayoutError, NdArray, ShapeDescriptor
from ndarray.errors import ReadOnlyError

from ..layout import window_kernel, window_padding, window_stride
from .loader import ArmnnCopyWarning, ArmnnError, _legacy_weights_api, load
from .tensors import (ArrayLike, Quantization, _as_ndarray, _count, _shape_of, _Staged, armnn_tensor_info,
                      const_tensor, format_tensor_info)

_LOG = logging.getLogger(__name__)


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
        info = armnn_tensor_info(ShapeDescriptor.create(_shape_of(shape), dtype), quantization)
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
        layer.GetOutputSlot(0).SetTensorInfo(armnn_tensor_info(nd, constant=True))
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
               name: Optional[str] = None, quantization: Quantization = None) -> Node:
        """NCHW convolution (cross-correlation): weights (O, I, KH, KW), bias (O,). The output
        has the input's dtype; a quantized input needs the output's ``quantization``."""
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
        return self._finish(layer, out, what, name, x.dtype, _output_quantization(x, quantization, name))

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
                        name: Optional[str] = None, quantization: Quantization = None) -> Node:
        """y = x @ weights.T + bias; x (N, in), weights (out, in), bias (out,). The output has
        the input's dtype; a quantized input needs the output's ``quantization``."""
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
        return self._finish(layer, (x.shape[0], w.shape[0]), f"fully connected {w.shape[1]}->{w.shape[0]}", name,
                            x.dtype, _output_quantization(x, quantization, name))

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
        self._finalizer = weakref.finalize(self, _unload, runtime, net_id)

    def bind(self, inputs: Sequence[ArrayLike], outputs: Optional[Sequence[ArrayLike]] = None, *,
             allow_copy: bool = True) -> "Binding":
        """Configure once: Arm NN tensors over these NdArrays (see :class:`Binding`)."""
        return Binding(self, inputs, outputs, allow_copy)

    def run(self, inputs: Sequence[ArrayLike], outputs: Optional[Sequence[ArrayLike]] = None, *,
            allow_copy: bool = True) -> List[NdArray]:
        """One inference; returns the output NdArrays."""
        return self.bind(inputs, outputs, allow_copy=allow_copy).run()

    def close(self) -> None:
        """Unload the network from its runtime now (idempotent); ArmnnError if Arm NN refuses."""
        if self._finalizer.detach() is not None:
            try:
                self.runtime.UnloadNetwork(self.net_id)
            except Exception as e:
                raise ArmnnError(f"UnloadNetwork({self.net_id}) failed: {' '.join(str(e).split())}") from None


def _output_quantization(x: Node, quantization: Quantization, name: str) -> Quantization:
    if x.quantization is not None and quantization is None:
        raise InvalidLayoutError(f"{name}: the input is quantized {x.quantization}, so the output needs "
                                 f"quantization=(scale, offset) too")
    return quantization


def _unload(runtime, net_id) -> None:
    """Finalizer of a CompiledNetwork that was not closed: a failure is logged, not hidden."""
    try:
        runtime.UnloadNetwork(net_id)
    except Exception as e:  # no caller to raise to at garbage collection
        _LOG.warning("Arm NN UnloadNetwork(%s) failed during garbage collection: %s", net_id, e)


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
                raise ReadOnlyError(f"output {i} is read-only: {a!r}")
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
