"""How many times one inference maps a CL buffer, and how many of those maps hand a tensor
across a boundary between a CL segment and the CPU fallback.

A CL function works on the NdArrays' own bytes. Where a tensor's memory took the
``CL_MEM_USE_HOST_PTR`` route, every run of a function maps and unmaps each of its tensors
twice (native/acl_shim_cl.cpp ``before_run``: write-invalidate, so the device takes the
host's bytes; ``after_run``: read, so the host sees the device's). The ``cl_arm_import_memory``
route is the host's memory itself and is never mapped; the ``staged`` route copies instead.
At a boundary, the map after a CL function that writes a tensor a fallback operator reads,
and the map before each CL function that reads a tensor a fallback operator wrote, are what
hands the tensor over: :func:`cl_maps_per_inference` counts those apart."""

from __future__ import annotations

from typing import Dict, Sequence, Set

from ...opencl import memory_report
from ..planning.tflite_plan import Plan
from .function_kinds import ROLES
from .step_calls import tensor_ids

# the route whose tensors the shim maps and unmaps around each run of a function
MAPPED_ROUTE = "CL_MEM_USE_HOST_PTR"
MAPS_PER_RUN = 2  # one before the run, one after


def cl_maps_per_inference(plan: Plan, functions: Sequence) -> Dict[str, int]:
    """``{"total": maps, "fallback_boundaries": maps}`` of one inference of ``plan`` on its
    CL ``functions`` (one per step, in order); a map is one map-and-unmap of a buffer. Asks
    each function's memory routes (:func:`~acl_bridge.opencl.memory_report`)."""
    read: Set[int] = set()  # buffers (view roots) fallback operators read, and write
    written: Set[int] = set()
    for f in plan.fallbacks:
        ins, outs = f.tensors()
        read.update(plan.root(t) for t in ins)
        written.update(plan.root(t) for t in outs)
    total = boundaries = 0
    for step, function in zip(plan.steps, functions):
        routes = {role: m.route for role, m in memory_report(function).items()}
        outputs = ROLES[step.kind].outputs
        ids = dict(zip(ROLES[step.kind].roles, tensor_ids(step)))
        for role, route in routes.items():
            if route != MAPPED_ROUTE:
                continue
            total += MAPS_PER_RUN
            t = ids.get(role)
            if t is not None:
                boundaries += plan.root(t) in (read if role in outputs else written)
    return {"total": total, "fallback_boundaries": boundaries}


__all__ = ["cl_maps_per_inference", "MAPPED_ROUTE"]
