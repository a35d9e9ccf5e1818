"""The runtime: gather ACL's facts for a call, then carry out its plan on a backend.

:func:`configure` is the whole life of a function up to its first run:

1. describe each tensor (:func:`describe_request`: layout, origin, alignment);
2. negotiation: ACL configures the function on throw-away resizable tensors and reports the
   padding it asked for (:func:`negotiate_padding`);
3. :func:`acl_bridge.plan.plan_function` decides; when some tensor stays in place the
   probe runs these exact layouts on scratch memory (:func:`probe`) and the planner decides
   again with its findings;
4. :func:`execute`: bridge-owned staging buffers, native tensors (``ffi.gc``'d at birth),
   validate() + configure(), then import of every buffer's memory. If validate() on the
   final layouts asks for more padding than negotiated, ACL's own auto padding is fetched
   and the planner decides a third time (``RENEGOTIATED``).

Given a :class:`~acl_bridge.decisions.Decision` kept from an identical call (the same kind,
parameters, options and tensor layouts: :func:`call_layouts`), steps 1-3 are skipped and step
4 uses the decision's plan and native descriptions; every configure returns the decision it
made, for a later process to reuse.

The executor never decides; the planner never calls ACL. The backend is a parameter here.
"""

from __future__ import annotations

import functools
import threading
import weakref
from dataclasses import dataclass, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

import numpy as np

from ndarray import NdArray, NotRepresentableError, ShapeDescriptor

from . import abi
from . import configure_session as session
from .backend import NEON, Backend
from .decisions import Decision, layout_key_with, layout_prefix
from .errors import AclError, AclStatusError
from .layout import PaddingSize
from .mapping import (PerChannelQuantization, _cacheable, _types, acl_layout_padding, alignment_problem,
                      padded_descriptor, tensor_info)
from .native import EXPECTED_ABI_VERSION, NativeRun, acl_version, arm, check, require_native
from .plan import AclFacts, Action, FunctionPlan, Origin, PlanOptions, Reason, TensorRequest, plan_function
from .question_thread import QuestionThread
from .tensor import AclTensor, desc_content, native_desc
from .workspace import Workspace

T = TypeVar("T")

Quantization = Optional[Tuple[float, int]]
Spec = Tuple[Tuple[int, ...], np.dtype, str, Quantization]  # shape, dtype, data_layout, quantization

# ---------------------------------------------------------------------------- bridge-owned memory
# NdArrays the bridge allocated for ACL (padded_empty, staging buffers, schedule intermediates):
# they own their padding, so ACL may write there. id() -> a weak reference to the array; an
# entry goes with its array (a plain dict: looking up memory that is not the bridge's, every
# constant of a model, raises no exception inside WeakValueDictionary.get).
_BRIDGE_OWNED: "Dict[int, weakref.ref[NdArray]]" = {}


def _own(a: NdArray) -> None:
    """Note ``a`` as the bridge's own (:func:`origin_of`) for as long as it lives."""
    key = id(a)

    def gone(ref: "weakref.ref[NdArray]") -> None:  # (called before the id can name another object)
        if _BRIDGE_OWNED.get(key) is ref:
            del _BRIDGE_OWNED[key]

    _BRIDGE_OWNED[key] = weakref.ref(a, gone)
# Bytes after a bridge-owned allocation that belong to it too: vector stores past the end
# that the probe sees (its guard has the same size) land there, never in other memory.
BRIDGE_SLACK_IN_BYTES = 256
_ALIGNMENT_IN_BYTES = 64


def bridge_allocate(descriptor: ShapeDescriptor) -> NdArray:
    """A zeroed, 64-byte aligned buffer for ``descriptor`` that the bridge owns (padding
    included, plus BRIDGE_SLACK_IN_BYTES after it)."""
    a = NdArray.allocate(descriptor, alignment_in_bytes=_ALIGNMENT_IN_BYTES, slack_in_bytes=BRIDGE_SLACK_IN_BYTES)
    _own(a)
    return a


def bridge_slot(arena: NdArray, offset_in_bytes: int, descriptor: ShapeDescriptor) -> NdArray:
    """A bridge-owned NdArray for ``descriptor`` over the bytes of ``arena`` (itself from
    :func:`bridge_allocate`) from ``offset_in_bytes``: its allocation, then
    BRIDGE_SLACK_IN_BYTES, all inside the arena and the bridge's to give (a memory plan's
    slot; the planner guarantees that no other buffer alive at the same time shares them)."""
    if origin_of(arena) is not Origin.BRIDGE:
        raise AclError(f"arena is not a bridge-owned allocation: {arena!r}")
    end = offset_in_bytes + descriptor.alloc_size_in_bytes + BRIDGE_SLACK_IN_BYTES
    if offset_in_bytes < 0 or offset_in_bytes % _ALIGNMENT_IN_BYTES or end > arena.allocation.nbytes:
        raise AclError(f"slot [{offset_in_bytes}, {end}) does not lie {_ALIGNMENT_IN_BYTES}-byte aligned inside the "
                       f"arena of {arena.allocation.nbytes} bytes: {descriptor!r}")
    a = NdArray(arena.allocation[offset_in_bytes:end], descriptor, owns_padding=True)
    _own(a)
    return a


def bridge_reshape(parent: NdArray, view: NdArray) -> bool:
    """Whether ``view``, a reshape of ``parent``, is now the bridge's own as ``parent`` is: where
    ``parent`` is bridge-owned, both are dense and ``view`` holds every element of ``parent``
    in the same allocation, every byte outside ``view``'s elements is outside ``parent``'s
    (its slack), the bridge's to give. A view of part of a buffer, or of another's memory,
    stays the caller's (its neighbours are elements)."""
    if (origin_of(parent) is not Origin.BRIDGE or view.allocation is not parent.allocation
            or view.size != parent.size or not (_is_dense(parent) and _is_dense(view))):
        return False
    _own(view)
    return True


def origin_of(a: NdArray) -> Origin:
    ref = _BRIDGE_OWNED.get(id(a))
    return Origin.BRIDGE if ref is not None and ref() is a else Origin.USER


def layout_of(a: NdArray, origin: Optional[Origin] = None):
    """What ACL's description of ``a`` is computed from: the NdArray itself (its padding is
    reported only where it belongs to no element of anyone), or, for a buffer the bridge
    owns, its descriptor (all its padding is the bridge's to give). ``origin``:
    :func:`origin_of` of ``a`` where the caller has it."""
    return a.descriptor if (origin_of(a) if origin is None else origin) is Origin.BRIDGE else a


def _is_dense(a: NdArray) -> bool:
    """Whether ``a``'s elements are its whole allocation in C order from its first byte. A
    padded buffer with no padding in C order is, by construction (the general test otherwise;
    tests/test_describe.py holds the two equal)."""
    d = a.descriptor
    if d.explicit is None and d.order == "c" and not any(d.paddings):
        return True
    return _is_dense_general(d)


def _is_dense_general(d: ShapeDescriptor) -> bool:
    return d.offset == 0 and d.is_contiguous("c") and d.alloc_size == d.size


def describe_request(role: str, a: NdArray, *, is_output: bool, data_layout: str,
                     quantization: Quantization, acl_const: bool = False) -> TensorRequest:
    """What the planner needs to know about one tensor."""
    info = acl_padding = problem = None
    dense = _is_dense(a)
    origin = origin_of(a)
    misaligned = alignment_problem(a)
    if misaligned is not None:
        problem = (Reason.MISALIGNED, misaligned)
    else:
        side = layout_of(a, origin)
        try:
            info = tensor_info(side, data_layout, quantization)
        except NotRepresentableError as e:
            problem = (Reason.NOT_REPRESENTABLE, str(e))
        else:  # a dense buffer is laid out as ACL pads a tensor with the padding its info reads (none):
            # acl_layout_padding's answer without making its reference layout (tests/test_plan.py)
            acl_padding = info.padding if dense else acl_layout_padding(side, info)
    return TensorRequest(role=role, rank=len(a.shape), is_output=is_output, origin=origin, info=info,
                         problem=problem, acl_padding=acl_padding, dense=dense,
                         padding_is_free=bool(getattr(a, "padding_is_free", True)), acl_const=acl_const)


# ---------------------------------------------------------------------------- facts from ACL
def _spec_desc(spec: Spec, backend: Backend, padding: PaddingSize = PaddingSize()):
    """The native description of a buffer of this spec laid out as ACL pads it (dense for
    no padding); the padding is declared to ACL. Within a configure session, one per content
    (the negotiation describes each buffer for the steps on both its sides, padded and not)."""
    s = session.current()
    shape, quantization = spec[0], spec[3]
    if s is None or not (type(quantization) is PerChannelQuantization or _cacheable(quantization)) \
            or not all(type(n) is int for n in shape):  # content that may not key it (2.0 for 2)
        return _spec_desc_made(spec, backend, padding)
    key = (spec, _types(quantization), backend.name, padding)
    d = s.descriptions.get(key)
    if d is None:
        d = s.descriptions[key] = _spec_desc_made(spec, backend, padding)
    return d


def _spec_desc_made(spec: Spec, backend: Backend, padding: PaddingSize):
    shape, dtype, data_layout, quantization = spec
    shape = tuple(shape) or (1,)
    pad = padding.for_rank(len(shape))
    info = tensor_info(padded_descriptor(shape, dtype, pad), data_layout, quantization)
    return native_desc(info, pad, backend)


def _desc_array(ffi, descs: Sequence):
    return ffi.new("acl_shim_tensor_desc *[]", [ffi.NULL if d is None else d for d in descs])


def _bytes(ffi, struct) -> bytes:
    """A cffi struct's bytes: the content an answer of ACL depends on (configure_session)."""
    return ffi.buffer(struct)[:]


def _descs_key(ffi, kind: str, params, descs: Sequence) -> tuple:
    return kind, _bytes(ffi, params), tuple(None if d is None else desc_content(d) for d in descs)


def negotiate_padding(kind: str, params, specs: Sequence[Optional[Spec]],
                      backend: Backend = NEON) -> Tuple[PaddingSize, ...]:
    """Padding ACL asks for, per tensor, when it may pad resizable tensors of these specs
    (asked once per content in a :mod:`~acl_bridge.configure_session`)."""
    ffi, lib = require_native()

    def call() -> Tuple[PaddingSize, ...]:
        descs = [None if s is None else _spec_desc(s, backend) for s in specs]
        out = ffi.new("acl_shim_padding[]", len(specs))
        check(lib.acl_shim_required_padding(abi.KINDS[kind], params, _desc_array(ffi, descs), len(specs), out),
              f"{kind}: required_padding")
        return tuple(PaddingSize(p.top, p.right, p.bottom, p.left) for p in out)

    return session.ask("negotiate", lambda: (kind, _bytes(ffi, params), tuple(specs), backend.name), call)


def auto_padding_from_acl(spec: Spec, backend: Backend = NEON) -> PaddingSize:
    """ACL's own TensorInfo::auto_padding() for a tensor of this spec (asked, not copied)."""
    ffi, lib = require_native()

    def call() -> PaddingSize:
        out = ffi.new("acl_shim_padding *")
        check(lib.acl_shim_auto_padding(_spec_desc(spec, backend), out), "auto_padding")
        return PaddingSize(out.top, out.right, out.bottom, out.left)

    return session.ask("auto_padding", lambda: (spec, backend.name), call)


def layouts_rejected(kind: str, params, descs: Sequence) -> Optional[str]:
    """None when ACL's validate()/configure() accept these exact layouts, else ACL's message
    for an "Insufficient Padding" refusal (any other refusal raises)."""
    ffi, lib = require_native()
    return session.ask("check_layouts", lambda: _descs_key(ffi, kind, params, descs),
                       lambda: _layouts_rejected(ffi, lib, kind, params, descs))


def _layouts_rejected(ffi, lib, kind: str, params, descs: Sequence) -> Optional[str]:
    status = lib.acl_shim_check_layouts(abi.KINDS[kind], params, _desc_array(ffi, descs), len(descs))
    try:
        check(status, f"{kind}: check_layouts")
    except AclStatusError as e:
        if "Insufficient Padding" in e.message:
            return e.message
        raise
    return None


def required_padding(kind: str, params, specs: Sequence[Optional[Spec]],
                     backend: Backend = NEON) -> Tuple[PaddingSize, ...]:
    """Padding to allocate per tensor so that ACL runs this function in place: the
    negotiated padding, checked by validate() on exactly those layouts; where validate()
    still asks for more (20.08 NHWC depthwise), the union with ACL's auto padding."""
    return checked_padding(kind, params, specs, negotiate_padding(kind, params, specs, backend), backend)


def negotiated_descs(specs: Sequence[Optional[Spec]], pads: Sequence[PaddingSize], backend: Backend = NEON) -> list:
    """Per tensor, the native description of its spec laid out with its negotiated padding
    (None: absent): what :func:`checked_padding` asks validate() about."""
    return [None if s is None else _spec_desc(s, backend, p) for s, p in zip(specs, pads)]


def checked_padding(kind: str, params, specs: Sequence[Optional[Spec]], pads: Tuple[PaddingSize, ...],
                    backend: Backend = NEON) -> Tuple[PaddingSize, ...]:
    """:func:`required_padding` from the negotiated ``pads`` (:func:`negotiate_padding` of the
    same call): those, where validate() accepts exactly those layouts, else their union with
    ACL's auto padding (AclStatusError where even that is refused)."""
    if layouts_rejected(kind, params, negotiated_descs(specs, pads, backend)) is None:
        return pads
    pads = tuple(p if s is None else p.union(auto_padding_from_acl(s, backend)) for s, p in zip(specs, pads))
    message = layouts_rejected(kind, params, negotiated_descs(specs, pads, backend))
    if message is not None:
        raise AclStatusError(f"even ACL's auto padding is not enough: {message}", what=f"{kind}: required_padding")
    return pads


def probe(kind: str, params, descs: Sequence) -> Tuple[Tuple[int, ...], bool]:
    """(writes_outside per tensor: 0 none, 1 into padding or gaps, 2 past the allocation;
    layout_ok): ACL run once on scratch memory laid out as ``descs`` and once on dense
    buffers (see acl_shim_probe in native/acl_shim.h)."""
    ffi, _ = require_native()
    return session.ask("probe", lambda: _descs_key(ffi, kind, params, descs), _probe_call(kind, params, descs))


def probe_beside(call: "Call", plan: FunctionPlan, requests: Sequence[Optional[TensorRequest]],
                 thread: QuestionThread) -> "session.Asked":
    """:func:`probe` of ``call`` under ``plan`` (:func:`probe_descs`) asked on ``thread`` beside
    the caller, through the active session: its :class:`~acl_bridge.configure_session.Asked`,
    whose answer :func:`probed_facts` takes (the job keeps the descriptions alive until it has run)."""
    ffi, _ = require_native()
    active = session.current()
    if active is None:
        raise RuntimeError("probe_beside needs an active configure session")
    kind, params, descs = call.kind, call.params, probe_descs(call, plan, requests)
    # the job asks probe() itself (no session on that thread: straight to ACL), so the session
    # keeps what probe() answers, as where it is asked on this thread
    return active.ask_beside("probe", lambda: _descs_key(ffi, kind, params, descs),
                             lambda: probe(kind, params, descs), thread)


def _probe_call(kind: str, params, descs: Sequence) -> Callable[[], Tuple[Tuple[int, ...], bool]]:
    ffi, lib = require_native()

    def call() -> Tuple[Tuple[int, ...], bool]:
        flags = ffi.new("int32_t[]", len(descs))
        same = ffi.new("int32_t *")
        check(lib.acl_shim_probe(abi.KINDS[kind], params, _desc_array(ffi, descs), len(descs), flags, same),
              f"{kind}: probe")
        return tuple(int(f) for f in flags), bool(same[0])

    return call


# ---------------------------------------------------------------------------- configured function
_COPIES_LOCK = threading.Lock()
_TOTAL_COPIES = [0]


def total_copy_count() -> int:
    """Buffer copies made by the copy fallback in this process, all functions together."""
    with _COPIES_LOCK:
        return _TOTAL_COPIES[0]


def _count_copies(n: int) -> None:
    with _COPIES_LOCK:
        _TOTAL_COPIES[0] += n


@dataclass
class Call:
    """One function call to configure: everything but the memory decisions."""

    kind: str
    params: object  # acl_shim_params (cffi)
    roles: Tuple[str, ...]
    outputs: Tuple[str, ...]
    arrays: Dict[str, Optional[NdArray]]
    data_layout: str
    quantization: Dict[str, Quantization]
    options: PlanOptions
    backend: Backend = NEON
    workspace: Optional["Workspace"] = None  # ACL's memory manager for the function's scratch tensors
    const_roles: Tuple[str, ...] = ()  # roles ACL takes as const ITensor* (AclFunction.const_roles)

    def spec(self, role: str) -> Optional[Spec]:
        a = self.arrays[role]
        return None if a is None else (tuple(a.shape) or (1,), a.dtype, self.data_layout, self.quantization[role])

    def staging_descriptor(self, role: str, plan: FunctionPlan) -> ShapeDescriptor:
        a = self.arrays[role]
        assert a is not None and plan[role].action is Action.STAGED, (role, plan.describe())
        return padded_descriptor(tuple(a.shape) or (1,), a.dtype, plan[role].padding)

    def acl_side(self, role: str, plan: FunctionPlan):
        """What ACL will see for ``role``: the NdArray itself (in place), or the layout of its
        bridge-owned staging buffer; tensor_info() of it is exactly the native tensor's info."""
        a = self.arrays[role]
        if a is None:
            return None
        if plan[role].action is not Action.STAGED:
            return layout_of(a)
        return self.staging_descriptor(role, plan)


def destroyer(destroy, arrays: Dict[str, Optional[NdArray]]):
    """The destructor of a native function's handle: it holds the memory ACL was given, so
    the buffers live exactly as long as the native function (see Configured)."""
    keep = tuple(a for a in arrays.values() if a is not None)

    def destroy_function(handle, _keep=keep) -> None:
        destroy(handle)

    return destroy_function


class Configured:
    """A configured native function and the memory it runs on (the executed plan).

    Lifetime: ``handle`` is the one owner of the native function, and its destructor holds
    the buffers imported into it. A run reads the handle into a local, so the native
    function and its memory outlive ``close()`` until a run in progress returns; the last
    reference destroys both. Runs of one function are serialised by the shim (a mutex per
    function), so the zero-copy hot path (AclFunction.run) takes no Python lock.

    :meth:`run` is the staged path: under ``lock`` (copies and kernel form one critical
    section) it copies staged inputs in, makes the one native call (GIL released), tests
    its status, copies staged outputs back and counts the copies. Views, the native entry
    point and the copy lists are all built here, at configure time.
    """

    def __init__(self, call: Call, plan: FunctionPlan, descs: Optional[Sequence[Optional[bytes]]] = None):
        """``descs``: each role's native description, already made for exactly these layouts
        (a matched :class:`~acl_bridge.decisions.Decision`); None: made here."""
        ffi, lib = require_native()
        self.plan = plan
        self.kind = call.kind
        self.acl_arrays: Dict[str, Optional[NdArray]] = {}
        for role in call.roles:
            a = call.arrays[role]
            if a is not None and plan[role].action is Action.STAGED:
                a = bridge_allocate(call.staging_descriptor(role, plan))
            self.acl_arrays[role] = a
        with session.timed("import"):
            given = dict(zip(call.roles, descs)) if descs is not None else {}
            self.tensors: Dict[str, Optional[AclTensor]] = {
                role: None if a is None else AclTensor(a, call.data_layout, call.quantization[role],
                                                       backend=call.backend, layout=layout_of(a),
                                                       desc=given.get(role))
                for role, a in self.acl_arrays.items()
            }
        handles = ffi.new("acl_shim_tensor *[]", [ffi.NULL if t is None else t.handle for t in self.tensors.values()])
        out = ffi.new("acl_shim_function **")
        with session.timed("configure"):  # ACL's validate() and configure()
            if call.workspace is None:
                status = lib.acl_shim_function_create(abi.KINDS[call.kind], call.params, handles, len(handles), out)
            else:
                status = lib.acl_shim_function_create_in(call.workspace.handle, abi.KINDS[call.kind], call.params,
                                                         handles, len(handles), out)
        check(status, call.kind)
        self.handle = ffi.gc(out[0], destroyer(lib.acl_shim_function_destroy, self.acl_arrays))
        with session.timed("import"):
            for t in self.tensors.values():
                if t is not None:
                    t.import_memory()
        self._settle(call, plan)

    @classmethod
    def adopt(cls, call: Call, plan: FunctionPlan, handle, tensors: Sequence, descs: Sequence[Optional[bytes]]
              ) -> "Configured":
        """A function made with others in one native call (:mod:`acl_bridge.configure_batch`)
        from a kept decision whose ``plan`` stages nothing: ``handle`` is its native function
        (owned already: ``ffi.gc`` holding the call's arrays, as :func:`destroyer` makes it),
        ``tensors`` its native tensors in role order (owned, memory imported; None where
        absent), ``descs`` their descriptions."""
        self = cls.__new__(cls)
        self.plan = plan
        self.kind = call.kind
        self.acl_arrays = dict(call.arrays)  # nothing staged: ACL works on the call's own buffers
        self.tensors = {
            role: None if h is None else AclTensor.adopt(h, call.arrays[role], call.data_layout,  # type: ignore
                                                         call.quantization[role], call.backend,
                                                         layout_of(call.arrays[role]), d)  # type: ignore[arg-type]
            for role, h, d in zip(call.roles, tensors, descs)}
        self.handle = handle
        self._settle(call, plan)
        self.recalled = True
        return self

    def _settle(self, call: Call, plan: FunctionPlan) -> None:
        """The run side, once the native function exists: copy lists, lock, entry point."""
        ffi, lib = require_native()
        staged = [r for r in plan.staged]
        self.copy_in = [(self.acl_arrays[r].numpy(), call.arrays[r].numpy())  # type: ignore[union-attr]
                        for r in staged if r not in call.outputs]
        self.copy_out = [(call.arrays[r].numpy(), self.acl_arrays[r].numpy())  # type: ignore[union-attr]
                         for r in staged if r in call.outputs]
        self.copies_per_run = len(self.copy_in) + len(self.copy_out)
        self.copy_count = 0
        self.lock = threading.Lock()
        self.native_run = lib.acl_shim_function_run
        self.what = f"{call.kind}: run"
        self.backend = call.backend
        self.recalled = False  # made from a kept Decision (configure)

    def arm(self, runner: NativeRun) -> None:
        """Make ``runner.run()`` this function's zero-copy run, from C (native/native_call.c);
        a staged plan leaves it unarmed (its run is Python's: copies around the call). The
        GIL is kept during the call when :func:`holds_gil` says the call is short."""
        if not self.copies_per_run:
            arm(runner, "acl_shim_function_run", self.handle,
                release_gil=not holds_gil(self.backend, self.acl_arrays.values()))

    def run(self) -> None:
        with self.lock:
            handle = self.handle
            if handle is None:
                raise AclError("function is closed", what=self.kind)
            if self.copies_per_run:
                for dst, src in self.copy_in:
                    np.copyto(dst, src)
            status = self.native_run(handle)
            if status:
                check(status, self.what)
            if self.copies_per_run:
                for dst, src in self.copy_out:
                    np.copyto(dst, src)
                self.copy_count += self.copies_per_run
                _count_copies(self.copies_per_run)

    def close(self) -> None:
        with self.lock:  # a staged run in progress finishes first
            # dropping the one owner destroys the native function and lets its memory go now,
            # or, when a zero-copy run holds the handle, as soon as that run returns
            self.handle = None
            for t in self.tensors.values():
                if t is not None:
                    t.close()
            self.tensors = {}
            self.acl_arrays = {}
            self.copy_in = self.copy_out = []


# A NEON function whose tensors hold at most this many bytes in all runs with the GIL held.
# Handing the GIL over and back costs a tenth of a whole relu on 2 KiB under emulation
# (benchmarks/bench.py, overhead section: "run() releasing the GIL" against run() and the C++
# loop); numpy makes the same trade for loops of up to 500 elements. Such a call keeps other
# Python threads waiting while it runs (microseconds on a device); larger ones, and every
# OpenCL call (it waits on a device), release the GIL.
GIL_HELD_MAX_BYTES = 16 * 1024


def holds_gil(backend: Backend, arrays) -> bool:
    """Whether a run of a function on these buffers keeps the GIL (GIL_HELD_MAX_BYTES)."""
    if backend is not NEON:
        return False
    return sum(a.descriptor.alloc_size_in_bytes for a in arrays if a is not None) <= GIL_HELD_MAX_BYTES


def in_place_desc(call: Call, role: str, request: Optional[TensorRequest]):
    """The native description AclTensor gives ACL for ``role``'s tensor in place (None: absent),
    from its request's description where it has one (the same info and padding)."""
    if request is not None and request.info is not None:
        return native_desc(request.info, request.acl_padding, call.backend)
    a = call.arrays[role]
    if a is None:
        return None
    side = layout_of(a)
    info = tensor_info(side, call.data_layout, call.quantization[role])
    return native_desc(info, acl_layout_padding(side, info), call.backend)


def probe_descs(call: Call, plan: FunctionPlan, requests: Sequence[Optional[TensorRequest]]) -> list:
    """Per role, the native description the probe of ``call`` under ``plan`` is asked on: each
    tensor as ACL will see it (in place, or its staging buffer's layout)."""
    descs: List = []
    for role, request in zip(call.roles, requests):
        if plan[role].action is not Action.STAGED:
            descs.append(in_place_desc(call, role, request))
            continue
        side = call.acl_side(role, plan)  # the same layout AclTensor will give ACL
        info = tensor_info(side, call.data_layout, call.quantization[role])
        descs.append(native_desc(info, acl_layout_padding(side, info), call.backend))
    return descs


def probed_facts(call: Call, facts: AclFacts, answer: Tuple[Tuple[int, ...], bool]) -> AclFacts:
    """``facts`` with the probe's findings (:func:`probe`'s answer) for ``call``'s roles."""
    writes, same = answer
    return replace(facts, writes_outside={r: w > 0 for r, w in zip(call.roles, writes)},
                   writes_beyond={r: w > 1 for r, w in zip(call.roles, writes)}, layout_ok=same)


def facts_with_probe(call: Call, plan: FunctionPlan, facts: AclFacts,
                     requests: Sequence[Optional[TensorRequest]]) -> AclFacts:
    """``facts`` with the findings of :func:`probe`, asked here, of ``call`` under ``plan``."""
    return probed_facts(call, facts, probe(call.kind, call.params, probe_descs(call, plan, requests)))


def describe_call(call: Call) -> List[Optional[TensorRequest]]:
    """Per role, what the planner needs to know of its tensor (None: absent)."""
    return [None if call.arrays[r] is None else
            describe_request(r, call.arrays[r], is_output=r in call.outputs,  # type: ignore[arg-type]
                             data_layout=call.data_layout, quantization=call.quantization[r],
                             acl_const=r in call.const_roles)
            for r in call.roles]


def decide(call: Call, facts: AclFacts, requests: Optional[Sequence[Optional[TensorRequest]]] = None
           ) -> Tuple[FunctionPlan, AclFacts]:
    """Plan; probe when the plan needs it, and plan again with the probe's findings.
    ``requests``: :func:`describe_call` of ``call`` where the caller has it."""
    if requests is None:
        requests = describe_call(call)
    plan = plan_function(call.kind, requests, facts, call.options, call.roles)
    if plan.needs_probe:
        facts = facts_with_probe(call, plan, facts, requests)
        plan = plan_function(call.kind, requests, facts, call.options, call.roles)
    return plan, facts


def call_layouts(call: Call, key_of: Optional[Callable[[NdArray, object], Optional[T]]] = None
                 ) -> Optional[Tuple[Optional[T], ...]]:
    """Each role's :func:`acl_bridge.decisions.layout_key` (None: absent), or None when some
    tensor of the user's memory is misaligned or a quantization has no text (no decision is
    kept or reused for such a call). ``key_of``: (array, quantization) -> that role's key, or
    None where it has none, for a caller that keeps its keys (default: the text, made here)."""
    key_of = _layout_text if key_of is None else key_of  # type: ignore[assignment]
    out: List[Optional[T]] = []
    for role in call.roles:
        a = call.arrays[role]
        if a is None:
            out.append(None)
            continue
        key = key_of(a, call.quantization[role])  # type: ignore[misc]
        if key is None:
            return None
        out.append(key)
    return tuple(out)


def _layout_text(a: NdArray, quantization: object) -> Optional[str]:
    prefix = array_layout_prefix(a)
    if not prefix:
        return None
    try:
        return layout_key_with(prefix, quantization)
    except TypeError:
        return None


def array_layout_prefix(a: NdArray, text_of: Callable[[ShapeDescriptor, str, bool], str] = layout_prefix) -> str:
    """The memory's part of ``a``'s layout key (:func:`acl_bridge.decisions.layout_prefix`),
    or "" for memory of the user's that is misaligned (no decision for it). ``text_of``: that
    text of (descriptor, origin, padding free) where the caller keeps them (default: made here)."""
    origin = origin_of(a)
    if origin is Origin.USER and alignment_problem(a) is not None:
        return ""
    return text_of(a.descriptor, origin.value, bool(getattr(a, "padding_is_free", True)))


@functools.lru_cache(maxsize=None)
def acl_identity() -> str:
    """The ACL and shim a decision is made with (:attr:`Decision.acl`)."""
    return f"ACL {acl_version()}, shim ABI {EXPECTED_ABI_VERSION}"


def configure(call: Call, decided: Optional[Decision] = None) -> Tuple[Configured, AclFacts, Optional[Decision]]:
    """Negotiate, plan, probe, execute (module docstring); returns the configured function,
    the facts its plan was made from and its :class:`~acl_bridge.decisions.Decision` (None
    for a misaligned tensor of the user's). ``decided``: a decision kept from an identical
    call; when its content, backend and ACL match this call's (:meth:`Decision.matches`),
    the function is made from it without describing, negotiating, planning or probing
    (``recalled`` is then True on the configured function); otherwise, or when ACL or the
    description checks refuse what it holds, it is ignored and the function configured as
    usual."""
    ffi, _ = require_native()
    layouts = call_layouts(call)
    params = _bytes(ffi, call.params)
    acl = acl_identity()
    if (decided is not None and layouts is not None
            and decided.matches(call.kind, params, call.data_layout, call.options, layouts, call.backend.name, acl)
            and tuple(t.role for t in decided.plan.tensors) == tuple(call.roles)):
        try:
            configured = Configured(call, decided.plan, decided.descs)
        except AclError:  # a kept description this buffer or this ACL refuses: decide afresh
            pass
        else:
            configured.recalled = True
            return configured, decided.facts, decided
    configured, facts = _configure(call)
    decision = None if layouts is None else Decision(
        call.kind, params, call.data_layout, call.options, layouts, configured.plan, facts,
        tuple(None if t is None else t.desc_content for t in configured.tensors.values()), call.backend.name, acl)
    return configured, facts, decision


def _configure(call: Call) -> Tuple[Configured, AclFacts]:
    specs = [call.spec(r) for r in call.roles]
    facts = AclFacts(required_padding=dict(zip(call.roles, negotiate_padding(call.kind, call.params, specs,
                                                                             call.backend))))
    try:
        plan, facts = decide(call, facts)  # the probe configures these layouts too
        return Configured(call, plan), facts
    except AclStatusError as e:
        if "Insufficient Padding" not in e.message or not call.options.allow_copy:
            raise
        auto = {r: auto_padding_from_acl(s, call.backend) for r, s in zip(call.roles, specs) if s is not None}
        facts = replace(facts, renegotiate=e.message, auto_padding=auto, writes_outside=None, layout_ok=None)
        plan, facts = decide(call, facts)  # everything staged: nothing left to probe
        return Configured(call, plan), facts
