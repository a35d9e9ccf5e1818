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

A model repeats calls: the same function on tensors of the same layouts (a block of equal
shapes), and the same tensor read by one function and written by another. Within one
:func:`decide_calls` pass (:class:`Decided`), each tensor's description for the planner and
native description are made once per content (its :func:`~acl_bridge.decisions.layout_key`,
the role's part and the quantization's types), and a call whose content is a decided one's
(what :meth:`~acl_bridge.decisions.Decision.matches` compares, the quantization's types too)
takes that decision, as a second start would: nothing is described, asked or planned again.

Where the one-call path does not apply (a plan that stages a tensor, a misaligned tensor of
the caller's, ACL refusing or asking for more padding on the final layouts), nothing is made
and the reason is returned: the caller makes the functions one at a time, as before, and that
path says what ACL refused.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ndarray.errors import AclNdarrayError

from .decisions import Decision
from .executor import Call, acl_identity, call_layouts, decide, describe_request, in_place_desc, negotiate_padding
from .mapping import _types
from .native import require_native
from .plan import AclFacts, TensorRequest
from .tensor import desc_content


def _call(cls: type, args: tuple, kwargs: dict) -> Call:
    """The :class:`~acl_bridge.executor.Call` the constructor of ``cls`` would configure
    (arguments bound and checked by its own first half), on a throw-away object."""
    f = cls.__new__(cls)
    return f._prepare(args, **kwargs)  # type: ignore[attr-defined]


class Decided:
    """What one :func:`decide_calls` pass made, by content: decisions, the planner's tensor
    descriptions and the native descriptions (each key holds everything its value is
    computed from; module docstring)."""

    def __init__(self) -> None:
        self.decisions: Dict[tuple, Decision] = {}
        self.requests: Dict[tuple, TensorRequest] = {}
        self.descs: Dict[tuple, bytes] = {}


def _requests(call: Call, layouts: Sequence[Optional[str]], qtypes: tuple,
              memo: Decided) -> List[Optional[TensorRequest]]:
    """:func:`~acl_bridge.executor.describe_call` of ``call``, each request made once per
    content: the layout key (descriptor, origin, free padding, quantization's text), the
    quantization's types, the data layout and the role's part (name, output, const)."""
    out: List[Optional[TensorRequest]] = []
    for role, layout, qt in zip(call.roles, layouts, qtypes):
        if layout is None:
            out.append(None)
            continue
        is_output, const = role in call.outputs, role in call.const_roles
        key = (layout, qt, call.data_layout, role, is_output, const)
        r = memo.requests.get(key)
        if r is None:
            r = memo.requests[key] = describe_request(role, call.arrays[role], is_output=is_output,  # type: ignore[arg-type]
                                                      data_layout=call.data_layout,
                                                      quantization=call.quantization[role], acl_const=const)
        out.append(r)
    return out


def _descs(call: Call, layouts: Sequence[Optional[str]], qtypes: tuple,
           requests: Sequence[Optional[TensorRequest]], memo: Decided) -> Tuple[Optional[bytes], ...]:
    """Per role, the content of what AclTensor gives ACL in place (None: absent), once per
    content (the layout key, the quantization's types, the data layout, the backend)."""
    out: List[Optional[bytes]] = []
    for role, layout, qt, r in zip(call.roles, layouts, qtypes, requests):
        if layout is None:
            out.append(None)
            continue
        key = (layout, qt, call.data_layout, call.backend.name)
        d = memo.descs.get(key)
        if d is None:
            d = memo.descs[key] = desc_content(in_place_desc(call, role, r))
        out.append(d)
    return tuple(out)


def decide_one(call: Call, memo: Optional[Decided] = None) -> Tuple[Optional[Decision], str]:
    """The decision :func:`~acl_bridge.executor.configure` would make for ``call`` on a first
    start, and ""; or (None, why) where the one-call path cannot make it (a misaligned tensor
    of the caller's, a plan that stages). ACL's refusals (AclError) propagate. ``memo``: what
    earlier calls of the same pass made (:class:`Decided`; a call of a decided content takes
    its decision)."""
    ffi, _ = require_native()
    layouts = call_layouts(call)
    if layouts is None:
        return None, f"{call.kind}: a tensor of the caller's is misaligned or has a quantization without text"
    memo = Decided() if memo is None else memo
    params = ffi.buffer(call.params)[:]
    qtypes = tuple(_types(call.quantization[r]) for r in call.roles)
    key = (call.kind, params, call.data_layout, call.options, layouts, qtypes, call.backend.name, call.roles,
           call.outputs, call.const_roles)
    made = memo.decisions.get(key)
    if made is not None:
        return made, ""
    specs = [call.spec(r) for r in call.roles]
    facts = AclFacts(required_padding=dict(zip(call.roles, negotiate_padding(call.kind, call.params, specs,
                                                                             call.backend))))
    requests = _requests(call, layouts, qtypes, memo)
    plan, facts = decide(call, facts, requests)
    if plan.staged:
        return None, f"{call.kind}: its plan stages {list(plan.staged)}"
    made = memo.decisions[key] = Decision(call.kind, params, call.data_layout, call.options, layouts, plan, facts,
                                          _descs(call, layouts, qtypes, requests, memo), call.backend.name,
                                          acl_identity())
    return made, ""


def decide_calls(calls: Sequence[Tuple[type, tuple, dict]], step_of=None) -> Tuple[Optional[List[Decision]], str]:
    """Every call's first-start decision ((class, tensors, keyword arguments) as its
    constructor would be given them), in order: (decisions, "") or (None, why) at the first
    call the one-call path cannot take (:func:`decide_one`, or ACL's refusal: the
    one-at-a-time path raises it again, with the operator's name). ``step_of(k)``, where
    given, is called before call ``k`` (the runner's profile attributes its questions)."""
    out: List[Decision] = []
    memo = Decided()
    for k, (cls, args, kwargs) in enumerate(calls):
        if step_of is not None:
            step_of(k)
        if not isinstance(cls, type):  # a stand-in for a function class: made one at a time
            return None, f"function {k}: {cls!r} is not a function class"
        try:
            decision, why = decide_one(_call(cls, args, kwargs), memo)
        except AclNdarrayError as e:  # ACL's refusal, or arguments refused: the other path says it
            return None, f"function {k}: {e}"
        if decision is None:
            return None, f"function {k}: {why}"
        out.append(decision)
    return out, ""


__all__ = ["Decided", "decide_calls", "decide_one"]
