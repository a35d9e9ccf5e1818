"""ACL NEON functions over NdArrays: configure once, run many times on the same buffers.

Every function follows one path (:class:`AclFunction`):

1. describe each NdArray for ACL (``tensor_info``: strides, offset, total size);
2. padding negotiation: ask ACL which padding the function needs for these shapes
   (configure on throw-away *resizable* infos, read ``info->padding()``:
   :func:`required_padding`);
3. a tensor is used in place when ACL can address it (``tensor_info`` succeeds; dimensions
   from z up are dense, since ACL kernels collapse them) and either no padding is needed or
   the buffer has ACL's own padded layout with at least that padding (it is then declared
   to ACL, which reads it from ``padding()``);
4. probe: the function is configured again on scratch memory with exactly these layouts,
   and once more on dense buffers, both filled with the same values and run once;
   ``writes_outside[role]`` records whether ACL wrote any byte that is not an element
   (20.08's border filling, vector stores past a row end): such a buffer is staged too,
   unless ``allow_padding_writes=True`` (then ACL may write into its padding);
   ``layout_ok`` records whether the results equal the dense run's: when not (a kernel
   ignores strides or padding, e.g. 20.08's 1x1 NHWC convolution), every non-dense buffer
   is staged;
5. every other tensor is *staged*: an ACL-padded NdArray is allocated, inputs are copied in
   before each run and outputs copied back after. Staging is never silent: it warns
   (:class:`AclCopyFallbackWarning`) at configure time, ``staged`` names the tensors and
   ``copy_count`` counts the copies; ``allow_copy=False`` makes it an error instead;
6. ``validate()`` then ``configure()`` on non-resizable imported infos, then
   ``import_memory`` of every buffer; ``run()`` releases the GIL (cffi API mode).

Use :meth:`AclFunction.required_padding` (or the ``padding`` attribute of a configured
function) to allocate NdArrays with exactly the padding ACL wants, so runs copy nothing.
"""

from __future__ import annotations

import threading
import warnings
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ndarray import InvalidLayoutError, NdArray, NotRepresentableError, ShapeDescriptor

from .mapping import PaddingSize, padded_descriptor, tensor_info
from .native import AclError, AclStatusError, check, require_native
from .tensor import AclTensor, acl_layout_padding, alignment_problem, backend_code, native_desc

# Kind codes, activation codes and policies (values of native/acl_shim.h).
KIND = {
    "activation": 1, "add": 2, "sub": 3, "mul": 4, "pooling": 5, "convolution": 6, "depthwise": 7,
    "fully_connected": 8, "gemm": 9, "softmax": 10, "permute": 11, "copy": 12, "pad": 13, "fill": 14,
    "cast": 15, "quantize": 16, "dequantize": 17, "log_softmax": 18,
}
ACTIVATIONS = {
    None: -1, "none": -1, "relu": 0, "bounded_relu": 1, "lu_bounded_relu": 2, "leaky_relu": 3,
    "logistic": 4, "tanh": 5, "soft_relu": 6, "elu": 7, "abs": 8, "square": 9, "sqrt": 10,
    "linear": 11, "identity": 12, "hard_swish": 13, "swish": 14, "gelu": 15,
}
POLICIES = {"wrap": 0, "saturate": 1}
ROUNDING = {"to_zero": 0, "to_nearest_up": 1, "to_nearest_even": 2}
POOL_TYPES = {"max": 0, "avg": 1, "l2": 2}
PAD_MODES = {"constant": 0, "reflect": 1, "symmetric": 2}

# Process-wide count of fallback copies (every function also counts its own).
_TOTAL_COPIES = [0]


def total_copy_count() -> int:
    """Buffer copies made by the copy fallback in this process, all functions together."""
    return _TOTAL_COPIES[0]


class AclCopyFallbackWarning(UserWarning):
    """A function had to stage a tensor through an ACL-padded copy."""


def _lookup(table: Dict, key, what: str) -> int:
    if key not in table:
        raise InvalidLayoutError(f"{what} is {key!r}, expected one of {sorted(k for k in table if k)}")
    return table[key]


def _shape_info(shape, dtype, data_layout, quantization):
    """AclTensorInfo of a dense array of this shape (for negotiation: only shape/type count)."""
    return tensor_info(ShapeDescriptor.create(tuple(shape), dtype), data_layout, quantization)


def required_padding(kind: str, params, specs: Sequence[Optional[Tuple]], backend: int = 0) -> Tuple[PaddingSize, ...]:
    """Padding ACL asks for, per tensor, for function ``kind`` on tensors of these specs.

    ``specs``: per tensor (shape, dtype, data_layout, quantization) or None (absent);
    ``backend``: ABI code (:func:`acl_bridge.tensor.backend_code`).
    """
    ffi, lib = require_native()
    descs = [None if s is None else native_desc(_shape_info(*s), backend=backend) for s in specs]
    arr = ffi.new("acl_shim_tensor_desc *[]", [ffi.NULL if d is None else d for d in descs])
    out = ffi.new("acl_shim_padding[]", len(specs))
    check(lib.acl_shim_required_padding(KIND[kind], params, arr, len(specs), out), f"{kind}: required_padding")
    return tuple(PaddingSize(p.top, p.right, p.bottom, p.left) for p in out)


def _collapse_unsafe(info) -> Optional[str]:
    """Why ACL kernels would mis-address this layout, or None.

    Measured on ACL 20.08: kernels collapse the dimensions from z (ACL dimension 2) upwards
    into one (Window::collapse_if_possible) and step through them with the stride of the
    first, so they silently compute on the wrong memory unless those dimensions are dense
    on top of each other. ACL's own padded layout (padding around x and y only) satisfies
    this; a view with gaps between batches or channels does not, and is staged.
    """
    shape, strides = info.tensor_shape, info.strides_in_bytes
    for k in range(3, len(shape)):
        if shape[k] > 1 and strides[k] != strides[k - 1] * shape[k - 1]:
            return (f"ACL dimension {k} has stride {strides[k]} bytes, expected {strides[k - 1] * shape[k - 1]} "
                    f"(dense over dimension {k - 1}): ACL kernels collapse dimensions >= 2: {info!r}")
    if len(shape) >= 3 and shape[2] > 1 and strides[2] % strides[1]:
        return (f"ACL dimension 2 has stride {strides[2]} bytes, not a whole number of rows of "
                f"{strides[1]} bytes: {info!r}")
    return None


def default_params():
    ffi, _ = require_native()
    p = ffi.new("acl_shim_params *")
    p.activation = -1
    p.scale = 1.0
    p.alpha = 1.0
    p.beta = 1.0
    p.stride_x = p.stride_y = 1
    p.depth_multiplier = 1
    p.transpose_weights = 1
    p.convert_policy = POLICIES["saturate"]
    p.rounding_policy = ROUNDING["to_zero"]
    return p


def _is_dense(a: NdArray) -> bool:
    d = a.descriptor
    return d.offset == 0 and d.is_contiguous("c") and d.alloc_size == d.size


_TooHardError = getattr(np, "exceptions", np).TooHardError  # numpy >= 1.25 moved it

# Kinds whose kernels are element-wise, so an output identical to an input is safe.
IN_PLACE_KINDS = frozenset({"activation", "add", "sub", "mul", "copy"})


def _shares_memory(a: NdArray, b: NdArray) -> bool:
    """Whether two NdArrays have an element address in common (numpy's exact test; a
    problem too hard to solve exactly counts as overlapping)."""
    try:
        return bool(np.shares_memory(a.numpy(), b.numpy()))
    except _TooHardError:
        return True


def _check_array(a, role: str) -> NdArray:
    if isinstance(a, np.ndarray):
        a = NdArray.from_numpy(a)
    if not isinstance(a, NdArray):
        raise InvalidLayoutError(f"{role} must be an NdArray or numpy array, got {type(a).__name__}")
    return a


class AclFunction:
    """Base: one ACL function configured once on fixed buffers, run many times.

    Subclasses set ``kind``, ``roles`` (tensor order of native/acl_shim.h) and
    ``outputs`` (roles ACL writes), and fill the native params.
    """

    kind: str = ""
    roles: Tuple[str, ...] = ()
    outputs: Tuple[str, ...] = ()

    def __init__(self, arrays: Sequence[Optional[NdArray]], params, *, data_layout: str = "NCHW",
                 quantization: Optional[Dict[str, Tuple[float, int]]] = None, allow_copy: bool = True,
                 allow_padding_writes: bool = False, backend: str = "neon", _negotiate_only: bool = False):
        ffi, lib = require_native()
        self.backend = backend
        self._backend_code = backend_code(backend)
        self._params = params
        self._handle = None
        self._lock = threading.Lock()  # one run (copy-in, native run, copy-out) at a time
        self.arrays: Dict[str, Optional[NdArray]] = {}
        self._acl_arrays: Dict[str, Optional[NdArray]] = {}
        self.tensors: Dict[str, Optional[AclTensor]] = {}
        self.data_layout = data_layout
        quantization = dict(quantization or {})
        self._quant = {role: quantization.get(role) for role in self.roles}
        if _negotiate_only:  # shapes and dtypes only (NdArray, ShapeDescriptor or numpy array)
            specs = [None if a is None else (tuple(a.shape) or (1,), a.dtype, data_layout, self._quant[role])
                     for role, a in zip(self.roles, arrays)]
            self.padding = dict(zip(self.roles, required_padding(self.kind, params, specs, self._backend_code)))
            return
        # the caller's objects too: a numpy array passed in stays alive itself, not only its memory
        self._sources = [a for a in arrays if a is not None]
        for role, a in zip(self.roles, arrays):
            self.arrays[role] = None if a is None else _check_array(a, role)
        for role in self.outputs:
            a = self.arrays[role]
            if a is not None and a.readonly:
                raise InvalidLayoutError(f"{role} is written by {self.kind} but is read-only: {a!r}")
        self._check_aliasing()
        specs = [None if a is None else (a.shape or (1,), a.dtype, data_layout, self._quant[role])
                 for role, a in self.arrays.items()]
        # 2. padding negotiation
        self.padding: Dict[str, PaddingSize] = dict(
            zip(self.roles, required_padding(self.kind, params, specs, self._backend_code)))
        # 3. in place, or staged through an ACL-padded copy
        self.staged: Tuple[str, ...] = ()
        self.copy_count = 0
        self.renegotiated = False  # True: validate() wanted more padding than negotiated
        reasons = {}
        for role, a in self.arrays.items():
            reason = None if a is None else self._needs_staging(role, a)
            if reason is not None:
                reasons[role] = reason
        for role, a in self.arrays.items():
            self._acl_arrays[role] = a
            if a is not None and role in reasons:
                self._stage(role, reasons[role], allow_copy)
        try:
            self._probe_and_configure(params, reasons, allow_copy, allow_padding_writes)
        except AclStatusError as e:
            # Seen on 20.08 (NHWC depthwise with depth_multiplier > 1): validate() on the
            # final, non-resizable infos wants padding the resizable negotiation did not
            # report. Retry once with every tensor staged in ACL's auto-padded layout.
            if "Insufficient Padding" not in str(e) or not allow_copy:
                raise
            auto = PaddingSize(top=4, right=36, bottom=4, left=4)
            self.renegotiated = True
            self.padding = {r: p.union(auto) for r, p in self.padding.items()}
            for role, a in self.arrays.items():
                if a is not None:
                    reasons.setdefault(role, f"ACL asked for more padding than negotiated ({e.message}); "
                                             f"staged with ACL's auto padding")
                    self._stage(role, reasons[role], allow_copy)
            self._probe_and_configure(params, reasons, allow_copy, allow_padding_writes)

    def _probe_and_configure(self, params, reasons, allow_copy, allow_padding_writes):
        ffi, lib = require_native()
        data_layout = self.data_layout
        # 4. probe these exact layouts on scratch memory: does ACL write outside the elements
        #    (border fill, vector stores past a row end), and does it compute the same as on
        #    dense buffers (some kernels ignore strides, e.g. 20.08's 1x1 NHWC convolution)?
        self.writes_outside: Dict[str, bool] = {}
        self.layout_ok = True
        if len(self.staged) < sum(a is not None for a in self.arrays.values()):
            descs = {role: None if a is None else native_desc(*self._desc_parts(role, a), self._backend_code)
                     for role, a in self._acl_arrays.items()}
            flags = ffi.new("int32_t[]", len(descs))
            same = ffi.new("int32_t *")
            arr = ffi.new("acl_shim_tensor_desc *[]", [ffi.NULL if d is None else d for d in descs.values()])
            check(lib.acl_shim_probe(KIND[self.kind], params, arr, len(descs), flags, same), f"{self.kind}: probe")
            self.layout_ok = bool(same[0])
            for role, flag in zip(descs, flags):
                self.writes_outside[role] = bool(flag)
                if role in self.staged or self.arrays[role] is None:
                    continue
                if flag and not allow_padding_writes:
                    reasons[role] = ("ACL writes outside the elements of this buffer (padding or gaps); "
                                     "pass allow_padding_writes=True to let it")
                elif not self.layout_ok and not _is_dense(self.arrays[role]):
                    reasons[role] = ("ACL computes a different result on this layout than on a dense "
                                     "buffer (a kernel ignores its strides or padding)")
                else:
                    continue
                self._stage(role, reasons[role], allow_copy)
        if reasons:
            warnings.warn(AclCopyFallbackWarning(
                f"{self.kind}: copying through ACL-padded buffers on every run: "
                + "; ".join(f"{r}: {m}" for r, m in reasons.items())), stacklevel=3)
        # 5. native tensors (ffi.gc'd at creation), validate + configure, then import memory
        self.tensors = {
            role: None if a is None else AclTensor(a, data_layout, self._quant[role], backend=self.backend)
            for role, a in self._acl_arrays.items()
        }
        handles = ffi.new("acl_shim_tensor *[]", [ffi.NULL if t is None else t.handle for t in self.tensors.values()])
        out = ffi.new("acl_shim_function **")
        check(lib.acl_shim_function_create(KIND[self.kind], params, handles, len(handles), out), self.kind)
        self._handle = ffi.gc(out[0], lib.acl_shim_function_destroy)
        for t in self.tensors.values():
            if t is not None:
                t.import_memory()

    def _check_aliasing(self) -> None:
        """Refuse an output that shares memory with another tensor of the call.

        ACL kernels read and write in their own order, so overlap gives silently wrong
        results (measured on 20.08 for copy, softmax and pooling). The exception is the
        classic in-place element-wise call, where output and input are the very same layout.
        """
        for out in self.outputs:
            a = self.arrays[out]
            if a is None or a.descriptor.size == 0:
                continue
            for role, b in self.arrays.items():
                if role == out or b is None or b.descriptor.size == 0:
                    continue
                in_place = (self.kind in IN_PLACE_KINDS and a.data_ptr == b.data_ptr
                            and a.descriptor.shape == b.descriptor.shape
                            and a.descriptor.strides == b.descriptor.strides)
                if not in_place and _shares_memory(a, b):
                    raise InvalidLayoutError(
                        f"{out} overlaps {role} in memory; {self.kind} does not support in-place operation "
                        f"(only {sorted(IN_PLACE_KINDS)} accept an output identical to an input): {a!r}, {b!r}")

    def _stage(self, role: str, reason: str, allow_copy: bool) -> None:
        """Use an ACL-padded buffer of ACL's own for ``role``, copied in/out on every run."""
        a = self.arrays[role]
        if not allow_copy:
            raise NotRepresentableError(f"{self.kind}: {role} cannot be used in place ({reason}) and allow_copy=False")
        pad = self.padding[role]
        if len(a.shape) < 2:  # a 1-D tensor has no y axis to pad
            pad = PaddingSize(right=pad.right, left=pad.left)
        d = padded_descriptor(a.shape or (1,), a.dtype, pad)
        self._acl_arrays[role] = NdArray.allocate(d)
        self.staged = tuple(r for r in self.roles if r in self.staged or r == role)

    def _desc_parts(self, role, a):
        info = tensor_info(a, self.data_layout, self._quant[role])
        return info, acl_layout_padding(a, info)

    @classmethod
    def required_padding(cls, *args, **kwargs) -> Dict[str, PaddingSize]:
        """Padding ACL needs per tensor role for this function on these shapes: same arguments
        as the constructor, but arrays may be ShapeDescriptors (only shape and dtype count).
        Allocate with :meth:`padded_empty` and the run copies nothing."""
        return cls(*args, _negotiate_only=True, **kwargs).padding

    def _needs_staging(self, role: str, a: NdArray) -> Optional[str]:
        """None when ACL can use ``a`` in place, else why not."""
        misaligned = alignment_problem(a)
        if misaligned is not None:
            return misaligned
        try:
            info = tensor_info(a, self.data_layout, self._quant[role])
        except NotRepresentableError as e:
            return str(e)
        reason = _collapse_unsafe(info)
        if reason is not None:
            return reason
        need = self.padding[role]
        if not any(need.as_tuple()):
            return None
        declared = acl_layout_padding(a, info)
        if declared is None:
            return (f"ACL needs padding {need!r} and this buffer is not laid out as ACL pads tensors "
                    f"(padding around x and y, dense above): {info!r}")
        if not declared.covers(need):
            return f"ACL needs padding {need!r}, the buffer has {declared!r}"
        return None

    @classmethod
    def padded_empty(cls, shape, dtype, padding: PaddingSize) -> NdArray:
        """A fresh NdArray with exactly ``padding`` around its x-y plane (C order)."""
        d = padded_descriptor(tuple(shape), dtype, padding)
        return NdArray.allocate(d)

    @property
    def closed(self) -> bool:
        return self._handle is None

    def run(self) -> "AclFunction":
        """Run the configured function (GIL released during the native call). Runs of one
        function object are serialised; different objects run concurrently."""
        _, lib = require_native()
        with self._lock:
            if self._handle is None:
                raise AclError("function is closed", what=self.kind)
            for role in self.staged:
                if role not in self.outputs or role in self.inputs_too():
                    self._acl_arrays[role].numpy()[...] = self.arrays[role].numpy()
                    self._count()
            check(lib.acl_shim_function_run(self._handle), f"{self.kind}: run")
            for role in self.staged:
                if role in self.outputs:
                    self.arrays[role].numpy()[...] = self._acl_arrays[role].numpy()
                    self._count()
        return self

    def inputs_too(self) -> Tuple[str, ...]:
        """Outputs whose previous contents ACL also reads (none by default)."""
        return ()

    def _count(self) -> None:
        self.copy_count += 1
        _TOTAL_COPIES[0] += 1

    def close(self) -> None:
        """Release the native function and tensors and the references to the buffers now
        (waits for a run in progress; idempotent)."""
        with self._lock:
            if self._handle is not None:
                ffi, _ = require_native()
                ffi.release(self._handle)
                self._handle = None
            for t in self.tensors.values():
                if t is not None:
                    t.close()
            self.tensors = {}
            self._sources = []
            self.arrays = {}
            self._acl_arrays = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __call__(self):
        return self.run()

    def __repr__(self) -> str:
        staged = f", staged={self.staged}, copies={self.copy_count}" if self.staged else ""
        return f"{type(self).__name__}({', '.join(f'{r}={a!r}' for r, a in self.arrays.items())}{staged})"


# ---------------------------------------------------------------------------- functions
class Activation(AclFunction):
    """dst = f(src). ``function``: relu, bounded_relu (min(a, max(0,x))), lu_bounded_relu
    (min(a, max(b,x))), leaky_relu (a*x for x<0), logistic, tanh (a*tanh(b*x)), soft_relu,
    elu, abs, square, sqrt, linear (a*x+b), identity, hard_swish; swish, gelu (24.11)."""

    kind, roles, outputs = "activation", ("src", "dst"), ("dst",)

    def __init__(self, src, dst, function: str = "relu", a: float = 0.0, b: float = 0.0, **kw):
        p = default_params()
        p.activation = _lookup(ACTIVATIONS, function, "function")
        if p.activation < 0:
            raise InvalidLayoutError("function is 'none', expected an activation function")
        p.act_a, p.act_b = a, b
        super().__init__([src, dst], p, **kw)


class _Elementwise(AclFunction):
    roles, outputs = ("a", "b", "dst"), ("dst",)

    def __init__(self, a, b, dst, policy: str = "saturate", activation: Optional[str] = None,
                 act_a: float = 0.0, act_b: float = 0.0, **kw):
        p = default_params()
        p.convert_policy = _lookup(POLICIES, policy, "policy")
        p.activation = _lookup(ACTIVATIONS, activation, "activation")
        p.act_a, p.act_b = act_a, act_b
        super().__init__([a, b, dst], p, **kw)


class Add(_Elementwise):
    """dst = a + b with numpy-style broadcasting over dimensions of size 1."""

    kind = "add"


class Sub(_Elementwise):
    """dst = a - b with numpy-style broadcasting over dimensions of size 1."""

    kind = "sub"


class Mul(AclFunction):
    """dst = a * b * scale (broadcasting). ACL accepts scale 1/2**n (0 <= n <= 15) or 1/255."""

    kind, roles, outputs = "mul", ("a", "b", "dst"), ("dst",)

    def __init__(self, a, b, dst, scale: float = 1.0, policy: str = "saturate", rounding: str = "to_zero",
                 activation: Optional[str] = None, **kw):
        p = default_params()
        p.scale = scale
        p.convert_policy = _lookup(POLICIES, policy, "policy")
        p.rounding_policy = _lookup(ROUNDING, rounding, "rounding")
        p.activation = _lookup(ACTIVATIONS, activation, "activation")
        super().__init__([a, b, dst], p, **kw)


def _window_params(p, stride, padding):
    """stride (sy, sx); padding (top, bottom, left, right) or an int for all sides."""
    sy, sx = (stride, stride) if isinstance(stride, int) else stride
    if isinstance(padding, int):
        padding = (padding,) * 4
    top, bottom, left, right = padding
    p.stride_x, p.stride_y = sx, sy
    p.pad_top, p.pad_bottom, p.pad_left, p.pad_right = top, bottom, left, right


class Pooling(AclFunction):
    """Max / average / L2 pooling over H and W (NCHW or NHWC numpy shapes)."""

    kind, roles, outputs = "pooling", ("src", "dst"), ("dst",)

    def __init__(self, src, dst, pool_type: str = "max", kernel=(2, 2), stride=(1, 1), padding=0,
                 exclude_padding: bool = True, **kw):
        p = default_params()
        p.pool_type = _lookup(POOL_TYPES, pool_type, "pool_type")
        kh, kw_ = (kernel, kernel) if isinstance(kernel, int) else kernel
        p.kernel_h, p.kernel_w = kh, kw_
        _window_params(p, stride, padding)
        p.exclude_padding = int(bool(exclude_padding))
        super().__init__([src, dst], p, **kw)


class Convolution(AclFunction):
    """2-D convolution (cross-correlation) with optional bias. NCHW: src (N,C,H,W), weights
    (OFM, C, KH, KW); NHWC: src (N,H,W,C), weights (OFM, KH, KW, C); bias (OFM,)."""

    kind, roles, outputs = "convolution", ("src", "weights", "bias", "dst"), ("dst",)

    def __init__(self, src, weights, bias, dst, stride=(1, 1), padding=0, activation: Optional[str] = None,
                 act_a: float = 0.0, act_b: float = 0.0, **kw):
        p = default_params()
        _window_params(p, stride, padding)
        p.activation = _lookup(ACTIVATIONS, activation, "activation")
        p.act_a, p.act_b = act_a, act_b
        super().__init__([src, weights, bias, dst], p, **kw)


class DepthwiseConvolution(AclFunction):
    """Depthwise 2-D convolution. NCHW: src (N,C,H,W), weights (C*M, KH, KW); NHWC: src
    (N,H,W,C), weights (KH, KW, C*M); bias (C*M,); M = depth_multiplier."""

    kind, roles, outputs = "depthwise", ("src", "weights", "bias", "dst"), ("dst",)

    def __init__(self, src, weights, bias, dst, stride=(1, 1), padding=0, depth_multiplier: int = 1,
                 activation: Optional[str] = None, **kw):
        p = default_params()
        _window_params(p, stride, padding)
        p.depth_multiplier = depth_multiplier
        p.activation = _lookup(ACTIVATIONS, activation, "activation")
        super().__init__([src, weights, bias, dst], p, **kw)


class FullyConnected(AclFunction):
    """dst = src @ weights.T + bias; src (batch, in), weights (out, in), bias (out,)."""

    kind, roles, outputs = "fully_connected", ("src", "weights", "bias", "dst"), ("dst",)

    def __init__(self, src, weights, bias, dst, activation: Optional[str] = None, **kw):
        p = default_params()
        p.transpose_weights = 1
        p.activation = _lookup(ACTIVATIONS, activation, "activation")
        super().__init__([src, weights, bias, dst], p, **kw)


class Gemm(AclFunction):
    """dst = alpha * a @ b + beta * c; a (M,K), b (K,N), c (M,N) or (N,) or None."""

    kind, roles, outputs = "gemm", ("a", "b", "c", "dst"), ("dst",)

    def __init__(self, a, b, c, dst, alpha: float = 1.0, beta: float = 1.0, **kw):
        p = default_params()
        p.alpha, p.beta = alpha, beta
        super().__init__([a, b, c, dst], p, **kw)


class Softmax(AclFunction):
    """Softmax over the last numpy axis: dst = exp(beta*x) / sum(exp(beta*x))."""

    kind, roles, outputs = "softmax", ("src", "dst"), ("dst",)

    def __init__(self, src, dst, beta: float = 1.0, log: bool = False, **kw):
        if log:
            self.kind = "log_softmax"
        p = default_params()
        p.beta = beta
        p.axis = 0
        super().__init__([src, dst], p, **kw)


class Permute(AclFunction):
    """dst = np.transpose(src, axes) (numpy axes), e.g. NCHW->NHWC is axes (0, 2, 3, 1)."""

    kind, roles, outputs = "permute", ("src", "dst"), ("dst",)

    def __init__(self, src, dst, axes: Sequence[int], **kw):
        axes = tuple(int(x) for x in axes)
        r = len(axes)
        if sorted(axes) != list(range(r)):
            raise InvalidLayoutError(f"axes is {axes}, expected a permutation of 0..{r - 1}")
        p = default_params()
        p.perm_len = r
        # ACL order: dst dimension i takes src dimension perm[i]; dimension i is numpy's r-1-i.
        for i in range(r):
            p.perm[i] = r - 1 - axes[r - 1 - i]
        super().__init__([src, dst], p, **kw)


class Copy(AclFunction):
    """dst[...] = src."""

    kind, roles, outputs = "copy", ("src", "dst"), ("dst",)

    def __init__(self, src, dst, **kw):
        super().__init__([src, dst], default_params(), **kw)


class Pad(AclFunction):
    """dst = np.pad(src, pad_width, mode) with pad_width ((before, after), ...) in numpy order."""

    kind, roles, outputs = "pad", ("src", "dst"), ("dst",)

    def __init__(self, src, dst, pad_width, constant_value: float = 0.0, mode: str = "constant", **kw):
        pad_width = [tuple(int(v) for v in pw) for pw in pad_width]
        p = default_params()
        p.pad_len = len(pad_width)
        for i, (before, after) in enumerate(reversed(pad_width)):
            p.pad_before[i], p.pad_after[i] = before, after
        p.pad_mode = _lookup(PAD_MODES, mode, "mode")
        p.constant_value = constant_value
        super().__init__([src, dst], p, **kw)


class Fill(AclFunction):
    """dst[...] = value (for quantized tensors: the stored integer)."""

    kind, roles, outputs = "fill", ("dst",), ("dst",)

    def __init__(self, dst, value: float, **kw):
        p = default_params()
        p.constant_value = value
        super().__init__([dst], p, **kw)


class Cast(AclFunction):
    """Data type conversion (NEDepthConvertLayer), e.g. uint8 -> float32, float32 -> float16."""

    kind, roles, outputs = "cast", ("src", "dst"), ("dst",)

    def __init__(self, src, dst, policy: str = "saturate", **kw):
        p = default_params()
        p.convert_policy = _lookup(POLICIES, policy, "policy")
        super().__init__([src, dst], p, **kw)


class Quantize(AclFunction):
    """dst = clip(round(src / scale) + offset) into uint8 (QASYMM8) or int8 (QASYMM8_SIGNED)."""

    kind, roles, outputs = "quantize", ("src", "dst"), ("dst",)

    def __init__(self, src, dst, scale: float, offset: int, **kw):
        kw.setdefault("quantization", {})["dst"] = (scale, offset)
        super().__init__([src, dst], default_params(), **kw)


class Dequantize(AclFunction):
    """dst = (src - offset) * scale, src uint8/int8 holding QASYMM8/QASYMM8_SIGNED values."""

    kind, roles, outputs = "dequantize", ("src", "dst"), ("dst",)

    def __init__(self, src, dst, scale: float, offset: int, **kw):
        kw.setdefault("quantization", {})["src"] = (scale, offset)
        super().__init__([src, dst], default_params(), **kw)


__all__ = [
    "AclFunction", "AclCopyFallbackWarning", "Activation", "Add", "Sub", "Mul", "Pooling", "Convolution",
    "DepthwiseConvolution", "FullyConnected", "Gemm", "Softmax", "Permute", "Copy", "Pad", "Fill", "Cast",
    "Quantize", "Dequantize", "required_padding", "total_copy_count",
]
