"""The runner's memory: one buffer per owning tensor with exactly the padding the negotiation
asked for it (on NEON the intermediates in slots of one arena placed by lifetime, graph inputs
and outputs in allocations of their own), the constants as ACL is handed them (the model's own
memory where ACL takes them as const and asks no padding, else padded copies), and the report
of what a configured runner holds."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Set, Tuple

import numpy as np

from ndarray import NdArray, ShapeDescriptor

from ... import functions as F
from ...executor import BRIDGE_SLACK_IN_BYTES, bridge_allocate, bridge_reshape, bridge_slot, origin_of
from ...mapping import PaddingSize, padded_descriptor
from ...plan import Origin
from ..planning.memory_plan import MemoryPlan, lifetimes, place, plan_memory
from ..planning.tflite_plan import Plan
from .boundary_memory import interpreter_arrays


def resident_bytes() -> Optional[int]:
    """The process's resident memory now (Linux: /proc/self/statm), or None elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class BufferPlan:
    """Where a buffer's padding comes from: the union of what each function asked for."""

    tensor: int
    name: str
    shape: Tuple[int, ...]
    padding: PaddingSize
    asked_by: Tuple[Tuple[int, str, PaddingSize], ...]  # (operator index, role, padding)
    has_views: bool


@dataclass(frozen=True)
class Buffers:
    """What :func:`allocate` made: every buffer's plan, the arrays by model tensor (views of
    their owners included), and with the arena its placement (``memory``), whether that was
    the kept one, and the arena's own allocation."""

    buffer_plans: Dict[int, BufferPlan]
    arrays: Dict[int, NdArray]
    memory: Optional[MemoryPlan] = None
    memory_recalled: bool = False
    arena: Optional[NdArray] = None


def allocate(plan: Plan, asked, roots_with_views: Set[int], use_arena: bool,
             kept_arena: Optional[Sequence[Tuple[int, int]]],
             interpreter_memory: Optional[Mapping[int, np.ndarray]] = None) -> Buffers:
    """A buffer per owning tensor with the union of the padding asked for it (none for a
    buffer with views): with the arena, intermediates in slots of one allocation placed by
    lifetime (:mod:`..planning.memory_plan`; ``kept_arena``, an earlier process's placement,
    is checked and used where it places these buffers), graph inputs and outputs in
    allocations of their own; a buffer of ``interpreter_memory`` asked for no padding is a
    fallback segment's interpreter's tensor (:mod:`.boundary_memory`), outside the arena."""
    t = plan.model.tensors
    buffer_plans: Dict[int, BufferPlan] = {}
    descriptors: Dict[int, ShapeDescriptor] = {}
    for b in plan.buffers():
        pad = PaddingSize()
        has_views = b in roots_with_views
        if not has_views:
            for *_, p in asked.get(b, ()):
                pad = pad.union(p)
        pad = pad.for_rank(len(t[b].shape))
        buffer_plans[b] = BufferPlan(b, t[b].name, tuple(t[b].shape), pad, tuple(asked.get(b, ())), has_views)
        descriptors[b] = padded_descriptor(tuple(t[b].shape), t[b].dtype, pad)  # the model's dtype
    owned = interpreter_arrays(plan, {b: m for b, m in (interpreter_memory or {}).items()
                                      if b in buffer_plans and not buffer_plans[b].padding})
    memory = arena = None
    recalled = False
    if use_arena:
        sizes = {b: d.alloc_size_in_bytes + BRIDGE_SLACK_IN_BYTES for b, d in descriptors.items() if b not in owned}
        memory = plan_memory(plan.for_memory_plan(), sizes, kept=kept_arena, leave_out=set(owned))
        # the kept placement, when it is one of these buffers (checked: every buffer, aligned,
        # no two alive at one step sharing a byte), else placed afresh (and kept at save)
        recalled = kept_arena is not None and [(s.tensor, s.offset_in_bytes) for s in memory.slots] == list(kept_arena)
        arena = bridge_allocate(ShapeDescriptor.create((max(memory.arena_size_in_bytes, 1),), "uint8"))
        for slot in memory.slots:
            owned[slot.tensor] = bridge_slot(arena, slot.offset_in_bytes, descriptors[slot.tensor])
    for b, d in descriptors.items():
        if b not in owned:
            owned[b] = bridge_allocate(d)
    return Buffers(buffer_plans, _bridge_reshapes(plan, plan.bind(owned)), memory, recalled, arena)


def _bridge_reshapes(plan: Plan, arrays: Dict[int, NdArray]) -> Dict[int, NdArray]:
    """``arrays``, each reshape of a bridge-owned buffer made the bridge's own too
    (:func:`~acl_bridge.executor.bridge_reshape`: its padding and slack are the buffer's), so
    no function's plan probes it as the caller's memory."""
    views = plan.view_of()

    def adopt(t: int) -> None:
        v = views.get(t)
        if v is not None and v.how[0] in ("alias", "reshape"):
            adopt(v.parent)  # (a reshape of a reshape: its parent first)
            if v.how[0] == "reshape":
                bridge_reshape(arrays[v.parent], arrays[t])

    for t in views:
        adopt(t)
    return arrays


def constant_array(cls, role: str, value: np.ndarray, padding: PaddingSize, share_constants: bool) -> NdArray:
    """The NdArray a step's constant is handed to ACL in: the model's own memory (no copy)
    where ``share_constants`` and ACL takes the role as ``const ITensor *`` (it writes none of
    its bytes: the planner needs no probe for it), asked for no padding, and the value is dense
    and element-aligned; else a bridge-owned copy with the negotiated padding."""
    # no padding it can have (PaddingSize.for_rank: a 1-D tensor has no top, but keeps the bottom
    # rows ACL 20.08's native depthwise asks its bias for: a copy with them, not the model's memory)
    padding = padding.for_rank(value.ndim)
    unpadded = not padding
    if share_constants and role in cls.const_roles and unpadded and value.size and _dense_aligned(value.flags):
        # its own bytes only, dense (not NdArray.from_numpy, which would describe it as a
        # padded view of the whole file it lies in): a third of the cost, and a dense
        # constant ACL takes as const needs no probe. A plain numpy array's (the reader's) made
        # without the checks this test settles (ndarray keeps one dense descriptor per shape and dtype)
        d = ShapeDescriptor.dense(value.shape, value.dtype)
        if type(value) is np.ndarray:
            return NdArray._of_dense(value, d)
        return NdArray(value.reshape(-1).view(np.uint8), d)
    a = F.AclFunction.padded_empty(value.shape, value.dtype, padding)
    a.numpy()[...] = value
    return a


def _dense_aligned(flags) -> bool:
    """Whether an array's ``flags`` (numpy makes a new object per ``.flags``: asked once) say
    C-contiguous and aligned."""
    return flags.c_contiguous and flags.aligned


def constants_marked_unused(runner) -> Optional[Dict[str, int]]:
    """Bytes of the constants a configured runner handed to ACL that ACL marked unused
    (``ITensor::is_used``) after preparing a copy of its own (reshaped or transformed
    weights), by function kind; None before the first inference, where ACL prepares. ACL's
    mark is its claim, not a promise the bridge can act on: ACL 24.11 marks the int32 bias of
    an int8 depthwise convolution unused and still reads it at run (a runner that let go of it
    gave wrong outputs once the memory was reused: docs/performance.md, "Model memory"), so
    the bridge keeps every constant and this figure is an upper bound of what ACL prepared."""
    if runner._first_run_seconds is None:
        return None
    out: Dict[str, int] = {}
    for f, consts in zip(runner.functions, runner.constants):
        configured = f._configured
        if configured is None:
            continue
        for role in consts:
            t = configured.tensors.get(role)
            if t is not None and not t.used_by_acl:
                out[f.kind] = out.get(f.kind, 0) + consts[role].allocation.nbytes
    return out


def memory_report(runner) -> Dict[str, object]:
    """Bytes a configured runner holds: activations (the arena, or one buffer per tensor; the
    lower bound: the most bytes alive at one step), graph inputs and outputs, constants as the
    file has them and as the bridge hands them to ACL, and the process's resident memory now
    (ACL's prepared weights are inside that figure only). Workspaces: the pools of ACL's memory
    managers (one shared by every function, or one per function with
    ``share_workspaces=False``); scratch tensors of functions whose ACL constructor takes no
    memory manager are not in it."""
    lives, pinned = lifetimes(runner.plan.for_memory_plan())
    arena_tensors = {life.tensor for life in lives}
    own = {b: a.allocation.nbytes + BRIDGE_SLACK_IN_BYTES for b, a in runner.arrays.items()
           if b in runner.buffer_plans}
    if runner.memory is not None:
        activations = runner.memory.arena_size_in_bytes
        bound = runner.memory.lower_bound_in_bytes
        one_each = runner.memory.total_size_in_bytes
    else:
        # the same figures as the arena's: sizes rounded up to its alignment (each
        # allocation is that aligned), so the two runners' reports compare exactly
        sizes = {b: n for b, n in own.items() if b in arena_tensors}
        alone = place([(life, sizes[life.tensor]) for life in lives])
        one_each = activations = alone.total_size_in_bytes
        bound = alone.lower_bound_in_bytes
    model = runner.plan.model
    file_constants = sum(int(t.data.nbytes) for t in model.tensors if t.data is not None)
    unused = constants_marked_unused(runner)
    # each allocation once (the model's memory of a constant two functions read is one)
    given = {a.allocation.ctypes.data: a for consts in runner.constants for a in consts.values()}.values()
    copied = sum(a.allocation.nbytes for a in given if origin_of(a) is Origin.BRIDGE)
    shared = sum(a.allocation.nbytes for a in given if origin_of(a) is not Origin.BRIDGE)
    return {
        "arena": runner.use_arena,
        "activations_bytes": activations,
        "activations_lower_bound_bytes": bound,
        "activations_one_buffer_each_bytes": one_each,
        "inputs_outputs_bytes": sum(n for b, n in own.items() if b in pinned),
        "workspaces_shared": runner.share_workspaces,
        "workspaces_bytes": runner.workspace_bytes,
        "functions_in_workspaces": sum(w.report().functions for w in runner.workspaces),
        "constants_in_file_bytes": file_constants,
        "constants_given_to_acl_bytes": copied + shared,
        # of those, the bridge's own padded copies, and the model's own memory given in place
        "constants_copied_bytes": copied,
        "constants_shared_bytes": shared,
        # after the first inference (ACL prepares there): the bridge's constants that ACL
        # marked unused (ITensor::is_used), by function kind; kept (see constants_marked_unused)
        "constants_marked_unused_bytes": None if unused is None else sum(unused.values()),
        "constants_marked_unused_by_kind": unused,
        "resident_bytes": resident_bytes(),
    }


__all__ = ["BufferPlan", "Buffers", "allocate", "constant_array", "constants_marked_unused", "memory_report",
           "resident_bytes"]
