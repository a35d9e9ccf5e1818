"""A first start's functions made in one native call: every function decided first, then all
made at once from those decisions, as a second start makes them from kept ones.

Made one at a time (:func:`acl_bridge.executor.configure`), a function of a first start is
decided (its negotiated padding, the planner, the probe where the plan needs it) and then made
with a native call per tensor, per import and per function, each with its Python around it.
:func:`decide_calls` makes each function's :class:`~acl_bridge.decisions.Decision` exactly as
that path makes it (the same questions, asked through the same
:mod:`~acl_bridge.configure_session`, the same plan, the same native descriptions) without
making anything native; :func:`~acl_bridge.configure_batch.configure_kept` then makes every
function from those decisions in one call (``acl_shim_plan_create``), the path a second start
takes, so a first start and a second start make their functions the same way.

Where the one-call path does not apply (a plan that stages a tensor, a misaligned tensor of
the caller's, ACL refusing or asking for more padding on the final layouts), nothing is made
and the reason is returned: the caller makes the functions one at a time, as before, and that
path says what ACL refused.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ndarray.errors import AclNdarrayError

from .decisions import Decision
from .executor import Call, acl_identity, call_layouts, decide, describe_call, in_place_desc, negotiate_padding
from .native import require_native
from .plan import AclFacts
from .tensor import desc_content


def _call(cls: type, args: tuple, kwargs: dict) -> Call:
    """The :class:`~acl_bridge.executor.Call` the constructor of ``cls`` would configure
    (arguments bound and checked by its own first half), on a throw-away object."""
    f = cls.__new__(cls)
    return f._prepare(args, **kwargs)  # type: ignore[attr-defined]


def decide_one(call: Call) -> Tuple[Optional[Decision], str]:
    """The decision :func:`~acl_bridge.executor.configure` would make for ``call`` on a first
    start, and ""; or (None, why) where the one-call path cannot make it (a misaligned tensor
    of the caller's, a plan that stages). ACL's refusals (AclError) propagate."""
    ffi, _ = require_native()
    layouts = call_layouts(call)
    if layouts is None:
        return None, f"{call.kind}: a tensor of the caller's is misaligned or has a quantization without text"
    specs = [call.spec(r) for r in call.roles]
    facts = AclFacts(required_padding=dict(zip(call.roles, negotiate_padding(call.kind, call.params, specs,
                                                                             call.backend))))
    requests = describe_call(call)
    plan, facts = decide(call, facts, requests)
    if plan.staged:
        return None, f"{call.kind}: its plan stages {list(plan.staged)}"
    # what AclTensor gives ACL for each tensor in place (executor.Configured)
    descs = [None if a is None else desc_content(a) for a in
             (in_place_desc(call, role, r) for role, r in zip(call.roles, requests))]
    return Decision(call.kind, ffi.buffer(call.params)[:], call.data_layout, call.options, layouts, plan, facts,
                    tuple(descs), call.backend.name, acl_identity()), ""


def decide_calls(calls: Sequence[Tuple[type, tuple, dict]], step_of=None) -> Tuple[Optional[List[Decision]], str]:
    """Every call's first-start decision ((class, tensors, keyword arguments) as its
    constructor would be given them), in order: (decisions, "") or (None, why) at the first
    call the one-call path cannot take (:func:`decide_one`, or ACL's refusal: the
    one-at-a-time path raises it again, with the operator's name). ``step_of(k)``, where
    given, is called before call ``k`` (the runner's profile attributes its questions)."""
    out: List[Decision] = []
    for k, (cls, args, kwargs) in enumerate(calls):
        if step_of is not None:
            step_of(k)
        if not isinstance(cls, type):  # a stand-in for a function class: made one at a time
            return None, f"function {k}: {cls!r} is not a function class"
        try:
            decision, why = decide_one(_call(cls, args, kwargs))
        except AclNdarrayError as e:  # ACL's refusal, or arguments refused: the other path says it
            return None, f"function {k}: {e}"
        if decision is None:
            return None, f"function {k}: {why}"
        out.append(decision)
    return out, ""


__all__ = ["decide_calls", "decide_one"]
