"""Many functions made from their kept decisions in one native call, their Python objects
made when asked for.

A second start of a model (:mod:`acl_bridge.models.tflite_runner`) has a kept
:class:`~acl_bridge.decisions.Decision` for every function it makes. Made one at a time
(``AclFunction(..., decided=d)``: :func:`acl_bridge.executor.configure`), each function costs
Python of its own besides ACL's validate() and configure(): its arguments bound, every
tensor's layout key compared with the decision's, every kept description checked and made, a
native call per tensor, per import and per function. :func:`configure_recalled` makes the
native functions with one call, ``acl_shim_plan_create`` (native/acl_shim_plan.cpp): per
function the same tensors, the same validate() and configure() (joining the same workspace,
with the decision's native parameters) and the same imports, in the same order. What it
returns, :class:`RecalledFunctions`, runs as it is (a :class:`~acl_bridge.schedule.Schedule`
takes it); its :class:`~acl_bridge.functions.AclFunction` objects are made when someone asks
for them, each with its arguments bound and checked as its constructor would and its call
compared with its decision.

What is checked when the native functions are made: per function, that its decision plans
its roles, stages nothing and was made by this ACL and shim on this backend; per tensor, that
the kept description is of the array's element size and backend (Python) and addresses no
byte outside the memory given (native); then ACL's own validate(). What is not compared there
is the call's content (its parameters and each tensor's layout key): the caller vouches that
every call is the one its decision was made for. The runner does, by keeping a load's
decisions under the model file's content, its options and stamps of the code that lowers,
negotiates, allocates and decides (``TfliteRunner._recall_decisions``): given those, every
function's parameters and every buffer's layout are fixed (tests/models/test_facts_cache_acl.py
makes the objects after a batch and compares every layout key; a call that differs from its
decision when its object is made is an AclError).

All or nothing: where some decision does not fit (a plan that stages a tensor, functions in
different workspaces, a description for other elements or past its buffer) or ACL refuses
(everything it made is destroyed then), nothing is made, the reason is returned, and the
caller configures one function at a time (each still from its decision where it matches). A
refused batch may have joined functions to the workspace before they were destroyed: the
caller starts again with a fresh workspace.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Dict, Iterator, List, Optional, Tuple

from ndarray import NdArray
from ndarray.errors import ReadOnlyError

from . import abi
from . import configure_session as session
from .backend import Backend, backend_named
from .decisions import Decision
from .executor import Call, Configured, acl_identity, destroyer
from .functions import AclFunction, _as_ndarray
from .errors import AclError
from .native import check, require_native
from .tensor import desc_from_content
from .workspace import check_workspace


@dataclass(frozen=True)
class Recall:
    """One function to make: its class, its tensors (roles order; NdArrays or numpy arrays, None
    where absent) and keyword arguments, as they would be given to its constructor (``decided`` left out),
    and its kept decision."""

    cls: type
    args: Tuple[object, ...]
    kwargs: Dict[str, object]
    decision: Decision


def _mismatch(call: Call, d: Decision, params: bytes, acl: str) -> Optional[str]:
    """Why decision ``d`` is not this call's (the tensors' layouts aside; that it stages
    nothing, :func:`_unfit` saw when its function was made), or None."""
    if tuple(t.role for t in d.plan.tensors) != tuple(call.roles):
        return f"it plans the roles {[t.role for t in d.plan.tensors]}, the call has {list(call.roles)}"
    if not d.matches(call.kind, params, call.data_layout, call.options, d.layouts, call.backend.name, acl):
        return "its kind, parameters, data layout, options, backend or ACL differ from the call's"
    return None


class RecalledFunctions(Sequence):
    """The functions of one :func:`configure_recalled` call: their native functions exist (and
    run: :class:`~acl_bridge.schedule.Schedule` takes this sequence as it is); each becomes an
    :class:`~acl_bridge.functions.AclFunction` when first asked for (indexing or iterating makes
    them all), with its arguments bound and checked as its constructor would and its call
    compared with its decision (an AclError where they differ: the caller's promise broken).
    :attr:`plans`, :attr:`decisions` and :attr:`kinds` need none of that."""

    def __init__(self, recalls: Sequence[Recall], handles: Sequence, tensors: Sequence[Sequence]):
        self._recalls = tuple(recalls)
        self.handles = tuple(handles)  # the native functions (ffi.gc: each holds its buffers)
        self._tensors = tuple(tuple(t) for t in tensors)  # per function, its native tensors (or None)
        self.decisions: Tuple[Decision, ...] = tuple(r.decision for r in self._recalls)
        self.plans = tuple(d.plan for d in self.decisions)
        self.kinds: Tuple[str, ...] = tuple(d.kind for d in self.decisions)
        self._made: Optional[Tuple[AclFunction, ...]] = None
        # each function's seconds in the native call (its tensors, validate(), configure(), imports)
        self.seconds: Tuple[float, ...] = ()
        self._schedules: list = []  # weak references to schedules running these functions
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.plans)

    def __getitem__(self, i):  # type: ignore[override]
        return self.made()[i]

    def __iter__(self) -> Iterator[AclFunction]:
        return iter(self.made())

    @property
    def materialized(self) -> bool:
        """Whether the AclFunction objects have been made (:meth:`made`)."""
        return self._made is not None

    def made(self) -> Tuple[AclFunction, ...]:
        """The AclFunction objects, made on the first call (AclError once closed)."""
        with self._lock:
            if self._made is None:
                if not self.handles:
                    raise AclError("the functions are closed", what="RecalledFunctions")
                self._made = tuple(self._make(k) for k in range(len(self._recalls)))
                self._recalls, self._tensors = (), ()
            return self._made

    def _make(self, k: int) -> AclFunction:
        ffi, _ = require_native()
        r, handle, tensors = self._recalls[k], self.handles[k], self._tensors[k]
        f = r.cls.__new__(r.cls)  # type: ignore[call-overload]
        call = f._prepare(r.args, **r.kwargs)
        why = _mismatch(call, r.decision, ffi.buffer(call.params)[:], acl_identity())
        if why is not None:
            raise AclError(f"function {k} ({call.kind}) was made from a decision that is not its call's: {why}",
                           what="RecalledFunctions")
        f._finish(Configured.adopt(call, r.decision.plan, handle, tensors, r.decision.descs), r.decision.facts,
                  r.decision)
        f._schedules.extend(self._schedules)
        return f

    def register_schedule(self, ref) -> None:
        """A schedule runs these functions (closing them invalidates it first)."""
        self._schedules.append(ref)
        if self._made is not None:
            for f in self._made:
                f._schedules.append(ref)

    def close(self) -> None:
        """Close every function: the AclFunction objects where made, else the native functions
        are let go (after any schedule running them is invalidated: a run in progress ends
        first). Idempotent."""
        with self._lock:
            made, self._made = self._made, None
            for ref in self._schedules:
                schedule = ref()
                if schedule is not None:
                    schedule._invalidate("its functions were closed")
            self._schedules = []
            self.handles, self._tensors, self._recalls = (), (), ()
        for f in made or ():
            f.close()

    def __repr__(self) -> str:
        state = "made" if self._made is not None else ("closed" if not self.handles else "native only")
        return f"RecalledFunctions({len(self.plans)} functions, {state})"


def configure_recalled(recalls: Sequence[Recall]) -> Tuple[Optional[RecalledFunctions], str]:
    """Every function of ``recalls`` made from its decision in one native call, in order:
    (the functions, "") or, where any does not fit or ACL refuses, (None, why) and nothing
    made (module docstring). An output that is read-only raises ReadOnlyError, as its
    constructor would."""
    ffi, lib = require_native()
    n = len(recalls)
    desc_size, params_size = ffi.sizeof("acl_shim_tensor_desc"), ffi.sizeof("acl_shim_params")
    recalls = [_with_ndarrays(r) for r in recalls]
    # one flat array per field for the whole batch (a function's entries are a slice of it):
    # descriptions and parameters copied in with one memmove each
    contents: List[bytes] = []
    bases: List[int] = []
    available: List[int] = []
    sizes: List[int] = []
    scaled: List[Tuple[int, bytes]] = []  # (index, description with per-channel scales appended)
    backends: List[int] = []
    workspaces = {id(check_workspace(r.kwargs.get("workspace"))) for r in recalls}
    if len(workspaces) > 1:
        return None, f"the functions are in {len(workspaces)} workspaces; one native call takes one"
    workspace = check_workspace(recalls[0].kwargs.get("workspace")) if n else None
    for i, r in enumerate(recalls):
        d = r.decision
        backend = backend_named(r.kwargs.get("backend", "neon"))
        why = _unfit(r, d, params_size, backend)
        if why is not None:
            return None, f"function {i} ({d.kind}): {why}"
        backends.append(backend.code or 0)
        for role, a, content in zip(r.cls.roles, r.args, d.descs):  # type: ignore[attr-defined]
            if content is None or a is None:
                if (content is None) != (a is None):
                    return None, (f"function {i} ({d.kind}): {role} is {'absent' if a is None else 'given'}, its "
                                  f"decision {'has no' if content is None else 'has a'} description")
                contents.append(bytes(desc_size))
                bases.append(0)
                available.append(0)
                sizes.append(0)
                continue
            if len(content) != desc_size:  # per-channel scales after the struct (tensor.desc_content)
                scaled.append((len(contents), content))
                content = content[:desc_size]
            contents.append(content)
            bases.append(a.base_ptr)  # type: ignore[union-attr]
            available.append(a.allocation.nbytes)  # type: ignore[union-attr]
            sizes.append(a.dtype.itemsize)  # type: ignore[union-attr]
    total = len(contents)
    descs = ffi.new("acl_shim_tensor_desc[]", max(total, 1))
    ffi.memmove(descs, b"".join(contents), total * desc_size)
    keep: list = []  # every cffi object the native call reads, alive until it returns
    for k, content in scaled:  # their scales pointed to again, as tensor.desc_from_content does
        d_k = desc_from_content(content)
        descs[k].quantization_scales = d_k.quantization_scales
        keep.append(d_k)
    params = ffi.new("acl_shim_params[]", max(n, 1))
    ffi.memmove(params, b"".join(r.decision.params for r in recalls), n * params_size)
    base_owner = ffi.new("uintptr_t[]", bases or [0])  # addresses as integers, read as void *
    base_array = ffi.cast("void **", base_owner)
    keep.append(base_owner)
    available_array = ffi.new("uint64_t[]", available or [0])
    size_array = ffi.new("uint32_t[]", sizes or [0])
    planned = ffi.new("acl_shim_planned_function[]", max(n, 1))
    at = 0
    for i, r in enumerate(recalls):
        p, m = planned[i], len(r.args)
        p.kind, p.params, p.backend, p.num_tensors = abi.KINDS[r.decision.kind], params + i, backends[i], m
        p.descs, p.bases = descs + at, base_array + at
        p.available_in_bytes, p.element_sizes_in_bytes = available_array + at, size_array + at
        at += m
    out_functions = ffi.new("acl_shim_function *[]", max(n, 1))
    out_tensors = ffi.new("acl_shim_tensor *[]", max(total, 1))
    failed = ffi.new("int32_t *")
    seconds = ffi.new("double[]", max(n, 1))
    with session.timed("configure"):  # ACL's validate() and configure(), tensors and imports, all functions
        status = lib.acl_shim_plan_create(ffi.NULL if workspace is None else workspace.handle, planned, n,
                                          out_functions, out_tensors, seconds, failed)
    try:
        check(status, "plan_create")
    except AclError as e:  # ACL, or the bounds check, refused a function: nothing was made
        return None, str(e)
    # owned at once, before any other Python can raise: each function holds its buffers
    handles, tensors = [], []
    t = 0
    for i, r in enumerate(recalls):
        roles = r.cls.roles  # type: ignore[attr-defined]
        handles.append(ffi.gc(out_functions[i], destroyer(lib.acl_shim_function_destroy, dict(zip(roles, r.args)))))
        mine = []
        for _ in roles:
            h = out_tensors[t]
            t += 1
            mine.append(None if h == ffi.NULL else ffi.gc(h, lib.acl_shim_tensor_destroy))
        tensors.append(mine)
    made = RecalledFunctions(recalls, handles, tensors)
    made.seconds = tuple(seconds[i] for i in range(n))
    return made, ""


def _with_ndarrays(r: Recall) -> Recall:
    """``r`` with its numpy arrays wrapped as NdArrays (as its constructor wraps them: the
    objects whose memory ACL is given, kept for when the function's object is made)."""
    roles = getattr(r.cls, "roles", ())
    if len(roles) != len(r.args) or all(a is None or isinstance(a, NdArray) for a in r.args):
        return r  # (a count that does not match is _unfit's to say)
    return replace(r, args=tuple(a if a is None or isinstance(a, NdArray) else _as_ndarray(a, role)
                                 for role, a in zip(roles, r.args)))


def _unfit(r: Recall, d: Decision, params_size: int, backend: Backend) -> Optional[str]:
    """Why a recall cannot go into the batch as it is (before any description is read)."""
    roles = getattr(r.cls, "roles", None)
    if roles is None or not (len(roles) == len(r.args) == len(d.descs) == len(d.plan.tensors)):
        return f"{len(r.args)} tensors and a decision of {len(d.descs)} for the roles {roles}"
    if d.plan.staged:
        return f"its plan stages {list(d.plan.staged)}"
    if len(d.params) != params_size or d.kind not in abi.KINDS:
        return f"its kind {d.kind!r} or parameters ({len(d.params)} bytes) are not this shim's"
    if d.acl != acl_identity() or d.backend != backend.name:
        return f"it was decided by {d.acl} on {d.backend}"
    for role, a in zip(roles, r.args):  # ACL would write into memory nobody may write
        if role in getattr(r.cls, "outputs", ()) and a is not None and a.readonly:  # type: ignore[union-attr]
            raise ReadOnlyError(f"{role} is written by {d.kind} but is read-only: {a!r}")
    return None


__all__ = ["Recall", "RecalledFunctions", "configure_recalled"]
