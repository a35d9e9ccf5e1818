"""Which operators run on ACL and which on the CPU fallback, and why (design habit 21).

:func:`decide` is the one predicate: for one operator of a model it answers "ACL, lowered
to these steps", or "fallback, because ...". The reasons, in the order they are checked:

* ``custom``: a custom operator (``CUSTOM:name``) without a rule, or one its rule refused
  (the rules say which custom operators they take: their ``CUSTOM:name`` keys in ``RULES``);
* ``no rule``: a builtin operator the lowering table has no rule for;
* ``refused by the rule``: the rule's type gate or the rule itself refused a dtype, option
  or shape (its UnsupportedModelError's message is the reason);
* ``refused by ACL``: ACL's validate() refused the operator's function at configure on the
  runner (:class:`AclRefusal`, passed back in as ``acl_refused``: the runner re-plans).

A malformed operator (ModelFormatError) is never a fallback: it is raised as it is.

:func:`partition` asks :func:`decide` for every operator in graph order. Consecutive ACL
operators form the segments that the runner runs as one native call each; the fallback
operators run between them (:class:`~..tflite_plan.Fallback`, with the reason, in the plan).
Pure: nothing here touches ACL or memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Tuple

from ..format.tflite_reader import ModelSpec, OperatorSpec, UnsupportedModelError
from .rules import RULES, rule_for
from .step import Lowered

CUSTOM, NO_RULE, RULE_REFUSED, ACL_REFUSED = "custom", "no rule", "refused by the rule", "refused by ACL"
KINDS = (CUSTOM, NO_RULE, RULE_REFUSED, ACL_REFUSED)


@dataclass(frozen=True)
class Decision:
    """Where operator ``op_index`` runs: on ACL (``lowered`` holds the rule's result) or on
    the fallback (``lowered`` is None; ``kind`` one of :data:`KINDS`, ``reason`` the text)."""

    op_index: int
    opcode: str
    lowered: Optional[Tuple[Lowered, ...]]
    kind: str = ""
    reason: str = ""

    def __post_init__(self) -> None:
        if (self.lowered is None) != bool(self.kind):
            raise ValueError(f"a decision is ACL (lowered steps, no kind) or fallback (a kind from {KINDS}, "
                             f"no steps): lowered={self.lowered!r}, kind={self.kind!r}")
        if self.kind and self.kind not in KINDS:
            raise ValueError(f"decision kind is {self.kind!r}, expected one of {KINDS}")

    @property
    def on_acl(self) -> bool:
        return self.lowered is not None


@dataclass(frozen=True)
class AclRefusal:
    """ACL's validate() refused operator ``op_index``'s function: ``message`` is the
    runner's text for it (the operator, its tensors' types, ACL's own message)."""

    op_index: int
    message: str


def _refusal(op: OperatorSpec, e: UnsupportedModelError) -> Decision:
    kind = CUSTOM if op.opcode.startswith("CUSTOM:") else NO_RULE if op.opcode not in RULES else RULE_REFUSED
    return Decision(op.index, op.opcode, None, kind, str(e))


def _gate(op: OperatorSpec, model: ModelSpec, acl_refused: Mapping[int, str]) -> Optional[Decision]:
    """The fallback decision made before the rule runs (ACL's refusal, the type gate), or None."""
    if op.index in acl_refused:
        return Decision(op.index, op.opcode, None, ACL_REFUSED, acl_refused[op.index])
    try:  # an opcode without a rule meets the default rule, which refuses naming it
        rule_for(op.opcode).tensors(op, model)
    except UnsupportedModelError as e:
        return _refusal(op, e)
    return None


def decide(op: OperatorSpec, model: ModelSpec, acl_refused: Mapping[int, str] = {}) -> Decision:
    """ACL or fallback for ``op`` of ``model``, with the reason (the module's text)."""
    return _gate(op, model, acl_refused) or _lowered(op, model)


def _lowered(op: OperatorSpec, model: ModelSpec) -> Decision:
    """The decision of the rule itself, for an operator its gate let through."""
    try:
        return Decision(op.index, op.opcode, tuple(rule_for(op.opcode).lower(op, model)))
    except UnsupportedModelError as e:
        return _refusal(op, e)


def partition(model: ModelSpec, acl_refused: Mapping[int, str] = {}, strict: bool = False) -> Tuple[Decision, ...]:
    """:func:`decide` for every operator of ``model``, in graph order. Every operator's type
    gate runs before any rule (a dtype refusal is reported before a rule's format error);
    ``strict``: a model with refused operators is raised (UnsupportedModelError) instead of
    recorded, naming every refused operator with its reason, not only the first. Each gate
    runs once: an operator it lets through meets its rule alone (what :func:`decide` does)."""
    gated = [_gate(op, model, acl_refused) for op in model.operators]
    if strict:
        _refuse_all([d for d in gated if d is not None], model)
    out = tuple(d or _lowered(op, model) for op, d in zip(model.operators, gated))
    if strict:
        _refuse_all([d for d in out if not d.on_acl], model)
    return out


def _refuse_all(refused, model: ModelSpec) -> None:
    """UnsupportedModelError listing every refused decision (one alone: its reason as it is)."""
    if len(refused) == 1:
        raise UnsupportedModelError(refused[0].reason)
    if refused:
        raise UnsupportedModelError(
            f"{len(refused)} of the model's {len(model.operators)} operators are not supported: "
            + "; ".join(d.reason if d.reason.startswith(f"operator #{d.op_index} ") else
                        f"operator #{d.op_index} {d.opcode}: {d.reason}" for d in refused))


def segments(decisions: Tuple[Decision, ...]) -> Tuple[Tuple[bool, Tuple[int, ...]], ...]:
    """(on ACL, operator indices) per run of consecutive decisions with the same side."""
    out = []
    for d in decisions:
        if out and out[-1][0] == d.on_acl:
            out[-1][1].append(d.op_index)
        else:
            out.append((d.on_acl, [d.op_index]))
    return tuple((acl, tuple(ops)) for acl, ops in out)


__all__ = ["Decision", "AclRefusal", "decide", "partition", "segments", "KINDS",
           "CUSTOM", "NO_RULE", "RULE_REFUSED", "ACL_REFUSED"]
