"""Many functions made from their kept decisions in one native call.

A second start of a model (:mod:`acl_bridge.models.tflite_runner`) has a kept
:class:`~acl_bridge.decisions.Decision` for every function it makes. Made one at a time
(``AclFunction(..., decided=d)``: :func:`acl_bridge.executor.configure`), each function costs
Python of its own besides ACL's validate() and configure(): every tensor's layout key compared
with the decision's, every kept description checked and made, a native call per tensor, per
import and per function. :func:`configure_recalled` makes them all with one call,
``acl_shim_plan_create`` (native/acl_shim_plan.cpp): per function the same tensors, the same
validate() and configure() (joining the same workspace) and the same imports, in the same
order.

What is checked, per function: its arguments, bound and checked as the constructor checks
them (outputs writable, no overlap), and its kind, native parameters, data layout, options,
roles, backend and ACL identity equal to the decision's; per tensor, that the kept
description is of the array's element size and backend (Python) and addresses no byte outside
the memory given (native). What is not compared is each tensor's layout key: the caller vouches
that the arrays are laid out as they were when the decisions were made. The runner does, by
keeping a load's decisions under the plan's content, its options and a hash of the code that
negotiates, allocates and decides (``TfliteRunner._recall_decisions``): given those, every
buffer's layout is fixed (tests/acl/test_configure_batch.py checks the keys after a batch).

All or nothing: where some decision does not fit its call (another content, a plan that
stages a tensor, functions in different workspaces) or ACL refuses (everything it made is
destroyed then), nothing is made, the reason is returned, and the caller configures one
function at a time (each still from its decision where it matches). A refused batch may have
joined functions to the workspace before they were destroyed: the caller starts again with a
fresh workspace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from . import abi
from . import configure_session as session
from .decisions import Decision
from .executor import Call, Configured, acl_identity, destroyer
from .functions import AclFunction
from .errors import AclError
from .native import AclInvalidArgumentError, check, require_native
from .tensor import check_elements_fit, desc_from_content


@dataclass(frozen=True)
class Recall:
    """One function to make: its class, its tensors (roles order) and keyword arguments, as
    they would be given to its constructor (``decided`` left out), and its kept decision."""

    cls: type
    args: Tuple[object, ...]
    kwargs: Dict[str, object]
    decision: Decision


def _mismatch(call: Call, d: Decision, params: bytes, acl: str) -> Optional[str]:
    """Why decision ``d`` is not this call's (the tensors' layouts aside), or None."""
    if d.plan.staged:
        return f"its plan stages {list(d.plan.staged)}"
    if tuple(t.role for t in d.plan.tensors) != tuple(call.roles):
        return f"it plans the roles {[t.role for t in d.plan.tensors]}, the call has {list(call.roles)}"
    if not d.matches(call.kind, params, call.data_layout, call.options, d.layouts, call.backend.name, acl):
        return "its kind, parameters, data layout, options, backend or ACL differ from the call's"
    return None


def configure_recalled(recalls: Sequence[Recall]) -> Tuple[Optional[List[AclFunction]], str]:
    """Every function of ``recalls`` made from its decision in one native call, in order:
    (the functions, "") or, where any does not fit or ACL refuses, (None, why) and nothing
    made (module docstring). Bad arguments raise as the constructors raise them."""
    ffi, lib = require_native()
    acl = acl_identity()
    prepared: List[Tuple[AclFunction, Call, Decision]] = []
    for k, r in enumerate(recalls):
        f = r.cls.__new__(r.cls)  # type: ignore[call-overload]
        kwargs = dict(r.kwargs)
        common = {name: kwargs.pop(name) for name in COMMON_KEYWORDS if name in kwargs}
        call = f._prepare(r.args, kwargs, **common)
        why = _mismatch(call, r.decision, ffi.buffer(call.params)[:], acl)
        if why is not None:
            return None, f"function {k} ({call.kind}): {why}"
        prepared.append((f, call, r.decision))
    workspaces = {id(call.workspace) for _, call, _ in prepared}
    if len(workspaces) > 1:
        return None, f"the functions are in {len(workspaces)} workspaces; one native call takes one"
    workspace = prepared[0][1].workspace if prepared else None

    n = len(prepared)
    planned = ffi.new("acl_shim_planned_function[]", n)
    keep: list = []  # every cffi object the native call reads, alive until it returns
    for i, (f, call, d) in enumerate(prepared):
        descs = []
        for role, content in zip(call.roles, d.descs):
            a = call.arrays[role]
            if content is None or a is None:
                if (content is None) != (a is None):
                    return None, f"function {i} ({call.kind}): {role} is {'absent' if a is None else 'given'}, " \
                                 f"its decision {'has no' if content is None else 'has a'} description"
                descs.append(None)
                continue
            desc = desc_from_content(content)
            try:
                check_elements_fit(desc, a, call.backend)
            except AclInvalidArgumentError as e:  # decided for other elements
                return None, f"function {i} ({call.kind}), {role}: {e}"
            descs.append(desc)
        arrays = [call.arrays[r] for r in call.roles]
        desc_ptrs = ffi.new("acl_shim_tensor_desc *[]", [ffi.NULL if x is None else x for x in descs])
        bases = ffi.new("void *[]", [ffi.NULL if a is None else ffi.cast("void *", a.base_ptr) for a in arrays])
        available = ffi.new("uint64_t[]", [0 if a is None else a.allocation.nbytes for a in arrays])
        p = planned[i]
        p.kind, p.params, p.num_tensors = abi.KINDS[call.kind], call.params, len(arrays)
        p.descs, p.bases, p.available_in_bytes = desc_ptrs, bases, available
        keep.append((descs, desc_ptrs, bases, available))
    out_functions = ffi.new("acl_shim_function *[]", max(n, 1))
    out_tensors = ffi.new("acl_shim_tensor *[]", max(sum(len(c.roles) for _, c, _ in prepared), 1))
    failed = ffi.new("int32_t *")
    with session.timed("configure"):  # ACL's validate() and configure(), tensors and imports, all functions
        status = lib.acl_shim_plan_create(ffi.NULL if workspace is None else workspace.handle, planned, n,
                                          out_functions, out_tensors, failed)
    try:
        check(status, "plan_create")
    except AclError as e:  # ACL, or the bounds check, refused a function: nothing was made
        return None, str(e)
    # owned at once, before any other Python can raise: each function holds its buffers
    owned = []
    t = 0
    for i, (f, call, d) in enumerate(prepared):
        handle = ffi.gc(out_functions[i], destroyer(lib.acl_shim_function_destroy, call.arrays))
        tensors = []
        for _ in call.roles:
            h = out_tensors[t]
            t += 1
            tensors.append(None if h == ffi.NULL else ffi.gc(h, lib.acl_shim_tensor_destroy))
        owned.append((handle, tensors))
    functions = []
    for (f, call, d), (handle, tensors) in zip(prepared, owned):
        f._finish(Configured.adopt(call, d.plan, handle, tensors, d.descs), d.facts, d)
        functions.append(f)
    return functions, ""


# the constructor's keywords common to every kind (AclFunction._prepare's)
COMMON_KEYWORDS = ("data_layout", "quantization", "allow_copy", "allow_padding_writes", "backend", "workspace")

__all__ = ["Recall", "configure_recalled"]
