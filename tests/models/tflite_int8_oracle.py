"""TFLite's arithmetic on a .tflite file itself: the oracle of the ACL model tests that does
not share the bridge's reader, lowering, plan or plan cache (issue 41).

The file is read with the ``tflite`` flatbuffer package (not ``acl_bridge``'s reader), each
operator of the subgraph is run in the file's order on the file's own tensors, buffers,
quantization and options, with TFLite's integer primitives of
:mod:`acl_bridge.models.fallback.int8_reference` (per-operator arithmetic written from TFLite's
documented algorithms and checked bit for bit against TFLite's reference kernels on the host:
``tests/models/test_int8_reference.py``, ``test_int8_models.py``); float32 operators in
float64 numpy. What a plan would decide (padding amounts, views, folded constants, which
operator becomes which step, what is fused) is worked out here again from TFLite's own rules.

Under QEMU TFLite's interpreter (ai-edge-litert 2.x) dies loading these models, so this is the
oracle of the emulated tests; on the host ``tests/models/test_tflite_int8_oracle.py`` holds it
to TFLite's interpreter (reference kernels) bit for bit on every published int8 model.
Only the operators of the published int8 models and the one-operator MEAN models are here;
another raises ``NotImplementedError`` naming it."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

import numpy as np
import tflite

from acl_bridge.models.fallback import int8_reference as q8

_DTYPES = {tflite.TensorType.FLOAT32: np.float32, tflite.TensorType.INT8: np.int8,
           tflite.TensorType.UINT8: np.uint8, tflite.TensorType.INT32: np.int32,
           tflite.TensorType.INT64: np.int64, tflite.TensorType.INT16: np.int16}
_OPCODES = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
_OPTIONS = {"CONV_2D": tflite.Conv2DOptions, "DEPTHWISE_CONV_2D": tflite.DepthwiseConv2DOptions,
            "AVERAGE_POOL_2D": tflite.Pool2DOptions, "MAX_POOL_2D": tflite.Pool2DOptions,
            "FULLY_CONNECTED": tflite.FullyConnectedOptions, "ADD": tflite.AddOptions,
            "SOFTMAX": tflite.SoftmaxOptions, "MEAN": tflite.ReducerOptions, "RESHAPE": tflite.ReshapeOptions}
# fused activation -> (int8_reference activation name, a, b) and its float clamp
_ACT = {tflite.ActivationFunctionType.NONE: (None, 0.0, 0.0),
        tflite.ActivationFunctionType.RELU: ("relu", 0.0, 0.0),
        tflite.ActivationFunctionType.RELU6: ("bounded_relu", 6.0, 0.0),
        tflite.ActivationFunctionType.RELU_N1_TO_1: ("lu_bounded_relu", 1.0, -1.0)}
_FLOAT_CLAMP = {None: (-np.inf, np.inf), "relu": (0.0, np.inf), "bounded_relu": (0.0, 6.0),
                "lu_bounded_relu": (-1.0, 1.0)}


class Int8Oracle:
    """``Int8Oracle(path_or_bytes).run(x)``: {output tensor name: array} as TFLite computes it;
    ``run_tensors(x)``: every tensor by index."""

    def __init__(self, model):
        data = bytes(model) if isinstance(model, (bytes, bytearray, memoryview)) else open(model, "rb").read()
        self._m = tflite.Model.GetRootAsModel(data, 0)
        if self._m.SubgraphsLength() != 1:
            raise NotImplementedError("one subgraph only")
        self._g = self._m.Subgraphs(0)
        self.inputs = [int(i) for i in self._g.InputsAsNumpy()]
        self.outputs = [int(i) for i in self._g.OutputsAsNumpy()]

    # -- the file's tensors -------------------------------------------------------------
    def name(self, t: int) -> str:
        return self._g.Tensors(t).Name().decode()

    def shape(self, t: int) -> Tuple[int, ...]:
        return tuple(int(d) for d in self._g.Tensors(t).ShapeAsNumpy())

    def dtype(self, t: int):
        return np.dtype(_DTYPES[self._g.Tensors(t).Type()])

    def quantization(self, t: int):
        """(scale, zero point) per tensor, ((scales...), zero point) per channel, or None."""
        q = self._g.Tensors(t).Quantization()
        if q is None or q.ScaleLength() == 0:
            return None
        scale, zp = q.ScaleAsNumpy(), q.ZeroPointAsNumpy()
        if len(scale) == 1:
            return float(scale[0]), int(zp[0])
        assert not np.any(zp), "per-channel zero points are 0 in TFLite's int8 scheme"
        return tuple(float(s) for s in scale), 0

    def constant(self, t: int):
        buf = self._m.Buffers(self._g.Tensors(t).Buffer())
        if buf is None or buf.DataLength() == 0:
            return None
        return np.frombuffer(buf.DataAsNumpy().tobytes(), self.dtype(t)).reshape(self.shape(t))

    # -- running -------------------------------------------------------------------------
    def run(self, x: np.ndarray) -> Dict[str, np.ndarray]:
        v = self.run_tensors(x)
        return {self.name(t): v[t] for t in self.outputs}

    def run_tensors(self, x: np.ndarray, replace: Optional[Dict[int, np.ndarray]] = None) -> Dict[int, np.ndarray]:
        """Every tensor by index; ``replace``: {tensor: values} used in place of what the
        oracle computes for those tensors (another runtime's intermediates, a perturbation)."""
        (i,), x = self.inputs, np.asarray(x)
        if x.dtype != self.dtype(i) or x.shape != self.shape(i):
            raise ValueError(f"input {x.dtype}{x.shape}, the model wants {self.dtype(i)}{self.shape(i)}")
        v: Dict[int, np.ndarray] = {i: x}
        for k in range(self._g.OperatorsLength()):
            op = self._g.Operators(k)
            code = self._m.OperatorCodes(op.OpcodeIndex())
            opcode = _OPCODES[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
            ins = [int(t) for t in op.InputsAsNumpy()]
            (out,) = [int(t) for t in op.OutputsAsNumpy()]
            opts = None
            if opcode in _OPTIONS and op.BuiltinOptions() is not None:
                opts = _OPTIONS[opcode]()
                opts.Init(op.BuiltinOptions().Bytes, op.BuiltinOptions().Pos)
            get = getattr(self, "_" + opcode.lower(), None)
            if get is None:
                raise NotImplementedError(f"operator #{k} {opcode}: not in the oracle")
            args = [None if t < 0 else (v[t] if t in v else self.constant(t)) for t in ins]
            y = np.asarray(get(args, ins, out, opts))
            assert y.shape == self.shape(out), (opcode, y.shape, self.shape(out))
            v[out] = y.astype(self.dtype(out))
            if replace and out in replace:
                v[out] = np.asarray(replace[out]).astype(self.dtype(out)).reshape(self.shape(out))
        return v

    # -- helpers ---------------------------------------------------------------------------
    def _clamp(self, act, out):
        name, a, b = _ACT[act]
        q = self.quantization(out)
        if q is None:
            return _FLOAT_CLAMP[name]
        return q8.activation_range(name, a, b, q[0], q[1], self.dtype(out))

    @staticmethod
    def _padding(padding, size, kernel, stride, dilation=(1, 1)):
        """TFLite's padding (top, bottom, left, right): SAME puts the odd one after."""
        if padding == tflite.Padding.VALID:
            return (0, 0, 0, 0)
        pads = []
        for n, k, s, d in zip(size, kernel, stride, dilation):
            out = -(-n // s)
            total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
            pads += [total // 2, total - total // 2]
        return tuple(pads)

    @staticmethod
    def _windows(x, kernel, stride, padding, fill):
        top, bottom, left, right = padding
        xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=fill)
        win = np.lib.stride_tricks.sliding_window_view(xp, tuple(kernel), axis=(1, 2))
        return win[:, ::stride[0], ::stride[1]]

    # -- operators ---------------------------------------------------------------------------
    def _conv(self, args, ins, out, o, depthwise):
        x, w, bias = args + [None] * (3 - len(args))
        assert (o.DilationHFactor(), o.DilationWFactor()) == (1, 1), "dilation: not in the oracle"
        stride = (o.StrideH(), o.StrideW())
        kernel = w.shape[1:3]
        pad = self._padding(o.Padding(), x.shape[1:3], kernel, stride)
        clamp = self._clamp(o.FusedActivationFunction(), out)
        xq = self.quantization(ins[0])
        if xq is None:
            xf, wf = x.astype(np.float64), w.astype(np.float64)
            win = self._windows(xf, kernel, stride, pad, 0.0)
            if depthwise:
                m = w.shape[3] // x.shape[3]
                acc = np.einsum("nhwcij,ijc->nhwc", np.repeat(win, m, axis=3), wf[0])
            else:
                acc = np.einsum("nhwcij,oijc->nhwo", win, wf)
            if bias is not None:
                acc = acc + bias
            return np.clip(acc, *clamp)
        wq = self.quantization(ins[1])
        return q8.convolution(x, xq, w[0] if depthwise else w, wq, bias, self.quantization(out), self.dtype(out),
                              stride, pad, clamp, depth_multiplier=w.shape[3] // x.shape[3] if depthwise else None)

    def _conv_2d(self, args, ins, out, o):
        return self._conv(args, ins, out, o, depthwise=False)

    def _depthwise_conv_2d(self, args, ins, out, o):
        return self._conv(args, ins, out, o, depthwise=True)

    def _pool(self, args, ins, out, o, kind):
        (x,) = args
        kernel, stride = (o.FilterHeight(), o.FilterWidth()), (o.StrideH(), o.StrideW())
        pad = self._padding(o.Padding(), x.shape[1:3], kernel, stride)
        clamp = self._clamp(o.FusedActivationFunction(), out)
        if self.quantization(ins[0]) is None:
            xf = x.astype(np.float64)
            if kind == "max":
                return np.clip(self._windows(xf, kernel, stride, pad, -np.inf).max(axis=(-2, -1)), *clamp)
            s = self._windows(xf, kernel, stride, pad, 0.0).sum(axis=(-2, -1))
            n = self._windows(np.ones(xf.shape[:3] + (1,)), kernel, stride, pad, 0.0).sum(axis=(-2, -1))
            return np.clip(s / n, *clamp)
        pool = q8.max_pool if kind == "max" else q8.average_pool
        return pool(x, kernel, stride, pad, clamp, self.dtype(out))

    def _average_pool_2d(self, args, ins, out, o):
        return self._pool(args, ins, out, o, "average")

    def _max_pool_2d(self, args, ins, out, o):
        return self._pool(args, ins, out, o, "max")

    def _fully_connected(self, args, ins, out, o):
        x, w, bias = args + [None] * (3 - len(args))
        x2 = x.reshape(-1, w.shape[1])
        clamp = self._clamp(o.FusedActivationFunction(), out)
        xq = self.quantization(ins[0])
        if xq is None:
            y = x2.astype(np.float64) @ w.astype(np.float64).T + (0 if bias is None else bias)
            y = np.clip(y, *clamp)
        else:
            y = q8.fully_connected(x2, xq, w, self.quantization(ins[1]), bias, self.quantization(out),
                                   self.dtype(out), clamp)
        return y.reshape(self.shape(out))

    def _add(self, args, ins, out, o):
        a, b = args
        clamp = self._clamp(o.FusedActivationFunction() if o is not None else 0, out)
        if self.quantization(ins[0]) is None:
            return np.clip(a.astype(np.float64) + b, *clamp)
        return q8.add(a, self.quantization(ins[0]), b, self.quantization(ins[1]), self.quantization(out),
                      self.dtype(out), clamp)

    def _softmax(self, args, ins, out, o):
        (x,) = args
        beta = o.Beta() if o is not None else 1.0
        if self.quantization(ins[0]) is None:
            z = np.exp(beta * (x.astype(np.float64) - x.max(axis=-1, keepdims=True)))
            return z / z.sum(axis=-1, keepdims=True)
        return q8.softmax(x, self.quantization(ins[0]), beta, self.quantization(out), self.dtype(out))

    def _reshape(self, args, ins, out, o):
        return np.asarray(args[0]).reshape(self.shape(out))

    def _quantize(self, args, ins, out, o):
        (x,) = args
        xq, yq = self.quantization(ins[0]), self.quantization(out)
        return q8.quantize(x, yq, self.dtype(out)) if xq is None else q8.requantize(x, xq, yq, self.dtype(out))

    def _dequantize(self, args, ins, out, o):
        return q8.dequantize(args[0], self.quantization(ins[0]))

    def _mean(self, args, ins, out, o):
        x, axes = args
        keep = bool(o.KeepDims()) if o is not None else False
        axes = tuple(sorted(int(a) % x.ndim for a in np.atleast_1d(axes)))
        xq = self.quantization(ins[0])
        if xq is None:
            y = x.astype(np.float64).mean(axis=axes, keepdims=True)
        else:
            y = q8.mean(x, axes, xq, self.quantization(out), self.dtype(out))
        assert keep or len(self.shape(out)) == x.ndim - len(axes)
        return y.reshape(self.shape(out))
