"""ACL functions over NdArrays: configure once, run many times on the same buffers.

:class:`AclFunction` is what every function kind shares; each kind of native/acl_shim.h is a
subclass in its family room (:mod:`acl_bridge.families`) that names its tensor roles, which of
them ACL writes, and how its options become the native parameters (:meth:`AclFunction._params`).
The classes of the first kinds (:data:`MOVED_TO_FAMILIES`) are still importable from here.
Everything else is shared and lives elsewhere:

* what happens to each tensor (in place or staged, which padding, why): the pure planner,
  :mod:`acl_bridge.plan`;
* gathering ACL's facts (negotiated padding, probe) and configuring/running the native
  function on a backend: :mod:`acl_bridge.executor`;
* codes of kinds, activations, policies: :mod:`acl_bridge.abi` (read from the header);
* dimension order and side tuples: :mod:`acl_bridge.layout`.

Use :meth:`AclFunction.required_padding` and :meth:`AclFunction.padded_empty` to allocate
buffers with exactly the padding ACL wants: they belong to the bridge, ACL may write into
their padding, and runs copy nothing.
"""

from __future__ import annotations

import functools
import inspect
import types
import threading
import warnings
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ndarray import NdArray, ShapeDescriptor
from ndarray.errors import ArgumentTypeError, InvalidLayoutError, ReadOnlyError, UnsupportedOptionError

from . import abi
from .backend import backend_named
from .decisions import Decision
from .errors import AclCopyFallbackWarning, AclError
from .executor import Call, Configured, bridge_allocate, configure
from .executor import required_padding as _required_padding
from .executor import total_copy_count  # noqa: F401  (re-exported)
from .layout import DATA_LAYOUTS, PaddingSize
from .layout import window_padding, window_stride
from .mapping import PerChannelQuantization, is_per_channel, padded_descriptor, per_channel
from .native import NativeRun, check, require_native
from .plan import plan_options
from .workspace import Workspace, check_workspace

_TooHardError = getattr(np, "exceptions", np).TooHardError  # numpy >= 1.25 moved it



def default_params():
    """Native parameters with every field at its neutral value: a fresh copy of
    :func:`_neutral_params` (one native struct copy, not a store per field: a model's first
    start binds every step's options)."""
    ffi, _ = require_native()
    return ffi.new("acl_shim_params *", _neutral_params()[0])


@functools.lru_cache(maxsize=None)
def _neutral_params():
    """The neutral parameters, made once per process (never handed out: copied)."""
    ffi, _ = require_native()
    p = ffi.new("acl_shim_params *")
    p.activation = abi.ACTIVATIONS["none"]
    p.scale = 1.0
    p.alpha = 1.0
    p.beta = 1.0
    p.stride_x = p.stride_y = 1
    p.depth_multiplier = 1
    p.transpose_weights = 1
    p.convert_policy = abi.POLICIES["saturate"]
    p.rounding_policy = abi.ROUNDING["to_zero"]
    return p


@functools.lru_cache(maxsize=None)
def _signature(params_method) -> inspect.Signature:
    """The options a function kind takes (its ``_params``), read once per kind."""
    return inspect.signature(params_method)


@functools.lru_cache(maxsize=None)
def _keyword_options(params_method) -> Optional[Tuple[frozenset, frozenset]]:
    """(the option names a kind takes, those it requires) where each may be given by keyword
    alone (no positional-only, ``*args`` or ``**kwargs`` parameter), else None: options given
    by keyword are then bound as they are, without ``Signature.bind`` (twice per function of
    a model's first start). Read off the code object of a plain classmethod (what
    ``inspect.signature`` reads there, without building a Signature: one per kind on a first
    start), else from its signature."""
    fast = _keyword_options_of_code(params_method)
    if fast is not _NOT_PLAIN:
        return fast
    return _keyword_options_inspected(params_method)


_NOT_PLAIN = object()


def _keyword_options_of_code(params_method):
    """:func:`_keyword_options` of a classmethod bound to its class whose function is plain (no
    ``__wrapped__`` or ``__signature__`` for inspect to follow), from its code object and
    defaults; ``_NOT_PLAIN`` for anything else (tests/test_keyword_options.py holds it equal
    to :func:`_keyword_options_inspected`)."""
    f = getattr(params_method, "__func__", None)
    if type(params_method) is not types.MethodType or type(f) is not types.FunctionType \
            or hasattr(f, "__wrapped__") or hasattr(f, "__signature__"):
        return _NOT_PLAIN
    code = f.__code__
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_posonlyargcount > 1 \
            or code.co_argcount < 1:
        return None  # *args or **kwargs, or a positional-only option after the class
    names = code.co_varnames
    positional = names[1:code.co_argcount]  # the class, bound, is not an option
    keyword_only = names[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    without_default = code.co_argcount - len(f.__defaults__ or ())
    kwdefaults = f.__kwdefaults__ or {}
    required = {n for i, n in enumerate(positional, 1) if i < without_default}
    required.update(n for n in keyword_only if n not in kwdefaults)
    return frozenset(positional + keyword_only), frozenset(required)


def _keyword_options_inspected(params_method) -> Optional[Tuple[frozenset, frozenset]]:
    """:func:`_keyword_options` from ``inspect.signature`` (any callable)."""
    taken, required = set(), set()
    for p in _signature(params_method).parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return None
        taken.add(p.name)
        if p.default is p.empty:
            required.add(p.name)
    return frozenset(taken), frozenset(required)


def _shares_memory(a: NdArray, b: NdArray) -> bool:
    """Whether two NdArrays have an element address in common (numpy's exact test; a
    problem too hard to solve exactly counts as overlapping). Allocations apart in memory
    share nothing: numpy is asked only where they meet."""
    a0, b0 = a.base_ptr, b.base_ptr
    if a0 + a.allocation.nbytes <= b0 or b0 + b.allocation.nbytes <= a0:
        return False
    try:
        return bool(np.shares_memory(a.numpy(), b.numpy()))
    except _TooHardError:
        return True


def _as_ndarray(a, role: str) -> NdArray:
    if isinstance(a, np.ndarray):
        a = NdArray.from_numpy(a)
    if not isinstance(a, NdArray):
        raise ArgumentTypeError(f"{role} must be an NdArray or numpy array, got {type(a).__name__}")
    return a


def _spec_of(a, role: str):
    """(shape, dtype) of an NdArray, ShapeDescriptor or numpy array (negotiation needs no memory)."""
    if isinstance(a, (NdArray, ShapeDescriptor, np.ndarray)):
        return tuple(a.shape) or (1,), np.dtype(a.dtype)
    raise ArgumentTypeError(f"{role} must be an NdArray, ShapeDescriptor or numpy array, got {type(a).__name__}")


def _check_data_layout(data_layout) -> str:
    if data_layout not in DATA_LAYOUTS:
        raise UnsupportedOptionError(f"data_layout is {data_layout!r}, expected one of {DATA_LAYOUTS}")
    return data_layout


class AclFunction(NativeRun):
    """One ACL function configured once on fixed buffers, run many times.

    Subclasses set ``kind``, ``roles`` (tensor order of native/acl_shim.h) and ``outputs``
    (roles ACL writes), and turn their options into native parameters in ``_params``.
    Constructor: the tensors in ``roles`` order (None for an absent optional one), then the
    kind's options, then the common keywords: ``data_layout`` ("NCHW" or "NHWC"),
    ``quantization`` ({role: (scale, offset)}), ``allow_copy`` (False: refuse to stage),
    ``allow_padding_writes`` (let ACL write into the padding of memory the user brought,
    where those bytes belong to no element), ``backend`` ("neon"), ``workspace`` (an
    :class:`~acl_bridge.workspace.Workspace` whose pool holds the function's scratch tensors;
    allocate it before the first run), ``decided`` (the :attr:`decision` of an identical
    earlier function: used where its content, backend and ACL version match this call's,
    :mod:`acl_bridge.decisions`; the CPU is not compared, so a decision from another process
    belongs only where ACL's answers were kept for the same CPU, as the model runner's facts
    cache keeps them).
    """

    kind: str = ""
    roles: Tuple[str, ...] = ()
    outputs: Tuple[str, ...] = ()
    optional: Tuple[str, ...] = ()  # roles that may be left out (None)
    # True where the kind's kernel is element-wise, so an output identical to an input is safe
    in_place: bool = False
    # roles ACL's function takes as ``const ITensor *`` in ACL 20.08 and 24.11 alike (their
    # headers): it writes none of their bytes, so a dense one needs no probe (acl_bridge.plan)
    const_roles: Tuple[str, ...] = ()

    def __init__(self, *args, data_layout: str = "NCHW", quantization: Optional[Dict[str, Tuple[float, int]]] = None,
                 allow_copy: bool = True, allow_padding_writes: bool = False, backend="neon",
                 workspace: Optional[Workspace] = None, decided: Optional[Decision] = None, **options):
        call = self._prepare(args, data_layout=data_layout, quantization=quantization, allow_copy=allow_copy,
                             allow_padding_writes=allow_padding_writes, backend=backend, workspace=workspace,
                             **options)
        self._finish(*configure(call, decided))

    def _prepare(self, args: Sequence, *, data_layout: str = "NCHW", quantization=None, allow_copy: bool = True,
                 allow_padding_writes: bool = False, backend="neon", workspace: Optional[Workspace] = None,
                 bound: Optional[tuple] = None, **options) -> Call:
        """The constructor's first half, with the constructor's arguments (``decided`` aside):
        arguments checked and bound (tensors, options, data layout, quantization, backend),
        outputs writable and not overlapping another tensor; the
        :class:`~acl_bridge.executor.Call` to configure. Nothing native is made. ``bound``:
        (kind, native parameters, quantization per role) as :meth:`_bound_specs` made them for
        the same options and tensor shapes (the options then given inside it, the tensors
        positionally): used instead of binding again."""
        if bound is not None:
            if len(args) != len(self.roles) or options:  # the binding holds the options: none again
                raise ArgumentTypeError(f"{type(self).__name__}: a call made from a binding takes one tensor per "
                                        f"role {self.roles} and no options, not {len(args)} tensors and "
                                        f"{sorted(options)}")
            arrays = tuple(args)
            call = self._bound_call(arrays, bound, data_layout, allow_copy, allow_padding_writes, backend, workspace)
        else:
            arrays, kind, params, quant = self._call(args, options, quantization)
            data_layout = _check_data_layout(data_layout)
            call = self._made_call(arrays, kind, params, self._per_channel(quant, data_layout), data_layout,
                                   allow_copy, allow_padding_writes, backend, workspace)
        self.data_layout, self.kind, self.quantization = call.data_layout, call.kind, dict(call.quantization)
        self.backend = call.backend
        # the caller's objects too: a numpy array passed in stays alive itself, not only its memory
        self._sources = [a for a in arrays if a is not None]
        self.arrays = call.arrays
        return call

    @classmethod
    def _bound_call(cls, arrays: tuple, bound: tuple, data_layout: str = "NCHW", allow_copy: bool = True,
                    allow_padding_writes: bool = False, backend="neon", workspace: Optional[Workspace] = None) -> Call:
        """The :class:`~acl_bridge.executor.Call` :meth:`_prepare` makes with ``bound`` ((kind,
        native parameters, quantization per role) as :meth:`_bound_specs` made them for the same
        options and tensor shapes), one tensor per role in ``arrays`` (the caller checked their
        count), without a function object (a first start's decision pass makes one per step:
        :mod:`acl_bridge.configure_cold`). Refuses as :meth:`_prepare` does."""
        kind, params, quant = bound  # the negotiation's binding of these options and shapes
        cls._check_bound_values(arrays, params)  # what the binding could not see: values
        return cls._made_call(arrays, kind, params, quant, _check_data_layout(data_layout), allow_copy,
                              allow_padding_writes, backend, workspace)

    @classmethod
    def _made_call(cls, arrays: Sequence, kind: str, params, quant: Dict[str, object], data_layout: str,
                   allow_copy: bool, allow_padding_writes: bool, backend, workspace) -> Call:
        """:meth:`_prepare`'s second half, on the bound tensors (one per role), kind, parameters
        and quantization per role: tensors as NdArrays, outputs writable and not overlapping
        another tensor (ReadOnlyError, InvalidLayoutError), the backend and workspace checked;
        the :class:`~acl_bridge.executor.Call`."""
        backend = backend_named(backend)
        by_role: Dict[str, Optional[NdArray]] = {
            role: None if a is None else _as_ndarray(a, role) for role, a in zip(cls.roles, arrays)}
        for role in cls.outputs:
            a = by_role[role]
            if a is not None and a.readonly:
                raise ReadOnlyError(f"{role} is written by {kind} but is read-only: {a!r}")
        _check_aliasing(cls, kind, by_role)
        return Call(kind, params, cls.roles, cls.outputs, by_role, data_layout, quant,
                    plan_options(bool(allow_copy), bool(allow_padding_writes)),
                    backend, check_workspace(workspace), cls.const_roles)

    def _finish(self, configured: Configured, facts, decision: Optional[Decision]) -> None:
        """The constructor's second half: the configured native function (from
        :func:`~acl_bridge.executor.configure`, or made with others in one native call:
        :mod:`acl_bridge.configure_batch`) becomes this function's, and run() is armed."""
        self._configured: Optional[Configured] = configured
        self.decision = decision
        # made from ``decided`` (its content matched this call's): nothing described or asked
        self.decision_recalled = configured.recalled
        self.plan = configured.plan
        self.facts = facts
        if self.plan.staged:
            warnings.warn(AclCopyFallbackWarning(
                f"{self.kind}: copying through ACL-padded buffers on every run: "
                + "; ".join(f"{t.role}: {t.detail}" for t in self.plan.tensors if t.reason)), stacklevel=3)
        self._close_lock = threading.Lock()
        self._schedules: list = []  # weak references to schedules that run this function
        configured.arm(self)  # run() is now one C method: see NativeRun

    @classmethod
    def _check_bound_values(cls, arrays: Sequence, params) -> None:
        """The checks of :meth:`_call` that read the tensors' values (the negotiation binds
        ShapeDescriptors, which have none), for a call made from that binding: a library
        exception where a value is refused (subclasses override; none by default)."""

    # ------------------------------------------------------------------ options -> params
    @classmethod
    def _params(cls):
        """Native parameters from the kind's options (subclasses override; none by default)."""
        return default_params()

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        """(arrays, kind, params, quantization per role) from the constructor's arguments."""
        n = min(len(args), len(cls.roles))
        arrays = list(args[:n])
        for role in cls.roles[n:]:  # tensors may also be given by role name
            if role in options:
                arrays.append(options.pop(role))
            elif role in cls.optional:
                arrays.append(None)
            else:
                raise ArgumentTypeError(f"{cls.__name__} takes the tensors {cls.roles} (positional or by name); "
                                        f"{role} is missing")
        by_keyword = None if len(args) > n else _keyword_options(cls._params)
        if by_keyword is not None and by_keyword[1].issubset(options) and by_keyword[0].issuperset(options):
            arguments, bound_args, bound_kwargs = options, (), options  # what bind() gives for these
        else:
            try:
                bound = _signature(cls._params).bind(*args[n:], **options)
            except TypeError as e:
                names = [p for p in _signature(cls._params).parameters]
                raise UnsupportedOptionError(f"{cls.__name__}: {e}; its options are {names}") from None
            arguments, bound_args, bound_kwargs = bound.arguments, bound.args, bound.kwargs
        quant = dict(quantization or {})
        unknown = sorted(set(quant) - set(cls.roles))
        if unknown:
            raise UnsupportedOptionError(f"quantization names {unknown}, expected roles among {cls.roles}")
        kind = cls._kind(**arguments)
        quant.update(cls._quantization(**arguments))
        return tuple(arrays), kind, cls._params(*bound_args, **bound_kwargs), {r: quant.get(r) for r in cls.roles}

    @classmethod
    def _kind(cls, **options) -> str:
        return cls.kind

    @classmethod
    def _channel_axis(cls, role: str, data_layout: str) -> Optional[int]:
        """The numpy axis of ``role``'s output channel where the role may be quantized per
        channel (weights and bias of the convolutions and fully connected), else None."""
        return None

    @classmethod
    def _per_channel(cls, quant: Dict[str, object], data_layout: str) -> Dict[str, object]:
        """Per-channel quantizations ``(scales, 0)`` tied to their role's output-channel axis
        (checked: scales finite and > 0, zero point 0; the count is checked against the
        shape when the tensor is described); a role without such an axis refuses them."""
        out = dict(quant)
        for role, q in quant.items():
            if q is None or not is_per_channel(q):
                continue
            axis = cls._channel_axis(role, data_layout)
            if axis is None:
                takers = [r for r in cls.roles if cls._channel_axis(r, data_layout) is not None]
                count = len(q.scales) if isinstance(q, PerChannelQuantization) else len(q[0])
                raise UnsupportedOptionError(
                    f"{cls.__name__}: quantization of {role} is per channel ({count} scales); "
                    f"only {takers or 'no role'} of {cls.__name__} take per-channel scales")
            out[role] = per_channel(q, axis)
        return out

    @classmethod
    def _quantization(cls, **options) -> Dict[str, Tuple[float, int]]:
        return {}

    # ------------------------------------------------------------------ allocation helpers
    @classmethod
    def required_padding(cls, *args, data_layout: str = "NCHW", quantization=None, backend="neon",
                         **options) -> Dict[str, PaddingSize]:
        """Padding ACL needs per tensor role for this function on these shapes (same
        arguments as the constructor; tensors may be ShapeDescriptors: only shape and dtype
        count). Allocate with :meth:`padded_empty` and runs copy nothing."""
        kind, params, _, specs = cls._bound_specs(args, options, quantization, data_layout)
        return dict(zip(cls.roles, _required_padding(kind, params, specs, backend_named(backend))))

    @classmethod
    def _bound_specs(cls, args: Sequence, options: dict, quantization, data_layout: str) -> tuple:
        """(kind, native parameters, quantization per role, per role its spec (shape, dtype,
        data layout, quantization) or None): the arguments bound as :meth:`required_padding`
        binds them (tensors may be ShapeDescriptors); the first three are what
        :meth:`_prepare` takes as ``bound`` for tensors of the same shapes."""
        arrays, kind, params, quant = cls._call(args, options, quantization)
        layout = _check_data_layout(data_layout)
        quant = cls._per_channel(quant, layout)
        specs = [None if a is None else (*_spec_of(a, r), layout, quant[r]) for r, a in zip(cls.roles, arrays)]
        return kind, params, quant, specs

    @staticmethod
    def padded_empty(shape, dtype, padding: PaddingSize) -> NdArray:
        """A fresh, zeroed NdArray with exactly ``padding`` around its x-y plane (C order),
        owned by the bridge: ACL may write into its padding."""
        if not isinstance(padding, PaddingSize):
            raise ArgumentTypeError(f"padding is {padding!r}, expected a PaddingSize")
        shape = tuple(shape)
        return bridge_allocate(padded_descriptor(shape, dtype, padding.for_rank(len(shape))))

    # ------------------------------------------------------------------ what the plan says
    @property
    def padding(self) -> Dict[str, PaddingSize]:
        """Padding ACL asked for, per role (negotiated; with the renegotiation if any)."""
        return {t.role: t.padding for t in self.plan.tensors}

    @property
    def staged(self) -> Tuple[str, ...]:
        return self.plan.staged

    @property
    def renegotiated(self) -> bool:
        return self.plan.renegotiated

    @property
    def writes_outside(self) -> Dict[str, bool]:
        return dict(self.facts.writes_outside or {})

    @property
    def layout_ok(self) -> bool:
        return self.facts.layout_ok is not False

    @property
    def copy_count(self) -> int:
        c = self._configured
        return 0 if c is None else c.copy_count

    @property
    def tensors(self):
        c = self._configured
        return {} if c is None else c.tensors

    @property
    def closed(self) -> bool:
        return self._configured is None or self._configured.handle is None

    # ------------------------------------------------------------------ running
    # run() is NativeRun's C method (native/native_call.c): for a zero-copy function, per
    # call, it holds the native handle (keeping the function and its memory alive through a
    # concurrent close()), releases the GIL unless the function is small
    # (executor.GIL_HELD_MAX_BYTES), makes the one native call and tests its status; no
    # Python frame, argument conversion, lock or allocation. Runs of one function object are
    # serialised by the native layer; different objects run concurrently. It returns self.
    # A staged plan's run() is _run_python (copies around the call, counted).

    @property
    def releases_gil(self) -> bool:
        """Whether run() releases the GIL during its native call: a staged plan's (cffi) always
        does; an armed one unless the function is small (executor.GIL_HELD_MAX_BYTES)."""
        c = self._configured
        return bool(c is not None and c.copies_per_run) or self._native_releases_gil

    def _run_python(self) -> "AclFunction":
        """run() of a function that is not armed: a staged plan (Configured.run copies its
        inputs in and outputs back around the native call and counts the copies)."""
        c = getattr(self, "_configured", None)
        if c is None:
            raise AclError("function is closed", what=self.kind)
        c.run()
        return self

    def _run_failed(self, status: Optional[int]) -> None:
        """Called by run() right after a failed native call (same thread: the shim's message
        is thread-local), or with None when run after close(); raises."""
        if status is None:
            raise AclError("function is closed", what=self.kind)
        check(status, f"{self.kind}: run")

    def __call__(self) -> "AclFunction":
        return self.run()

    def _check_aliasing(self) -> None:
        """Refuse an output that shares memory with another tensor of the call
        (:func:`_check_aliasing`)."""
        _check_aliasing(type(self), self.kind, self.arrays)

    def close(self) -> None:
        """Release the native function and tensors and the references to the buffers
        (idempotent). Waits for a schedule running this function and for a staged run in
        progress; a zero-copy run in progress completes on intact memory, and the native
        function and buffers are released when it returns (now, when none is running)."""
        with self._close_lock:
            for ref in self._schedules:
                schedule = ref()
                if schedule is not None:
                    schedule._invalidate(f"{self.kind} was closed")
            self._schedules = []
            self._disarm()  # a run in progress keeps its own reference to the handle
            if self._configured is not None:
                self._configured.close()
            self._sources = []
            self.arrays = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        staged = f", staged={self.staged}, copies={self.copy_count}" if self.staged else ""
        return f"{type(self).__name__}({', '.join(f'{r}={a!r}' for r, a in self.arrays.items())}{staged})"


def _check_aliasing(cls: type, kind: str, arrays: Dict[str, Optional[NdArray]]) -> None:
    """Refuse an output of function class ``cls`` that shares memory with another tensor of the
    call (InvalidLayoutError).

    ACL kernels read and write in their own order, so overlap gives silently wrong
    results (measured on 20.08 for copy, softmax and pooling). The exception is the
    classic in-place element-wise call, where output and input are the very same layout.
    """
    for out in cls.outputs:
        a = arrays[out]
        if a is None or a.descriptor.size == 0:
            continue
        a0 = a.base_ptr
        a1 = a0 + a.allocation.nbytes
        for role, b in arrays.items():
            if role == out or b is None:
                continue
            b0 = b.base_ptr
            if a1 <= b0 or b0 + b.allocation.nbytes <= a0:  # allocations apart: nothing shared
                continue
            if b.descriptor.size == 0:
                continue
            in_place = (cls.in_place and a.data_ptr == b.data_ptr
                        and a.descriptor.shape == b.descriptor.shape
                        and a.descriptor.strides == b.descriptor.strides)
            if not in_place and _shares_memory(a, b):
                raise InvalidLayoutError(
                    f"{out} overlaps {role} in memory; {kind} does not support in-place operation "
                    f"(only {sorted(in_place_kinds())} accept an output identical to an input): {a!r}, {b!r}")


def _activation_params(p, activation, act_a: float, act_b: float) -> None:
    p.activation = abi.activation_code(activation)
    p.act_a, p.act_b = act_a, act_b


def _window_params(p, stride, padding) -> None:
    p.stride_y, p.stride_x = window_stride(stride)
    pad = window_padding(padding)
    p.pad_top, p.pad_right, p.pad_bottom, p.pad_left = pad.as_tuple()


def required_padding(kind: str, params, specs, backend="neon") -> Tuple[PaddingSize, ...]:
    """Padding to allocate per tensor for function ``kind`` (an :mod:`acl_bridge.abi` kind
    name) on tensors of these specs: per tensor (shape, dtype, data_layout, quantization) or
    None (absent). See :func:`acl_bridge.executor.required_padding`."""
    if kind not in abi.KINDS:
        raise UnsupportedOptionError(f"kind is {kind!r}, expected one of {sorted(abi.KINDS)}")
    return _required_padding(kind, params, specs, backend_named(backend))


# The function classes of the first kinds, defined here before they moved into their family
# rooms (issue 37); still importable from here, found in :mod:`acl_bridge.families` when first
# asked for. New kinds are only in their rooms.
MOVED_TO_FAMILIES = ("Activation", "Add", "Sub", "Mul", "Pooling", "Convolution", "DepthwiseConvolution",
                     "FullyConnected", "Gemm", "Softmax", "Permute", "Copy", "Pad", "Fill", "Cast", "Quantize",
                     "Dequantize", "Resize", "PRelu")


def in_place_kinds() -> frozenset:
    """The kinds whose class sets :attr:`AclFunction.in_place` (every family room's)."""
    from . import families  # the rooms import this module: looked up late (pyproject.toml's layers say so)

    return frozenset(kind for kind, cls in families.CLASSES.items() if cls.in_place)


def __getattr__(name: str):
    """A class of :data:`MOVED_TO_FAMILIES` from its family room, or ``IN_PLACE_KINDS``
    (:func:`in_place_kinds`) (PEP 562: asked only for names this module does not define);
    AttributeError for any other name."""
    if name == "IN_PLACE_KINDS":
        return in_place_kinds()
    if name not in MOVED_TO_FAMILIES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import families

    return getattr(families, name)


__all__ = ["AclFunction", "AclCopyFallbackWarning", "default_params", "required_padding", "total_copy_count",
           "in_place_kinds", "MOVED_TO_FAMILIES", *MOVED_TO_FAMILIES]
