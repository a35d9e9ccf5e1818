"""Many functions made from their kept decisions in one native call, their Python objects
made when asked for.

A second start of a model (:mod:`acl_bridge.models.runtime.tflite_runner`) has a kept
:class:`~acl_bridge.decisions.Decision` for every function it makes. Made one at a time
(``AclFunction(..., decided=d)``: :func:`acl_bridge.executor.configure`), each function costs
Python of its own besides ACL's validate() and configure(): its arguments bound, every
tensor's layout key compared with the decision's, every kept description checked and made, a
native call per tensor, per import and per function. :func:`configure_kept` makes the
native functions with one call, ``acl_shim_plan_create`` (native/acl_shim_plan.cpp), from the
decisions as the facts cache keeps them (:class:`~acl_bridge.decisions.KeptDecisions`: their
native records handed over as they are): per function the same tensors, the same validate()
and configure() (joining the same workspace, with the decision's native parameters) and the
same imports, in the same order. What it
returns, :class:`RecalledFunctions`, runs as it is (a :class:`~acl_bridge.schedule.Schedule`
takes it); its :class:`~acl_bridge.functions.AclFunction` objects are made when someone asks
for them, each with its arguments bound and checked as its constructor would and its call
compared with its decision. :func:`prepare_kept` and :class:`PreparedBatch` are
:func:`configure_kept` in its two parts, the Python and the native call, for a caller that
makes the call on another thread (:mod:`acl_bridge.configure_beside`).

What is checked before the native call, since the decisions come from a file
(docs/robustness.md, "What the caches trust"): per function, that its decision plans as many
tensors as the function has roles, stages nothing and was made by this ACL and shim on this
backend, that its kind, native parameters (as bytes), data layout and plan options are the
call's (made once per distinct class, options and quantization: a model repeats them), and
that a tensor is given exactly where its decision has a description; per tensor, that the
kept description's shape, strides, offset, size, data type, layout and quantization are those
``tensor_info`` gives for the array and the call (the leading bytes of every record compared),
with any per-channel scales equal to the call's; the kept scales' pointers and counts are
cleared and pointed again only at the scales this batch copied. Natively, that each
description is of the array's element size and the function's backend and addresses no byte
outside the memory given (overflow-checked); then ACL's own validate(). The objects made
later compare each call with its decision once more.

All or nothing: where some decision does not fit (a plan that stages a tensor, functions in
different workspaces, a description for other elements or past its buffer) or ACL refuses
(everything it made is destroyed then), nothing is made, the reason is returned, and the
caller configures one function at a time (each still from its decision where it matches). A
refused batch may have joined functions to the workspace before they were destroyed: the
caller starts again with a fresh workspace.
"""

from __future__ import annotations

import bisect
import struct
from itertools import chain
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np

from ndarray import NdArray
from ndarray.errors import AclNdarrayError, ReadOnlyError

from . import abi
from . import configure_session as session
from .backend import backend_named
from .decisions import Decision, KeptDecisions
from .executor import Call, Configured, acl_identity, destroyer
from .functions import AclFunction, _as_ndarray
from .mapping import (PerChannelQuantization, SymmetricQuantization, _types, data_type_for, is_per_channel,
                      size1_strides)
from .errors import AclError
from .native import check, require_native
from .tensor import RECORD_DIM_ZEROS, desc_from_content, record_format
from .workspace import check_workspace


@dataclass(frozen=True)
class Recall:
    """One function to make: its class, its tensors (roles order; NdArrays or numpy arrays, None
    where absent) and keyword arguments, as they would be given to its constructor (``decided``
    left out), and its kept decision."""

    cls: type
    args: Tuple[object, ...]
    kwargs: Dict[str, object]
    decision: Decision


def _mismatch(call: Call, d: Decision, params: bytes, acl: str) -> Optional[str]:
    """Why decision ``d`` is not this call's (the tensors' layouts aside; that it stages
    nothing, :func:`configure_kept` saw when its function was made), or None."""
    if tuple(t.role for t in d.plan.tensors) != tuple(call.roles):
        return f"it plans the roles {[t.role for t in d.plan.tensors]}, the call has {list(call.roles)}"
    if not d.matches(call.kind, params, call.data_layout, call.options, d.layouts, call.backend.name, acl):
        return "its kind, parameters, data layout, options, backend or ACL differ from the call's"
    return None


class RecalledFunctions(Sequence):
    """The functions of one :func:`configure_kept` call: their native functions exist (and
    run: :class:`~acl_bridge.schedule.Schedule` takes this sequence as it is); each becomes an
    :class:`~acl_bridge.functions.AclFunction` when first asked for (indexing or iterating makes
    them all), with its arguments bound and checked as its constructor would and its call
    compared with its decision (an AclError where they differ: the caller's promise broken).
    :attr:`plans`, :attr:`decisions` and :attr:`kinds` need none of that."""

    def __init__(self, calls: Sequence[Tuple[type, tuple, dict]], kept: KeptDecisions, handles: Sequence,
                 tensors: Sequence[Sequence]):
        self._calls = tuple(calls)  # per function: (class, tensors, keyword arguments)
        self.handles = tuple(handles)  # the native functions (ffi.gc: each holds its buffers)
        self._tensors = tuple(tuple(t) for t in tensors)  # per function, its native tensors (or None)
        self.decisions: Sequence[Decision] = kept  # each Decision made when indexed
        self.plans = kept.plans
        self.kinds: Tuple[str, ...] = kept.kinds
        self._made: Optional[Tuple[AclFunction, ...]] = None
        # each function's seconds in the native call (its tensors, validate(), configure(), imports)
        self.seconds: Tuple[float, ...] = ()
        self._schedules: list = []  # weak references to schedules running these functions
        self._lock = threading.Lock()
        # made from decisions kept by an earlier process (False: decided by this start,
        # acl_bridge.configure_cold): each object's decision_recalled
        self.recalled = True

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
                self._made = tuple(self._make(k) for k in range(len(self._calls)))
                self._calls, self._tensors = (), ()
            return self._made

    def _make(self, k: int) -> AclFunction:
        ffi, _ = require_native()
        (cls, args, kwargs), decision = self._calls[k], self.decisions[k]
        handle, tensors = self.handles[k], self._tensors[k]
        f = cls.__new__(cls)  # type: ignore[call-overload]
        call = f._prepare(args, **kwargs)
        why = _mismatch(call, decision, ffi.buffer(call.params)[:], acl_identity())
        if why is not None:
            raise AclError(f"function {k} ({call.kind}) was made from a decision that is not its call's: {why}",
                           what="RecalledFunctions")
        f._finish(Configured.adopt(call, decision.plan, handle, tensors, decision.descs), decision.facts, decision)
        f.decision_recalled = self.recalled
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
            self.handles, self._tensors, self._calls = (), (), ()
        for f in made or ():
            f.close()

    def __repr__(self) -> str:
        state = "made" if self._made is not None else ("closed" if not self.handles else "native only")
        return f"RecalledFunctions({len(self.plans)} functions, {state})"


def configure_recalled(recalls: Sequence[Recall]) -> Tuple[Optional[RecalledFunctions], str]:
    """Every function of ``recalls`` made from its decision in one native call, in order:
    :func:`configure_kept` with their decisions."""
    return configure_kept([(r.cls, r.args, r.kwargs) for r in recalls], [r.decision for r in recalls])


def configure_kept(calls: Sequence[Tuple[type, tuple, dict]], decisions: Sequence[Decision],
                   decided_here: bool = False) -> Tuple[Optional[RecalledFunctions], str]:
    """Every function of ``calls`` ((class, tensors, keyword arguments), as its constructor
    would be given them, ``decided`` left out) made from ``decisions[k]`` in one native call, in
    order: (the functions, "") or, where any does not fit or ACL refuses, (None, why) and
    nothing made (module docstring). The kept records go to the native call as they are. An
    output that is read-only raises ReadOnlyError, as its constructor would. ``decided_here``:
    the decisions were made in this process from these very calls and arrays
    (:func:`acl_bridge.configure_cold.decide_calls`), not read from a file: each call's
    options, parameters and descriptions are then not compared with its decision again (the
    rest is checked, natively too, as for kept ones)."""
    batch, why = prepare_kept(calls, decisions, decided_here)
    if batch is None:
        return None, why
    with session.timed("configure"):  # ACL's validate() and configure(), tensors and imports, all functions
        batch.create()
    return batch.made()


class PreparedBatch:
    """One :func:`configure_kept` call made ready and checked in Python (:func:`prepare_kept`):
    :meth:`create` is the native call alone (it may run on another thread: it holds no Python
    object's state but its own), :meth:`owned` or :meth:`made` take what it made."""

    def __init__(self, calls: List[Tuple[type, tuple, dict]], decisions: Sequence[Decision], kept: KeptDecisions,
                 keep: list, workspace, planned, total: int):
        self.calls, self.decisions, self.kept, self.total = calls, decisions, kept, total  # total: tensors, all roles
        self.n = len(calls)
        self._keep, self._workspace, self._planned = keep, workspace, planned  # alive until create() returns
        self.status: Optional[int] = None  # the native call's, once made
        self._refused: Optional[AclError] = None  # what a refusing status raised, with ACL's message
        self._owned = False

    def create(self) -> None:
        """ACL's validate() and configure(), the tensors and imports of every function (once)."""
        ffi, lib = require_native()
        if self.status is not None:
            raise RuntimeError("this batch was created already")
        n, total = self.n, self.total
        self._functions = ffi.new("acl_shim_function *[]", max(n, 1))
        self._tensors = ffi.new("acl_shim_tensor *[]", max(total, 1))
        self._failed = ffi.new("int32_t *")
        self._seconds = ffi.new("double[]", max(n, 1))
        self.status = lib.acl_shim_plan_create(ffi.NULL if self._workspace is None else self._workspace.handle,
                                               self._planned, n, self._functions, self._tensors, self._seconds,
                                               self._failed)
        try:  # (ACL's message is the calling thread's: taken here)
            check(self.status, "plan_create")
        except AclError as e:
            self._refused = e

    @property
    def failed_index(self) -> int:
        """The index in this batch of the function ACL or the bounds check refused (-1: none)."""
        return -1 if self._refused is None else int(self._failed[0])

    def owned(self) -> Tuple[list, list, Tuple[float, ...]]:
        """(per function its native handle, its native tensors, its seconds in the call), each
        owned now (each function holds its buffers); AclError where ACL, or the bounds check,
        refused a function: nothing was made then."""
        ffi, lib = require_native()
        if self.status is None or self._owned:
            raise RuntimeError("this batch was not created, or what it made is owned already")
        self._owned = True
        if self._refused is not None:
            raise self._refused
        handles, tensors = [], []
        t = 0
        for i, (cls, args, _) in enumerate(self.calls):
            roles = cls.roles  # type: ignore[attr-defined]
            handles.append(ffi.gc(self._functions[i],
                                  destroyer(lib.acl_shim_function_destroy, dict(zip(roles, args)))))
            mine = []
            for _ in roles:
                h = self._tensors[t]
                t += 1
                mine.append(None if h == ffi.NULL else ffi.gc(h, lib.acl_shim_tensor_destroy))
            tensors.append(mine)
        seconds = tuple(self._seconds[i] for i in range(self.n))
        self._functions = self._tensors = self._planned = None
        self._keep = []
        return handles, tensors, seconds

    def made(self) -> Tuple[Optional[RecalledFunctions], str]:
        """(the functions, "") as :func:`configure_kept` returns them, or (None, why)."""
        try:
            handles, tensors, seconds = self.owned()
        except AclError as e:
            return None, str(e)
        made = RecalledFunctions(self.calls, self.kept, handles, tensors)
        made.seconds = seconds
        return made, ""


def prepare_kept(calls: Sequence[Tuple[type, tuple, dict]], decisions: Sequence[Decision],
                 decided_here: bool = False) -> Tuple[Optional[PreparedBatch], str]:
    """:func:`configure_kept`'s work before its native call: (the batch, "") or (None, why)
    where some decision does not fit (nothing asked of ACL)."""
    ffi, _ = require_native()
    n = len(calls)
    try:  # as the facts cache keeps them: as they are (decided here: plans and facts by object)
        kept = KeptDecisions.of(decisions, by_identity=decided_here)
    except ValueError as e:
        return None, str(e)
    if len(kept) != n:
        return None, f"{n} functions and {len(kept)} decisions"
    desc_size, params_size = ffi.sizeof("acl_shim_tensor_desc"), ffi.sizeof("acl_shim_params")
    if n and kept.params_size != params_size:
        return None, f"the kept parameters are of {kept.params_size} bytes, this shim's of {params_size}"
    calls = [_with_ndarrays(c) for c in calls]
    workspaces = {id(w): w for w in (check_workspace(kwargs.get("workspace")) for _, _, kwargs in calls)}
    if len(workspaces) > 1:
        return None, f"the functions are in {len(workspaces)} workspaces; one native call takes one"
    workspace = next(iter(workspaces.values()), None)
    # what holds for every function of a distinct plan or head, found once
    staged = [p.staged for p in kept.distinct_plans]
    acl = acl_identity()
    heads = [(kind in abi.KINDS, a == acl) for kind, _, _, a, _ in kept.heads]
    bases: List[int] = []
    available: List[int] = []
    sizes: List[int] = []
    backends: List[int] = []
    tensor_layouts = kept.tensors
    expected: List[bytes] = []  # per given tensor, the compared fields of its description as bytes
    fmt = _compared_format(ffi)
    given: List[int] = []  # the tensors (indices into the batch's) that are given
    per_channel: Dict[int, Tuple[float, ...]] = {}  # per-channel scales the call describes
    types: Dict[tuple, int] = {}  # (dtype, kind of quantization) -> data type code
    t = 0
    contents: Dict[object, object] = {}  # (class, options) -> (kind, native parameters, quantization) or why not
    # per head: what a call's kind, data layout and options must be
    heads_wanted = [(kind, layout, o.allow_copy, o.allow_padding_writes) for kind, layout, _, _, o in kept.heads]
    described: Dict[tuple, bytes] = {}  # (descriptor, data layout, quantization) -> expected bytes
    for i, ((cls, args, kwargs), (h, p, _)) in enumerate(zip(calls, kept.functions)):
        backend = backend_named(kwargs.get("backend", "neon"))
        roles = getattr(cls, "roles", None)
        kind = kept.heads[h][0]
        if roles is None or not (len(roles) == len(args) == len(kept.distinct_plans[p].tensors)):
            return None, f"function {i} ({kind}): {len(args)} tensors and a decision for the roles {roles}"
        if not decided_here:
            why, quant = _not_this_call(ffi, cls, args, kwargs, kept, i, contents, heads_wanted[h])
            if why:
                return None, f"function {i} ({kind}): its decision is not this call's: {why}"
        layout_code = abi.DATA_LAYOUTS.get(kwargs.get("data_layout", "NCHW"), -1)
        if staged[p]:
            return None, f"function {i} ({kind}): its plan stages {list(staged[p])}"
        known_kind, same_acl = heads[h]
        if not known_kind:
            return None, f"function {i} ({kind}): its kind is not this shim's"
        if not same_acl or kept.heads[h][2] != backend.name:
            return None, f"function {i} ({kind}): it was decided by {kept.heads[h][3]} on {kept.heads[h][2]}"
        backends.append(backend.code or 0)
        outputs = getattr(cls, "outputs", ())
        for role, a in zip(roles, args):
            absent = tensor_layouts[t] < 0
            t += 1
            if a is None or absent:
                if absent != (a is None):
                    return None, (f"function {i} ({kind}): {role} is {'absent' if a is None else 'given'}, its "
                                  f"decision {'has no' if absent else 'has a'} description")
                bases.append(0)
                available.append(0)
                sizes.append(0)
                continue
            if role in outputs and a.readonly:  # ACL would write into memory nobody may write
                raise ReadOnlyError(f"{role} is written by {kind} but is read-only: {a!r}")
            bases.append(a.base_ptr)
            available.append(a.allocation.nbytes)
            sizes.append(a.dtype.itemsize)
            if decided_here:
                continue
            q = quant.get(role)
            try:
                expected.append(_expected_desc(a, layout_code, q, types, fmt, described))
            except AclNdarrayError as e:
                return None, f"function {i} ({kind}): {role} cannot be described: {e}"
            given.append(t - 1)
            if q is not None and a.dtype == _INT8 and is_per_channel(q):  # a bias's scales stay in Python
                per_channel[t - 1] = q.scales if isinstance(q, PerChannelQuantization) else q[0]  # type: ignore
    total = len(bases)
    if kept.desc_size != desc_size and any(x >= 0 for x in tensor_layouts):
        return None, f"the kept descriptions are of {kept.desc_size} bytes, this shim's of {desc_size}"
    descs = ffi.new("acl_shim_tensor_desc[]", max(total, 1))
    if kept.desc_size == desc_size:  # the records as kept, zeros where absent
        ffi.memmove(descs, kept.desc_blob, total * desc_size)
        _clear_scales(ffi, descs, total, desc_size)  # a kept pointer is never used: NULL and no count
        why = "" if decided_here else _descs_not_the_calls(kept, expected, given, per_channel,
                                                            lambda k: _tensor_name(calls, kept, k))
        if why:
            return None, why
    keep: list = []  # every cffi object the native call reads, alive until it returns
    for k, tail in kept.desc_tails.items():  # per-channel scales pointed to again, as tensor.desc_from_content does
        if not 0 <= k < total:
            return None, f"a kept description's scales are for tensor {k}, the functions have {total}"
        try:
            d_k = desc_from_content(kept.desc_blob[k * desc_size:(k + 1) * desc_size] + tail)
        except AclError as e:  # scales that do not fit their description: decided afresh
            return None, f"tensor {k}'s kept description: {e}"
        # pointer and count both from the tail this call built (desc_from_content checked them)
        descs[k].quantization_scales = d_k.quantization_scales
        descs[k].quantization_scales_count = d_k.quantization_scales_count
        keep.append(d_k)
    params = ffi.new("acl_shim_params[]", max(n, 1))
    ffi.memmove(params, kept.params_blob, n * params_size)
    base_owner = ffi.new("uintptr_t[]", bases or [0])  # addresses as integers, read as void *
    base_array = ffi.cast("void **", base_owner)
    keep.append(base_owner)
    available_array = ffi.new("uint64_t[]", available or [0])
    size_array = ffi.new("uint32_t[]", sizes or [0])
    planned = ffi.new("acl_shim_planned_function[]", max(n, 1))
    for i, (kind, at, (_, args, _)) in enumerate(zip(kept.kinds, kept.starts, calls)):
        p = planned[i]
        p.kind, p.params, p.backend, p.num_tensors = abi.KINDS[kind], params + i, backends[i], len(args)
        p.descs, p.bases = descs + at, base_array + at
        p.available_in_bytes, p.element_sizes_in_bytes = available_array + at, size_array + at
    keep.extend((params, available_array, size_array, descs))
    return PreparedBatch(calls, decisions, kept, keep, workspace, planned, total), ""


# the constructor's keywords that are not the kind's options (AclFunction._prepare)
_NOT_OPTIONS = frozenset(("data_layout", "quantization", "allow_copy", "allow_padding_writes", "backend", "workspace"))


def _not_this_call(ffi, cls: type, args: tuple, kwargs: dict, kept: KeptDecisions, i: int,
                   contents: Dict[object, object], wanted: tuple) -> Tuple[str, Dict[str, object]]:
    """(why function ``i``'s kept decision was not made for this call, or ""; the call's
    quantization per role, as its tensors are described): its kind, data layout and plan
    options (``wanted``: its head's) compared as one tuple, its native parameters as bytes. The
    call's kind and parameters are made once per distinct class and options (a model repeats
    them) without binding its tensors; a call its class refuses is not this batch's to say."""
    try:  # the options as given, with their types (1.0 and True are equal to 1, and refused where it
        # is taken): a key of the memo (an order of their own only costs a miss)
        options = tuple([kv for kv in kwargs.items() if kv[0] not in _NOT_OPTIONS])
        key: object = (cls, options, _types(options))
        content = contents.get(key)
    except TypeError:  # an option without a hash (a list): made for this call alone
        key, content = None, None
    if content is None:
        content = _call_content(ffi, cls, args, kwargs)
        if key is not None:
            contents[key] = content
    if type(content) is str:
        return content, {}
    kind, params, from_options = content  # type: ignore[misc]
    quantization = kwargs.get("quantization") or _NONE
    if type(quantization) is not dict:  # pairs, or another mapping: as the constructor reads them
        quantization = dict(quantization)
    quant = {**quantization, **from_options} if from_options else quantization
    size = kept.params_size
    if (kind, kwargs.get("data_layout", "NCHW"), bool(kwargs.get("allow_copy", True)),
            bool(kwargs.get("allow_padding_writes", False))) == wanted and \
            params == kept.params_blob[i * size:(i + 1) * size]:
        return "", quant
    kept_kind, data_layout, _, _, options = kept.heads[kept.functions[i][0]]
    if kind != kept_kind:
        return f"it was made for {kept_kind}, the call is {kind}", quant
    if params != kept.params_blob[i * size:(i + 1) * size]:
        return "its native parameters differ from the call's", quant
    call_layout = kwargs.get("data_layout", "NCHW")
    if call_layout != data_layout:
        return f"it was made for data layout {data_layout}, the call's is {call_layout}", quant
    return f"it was made with {options}, the call's differ", quant


_NONE: Dict[str, object] = {}  # (never written)
_INT8 = np.dtype(np.int8)


def _call_content(ffi, cls: type, args: tuple, kwargs: dict) -> object:
    """(kind, native parameters as bytes, quantization given as options) of a call, as its
    constructor's ``_call`` makes them from the options given by keyword, or why the class
    refuses them (a str)."""
    opts = {k: v for k, v in kwargs.items() if k not in _NOT_OPTIONS}
    try:
        try:  # what the constructor's _call makes of options given by keyword, without binding them
            kind, params = cls._kind(**opts), cls._params(**opts)  # type: ignore[attr-defined]
        except TypeError:  # an option the kind's parameters do not take: the constructor's own path
            _, kind, params, _ = cls._call(args, dict(opts), kwargs.get("quantization"))  # type: ignore[attr-defined]
        from_options = cls._quantization(**opts)  # type: ignore[attr-defined]
    except (AclNdarrayError, TypeError, ValueError) as e:
        return f"the call is refused: {e}"
    return kind, bytes(ffi.buffer(params)), from_options


# the leading fields of a kept description compared with the call's array, in the header's order
# (what tensor_info puts there); the fields after them (declared padding, backend, the scales'
# pointer and count) are checked natively or set by the batch itself
_COMPARED = ("num_dims", "shape", "strides_in_bytes", "offset_first_element_in_bytes", "total_size_in_bytes",
             "data_type", "data_layout", "quantization_scale", "quantization_offset")
_FORMATS: Dict[int, Tuple[struct.Struct, struct.Struct]] = {}


def _compared_format(ffi) -> Tuple[struct.Struct, struct.Struct]:
    """The compared fields of ``acl_shim_tensor_desc`` as two struct formats that together make
    its leading bytes: its dimensions (rank, shape, strides) and the rest (offset, size, data
    type, layout, quantization); offsets and sizes from the header's own struct, padding between
    fields as pad bytes (which a kept record has as zeros). Made once per ffi."""
    formats = _FORMATS.get(id(ffi))
    if formats is None:
        dims = record_format(ffi, _COMPARED[:3])
        formats = _FORMATS[id(ffi)] = (dims, record_format(ffi, _COMPARED[3:], start=dims.size))
    return formats


def _expected_desc(a: NdArray, layout_code: int, q: object, types: Dict[tuple, int],
                   fmt: Tuple[struct.Struct, struct.Struct], described: Dict[tuple, bytes]) -> bytes:
    """The compared fields (:data:`_COMPARED`) of the description ACL is given for ``a`` with
    quantization ``q``, as the bytes a kept record starts with: what
    :func:`~acl_bridge.mapping.tensor_info` puts there (shape and strides in ACL order, those of
    a dimension of size 1 made dense as it makes them), read straight from the descriptor's
    cached facts (a second start describes hundreds of tensors). ``types`` keeps each (dtype,
    kind of quantization)'s data type code; ``described`` each (descriptor, layout,
    quantization)'s bytes (a tensor is the output of one function and the input of the next:
    described once; the descriptors are alive while the batch is made) and each distinct
    (shape, strides, element size)'s dimension bytes."""
    d = a._descriptor
    if q is None:
        kind, scale, offset = 0, 0.0, 0
    elif is_per_channel(q):
        kind, scale, offset = 1, 0.0, 0
    elif isinstance(q, SymmetricQuantization):  # QSYMM8 / QSYMM16 (the qlstm family)
        kind, scale, offset = 3, float(q.scale), 0
    else:
        kind, scale, offset = 2, float(q[0]), int(q[1])  # type: ignore[index]
    key = (id(d), layout_code, kind, scale, offset)
    got = described.get(key)
    if got is None:
        dims_key = (d.shape, d.strides_in_bytes, d.itemsize)
        dims = described.get(dims_key)
        if dims is None:
            dims = described[dims_key] = _dimensions(d, fmt[0])
        code = types.get((d.dtype, kind))
        if code is None:
            code = types[(d.dtype, kind)] = abi.DATA_TYPES[data_type_for(d.dtype, q)]
        got = described[key] = dims + fmt[1].pack(d.offset_in_bytes, d.alloc_size_in_bytes, code, layout_code,
                                                  scale, offset)
    return got


def _dimensions(d, fmt: struct.Struct) -> bytes:
    """The rank, shape and strides of descriptor ``d`` as a kept record starts with them (in
    ACL's order, a scalar as one element, the stride of a dimension of size 1 as
    :func:`~acl_bridge.mapping.size1_strides` gives it)."""
    shape, strides = d.shape, list(d.strides_in_bytes)
    if not shape:
        shape, strides = (1,), [d.itemsize]
    strides = size1_strides(d, shape, strides)  # mapping.acl_shape_and_strides' rule for size-1 dimensions
    pad = RECORD_DIM_ZEROS[:abi.MAX_DIMS - len(shape)]
    return fmt.pack(len(shape), *shape[::-1], *pad, *strides[::-1], *pad)


def _tensor_name(calls: Sequence[Tuple[type, tuple, dict]], kept: KeptDecisions, k: int) -> str:
    """Tensor ``k`` of the batch as its function and role (for a message)."""
    i = bisect.bisect_right(kept.starts, k) - 1
    return f"function {i} ({kept.kinds[i]}) {calls[i][0].roles[k - kept.starts[i]]}"  # type: ignore[attr-defined]


def _descs_not_the_calls(kept: KeptDecisions, expected: List[bytes], given: List[int],
                         per_channel: Dict[int, Tuple[float, ...]], name: Callable[[int], str]) -> str:
    """Why the kept descriptions are not those of the call's arrays, or "": each given tensor's
    record starts with its ``expected`` bytes (for the tensors ``given``; ``name`` names one),
    and the per-channel scales kept are the call's."""
    blob, size = kept.desc_blob, kept.desc_size
    if not _leading_bytes_equal(blob, size, given, expected):
        for k, want in zip(given, expected):  # which one
            if blob[k * size:k * size + len(want)] != want:
                return (f"{name(k)}: its kept description is not its array's (shape, strides, offset, "
                        f"size, data type, layout or quantization differ)")
    if set(kept.desc_tails) != set(per_channel):
        return (f"per-channel scales are kept for tensors {sorted(kept.desc_tails)}, the call describes them "
                f"for {sorted(per_channel)}")
    order = sorted(per_channel)  # every tensor's scales at once: the kept tails joined against the call's
    if b"".join(kept.desc_tails[k] for k in order) == _float32_bytes(per_channel, order):
        return ""
    for k in order:  # which one
        if kept.desc_tails[k] != np.asarray(per_channel[k], np.float32).tobytes():
            return f"tensor {k}'s kept per-channel scales are not the call's"
    return ""


def _float32_bytes(scales: Dict[int, Tuple[float, ...]], order: List[int]) -> Optional[bytes]:
    """The scales of tensors ``order`` one after the other as float32 bytes (one conversion),
    or None where one is not a sequence of numbers (the caller compares tensor by tensor)."""
    try:
        return np.array(list(chain.from_iterable(scales[k] for k in order)), np.float32).tobytes()
    except (TypeError, ValueError):
        return None


def _leading_bytes_equal(blob: bytes, size: int, given: List[int], expected: List[bytes]) -> bool:
    """Whether record ``given[j]`` of ``blob`` (records of ``size`` bytes) starts with
    ``expected[j]``, for every j: one comparison of the records' leading bytes, gathered, with
    the expectations joined (False where they differ in length or lie past the blob: the
    caller compares one by one)."""
    if not given:
        return True
    n, want = len(expected[0]), b"".join(expected)
    if size < n or len(want) != n * len(given) or len(blob) < (max(given) + 1) * size:
        return False
    records = np.frombuffer(blob, np.uint8, count=len(blob) // size * size).reshape(-1, size)
    return records[given, :n].tobytes() == want


def _clear_scales(ffi, descs, total: int, desc_size: int) -> None:
    """Zero the per-channel scales' pointer and count of ``total`` records at ``descs`` (one
    numpy store each, not a cffi store per record): a pointer read from a file is never given
    to the native layer; the scales that belong to a record are pointed to again from its tail."""
    raw = np.frombuffer(ffi.buffer(descs, total * desc_size), np.uint8).reshape(total, desc_size)
    at = ffi.offsetof("acl_shim_tensor_desc", "quantization_scales")
    raw[:, at:at + ffi.sizeof("float *")] = 0
    at = ffi.offsetof("acl_shim_tensor_desc", "quantization_scales_count")
    raw[:, at:at + ffi.sizeof("uint32_t")] = 0


def _with_ndarrays(c: Tuple[type, tuple, dict]) -> Tuple[type, tuple, dict]:
    """``c`` with its numpy arrays wrapped as NdArrays (as its constructor wraps them: the
    objects whose memory ACL is given, kept for when the function's object is made)."""
    cls, args, kwargs = c
    roles = getattr(cls, "roles", ())
    if len(roles) != len(args) or all(a is None or isinstance(a, NdArray) for a in args):
        return c  # (a count that does not match is configure_kept's to say)
    return cls, tuple(a if a is None or isinstance(a, NdArray) else _as_ndarray(a, role)
                      for role, a in zip(roles, args)), kwargs


__all__ = ["Recall", "RecalledFunctions", "configure_recalled", "configure_kept"]
