"""Decide, then act: what an ACL function will do with each tensor, as a frozen plan.

:func:`plan_function` is pure (no native calls, no I/O): it takes the function kind, each
tensor's layout and origin (:class:`TensorRequest`) and the facts measured from ACL
(:class:`AclFacts`: the padding ACL asked for, the probe's findings, a validate() that wanted
more padding) and returns a :class:`FunctionPlan`: per tensor in place or staged (copied
through a buffer of the bridge's own on every run), the padding, the reason and the copies
per run. The executor (acl_bridge/executor.py) gathers the facts and carries the plan out;
the backend (NEON, CL) is a parameter of the executor, never of this module.

The rules, in the order they are applied (each staging reason is a :class:`Reason`):

1. ``MISALIGNED``: the base address is not aligned to the element size.
2. ``NOT_REPRESENTABLE``: ACL cannot describe the layout (rank > 6, negative or zero
   strides, an x stride other than the element size, a size-0 dimension...).
3. ``COLLAPSE_UNSAFE``: ACL kernels collapse the dimensions from z up into one and step
   through them with the first one's stride (measured on 20.08), so they must be dense on
   top of each other.
4. ``PADDING_MISSING``: ACL asked for padding (negotiation) and the buffer is not laid out
   the way ACL pads a tensor, or has less padding than asked for.
5. ``RENEGOTIATED``: validate() on the final infos asked for more padding than the
   negotiation reported (20.08, NHWC depthwise with a depth multiplier > 1): every tensor is
   staged with the union of the negotiated padding and ACL's own auto padding, both facts.
6. probe (only for tensors still in place, and never made when every one of them is a dense
   buffer of the bridge's own or a dense tensor ACL takes as ``const ITensor *``: no finding
   below could stage it): ``WRITES_OUTSIDE``: ACL writes bytes of the
   buffer that are not elements (border fill, vector stores past a row end) and the bytes are
   not the bridge's to give; ``PADDING_NOT_FREE``: the same, with ``allow_padding_writes``,
   but the bytes hold other elements of the user's memory (a view's parent);
   ``LAYOUT_MISMATCH``: ACL computed a different result on this layout than on a dense one
   (a kernel ignores strides), for every tensor that is not dense; ``WRITES_BEYOND``: ACL
   writes past the end of the memory the user brought (bridge-owned buffers have slack
   there), whatever the flags.

Who may ACL write into: a buffer the bridge allocated (``Origin.BRIDGE``: ``padded_empty``,
staging buffers, a schedule's intermediates) owns its padding, so ACL may write there by
default. Memory the user brought is protected unless ``allow_padding_writes=True`` and its
non-element bytes belong to no element (``padding_is_free``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence, Tuple

from ndarray.errors import NotRepresentableError

from .layout import NO_PADDING, PaddingSize
from .mapping import AclTensorInfo


class Origin(str, enum.Enum):
    """Where a tensor's memory came from."""

    USER = "user"  # the caller's memory: padding bytes are protected
    BRIDGE = "bridge"  # allocated by the bridge for ACL: it owns the padding


class Action(str, enum.Enum):
    ABSENT = "absent"  # an optional tensor not given
    IN_PLACE = "in_place"  # ACL uses the NdArray's own memory
    STAGED = "staged"  # copied through a bridge-owned, ACL-padded buffer on every run


class Reason(str, enum.Enum):
    """Why a tensor is staged (see the module docstring for each rule)."""

    MISALIGNED = "misaligned"
    NOT_REPRESENTABLE = "not_representable"
    COLLAPSE_UNSAFE = "collapse_unsafe"
    PADDING_MISSING = "padding_missing"
    RENEGOTIATED = "renegotiated"
    WRITES_OUTSIDE = "writes_outside"
    WRITES_BEYOND = "writes_beyond"
    PADDING_NOT_FREE = "padding_not_free"
    LAYOUT_MISMATCH = "layout_mismatch"


@dataclass(frozen=True)
class TensorRequest:
    """One tensor of a call, as the planner sees it (built by :func:`describe_request`)."""

    role: str
    rank: int
    is_output: bool
    reads_output: bool = False  # an output whose previous contents ACL also reads
    origin: Origin = Origin.USER
    info: Optional[AclTensorInfo] = None  # None: not representable (see problem)
    problem: Optional[Tuple[Reason, str]] = None  # misaligned / not representable, with the text
    acl_padding: Optional[PaddingSize] = None  # padding in ACL's own layout, None if not that layout
    dense: bool = False
    padding_is_free: bool = True  # non-element bytes belong to no element of anyone
    acl_const: bool = False  # ACL takes it as const ITensor*: it writes none of its bytes

    def for_role(self, role: str, is_output: bool, acl_const: bool) -> "TensorRequest":
        """This request with another role's part (``dataclasses.replace`` of ``role``,
        ``is_output`` and ``acl_const``), every other field this one's: the same tensor read
        by one function and written by another. Made without replace()'s rebinding of every
        field (the class has no ``__post_init__``: tests/test_plan.py holds the two equal)."""
        r = object.__new__(TensorRequest)
        fields = r.__dict__
        fields.update(self.__dict__)
        fields["role"], fields["is_output"], fields["acl_const"] = role, is_output, acl_const
        return r


@dataclass(frozen=True)
class AclFacts:
    """What ACL said about this call, gathered by the executor (or written down in a test)."""

    required_padding: Mapping[str, PaddingSize]  # negotiation on resizable infos
    writes_outside: Optional[Mapping[str, bool]] = None  # probe: non-element bytes written; None: not probed
    layout_ok: Optional[bool] = None  # probe: same results as on dense buffers
    renegotiate: Optional[str] = None  # validate()'s "Insufficient Padding" message, if any
    auto_padding: Mapping[str, PaddingSize] = field(default_factory=dict)  # ACL's auto_padding()
    writes_beyond: Mapping[str, bool] = field(default_factory=dict)  # probe: bytes past the allocation written


@dataclass(frozen=True)
class PlanOptions:
    allow_copy: bool = True
    allow_padding_writes: bool = False


_OPTIONS = {(c, w): PlanOptions(c, w) for c in (False, True) for w in (False, True)}


def plan_options(allow_copy: bool, allow_padding_writes: bool) -> PlanOptions:
    """``PlanOptions(allow_copy, allow_padding_writes)`` of two bools: one shared value per
    pair (a frozen value; a load binds one per function)."""
    return _OPTIONS[allow_copy, allow_padding_writes]


@dataclass(frozen=True)
class TensorPlan:
    role: str
    action: Action
    padding: PaddingSize = PaddingSize()  # staged: the staging buffer's; in place: what ACL asked for
    reason: Optional[Reason] = None
    detail: str = ""  # the human-readable why
    copies_per_run: int = 0
    may_write_padding: bool = False  # ACL may write the non-element bytes of the buffer it uses


@dataclass(frozen=True)
class FunctionPlan:
    kind: str
    tensors: Tuple[TensorPlan, ...]
    needs_probe: bool  # some tensor is in place, the probe has not run yet and could stage it
    renegotiated: bool = False

    def __getitem__(self, role: str) -> TensorPlan:
        for t in self.tensors:
            if t.role == role:
                return t
        raise KeyError(role)

    @property
    def staged(self) -> Tuple[str, ...]:
        return tuple(t.role for t in self.tensors if t.action is Action.STAGED)

    @property
    def in_place(self) -> Tuple[str, ...]:
        return tuple(t.role for t in self.tensors if t.action is Action.IN_PLACE)

    @property
    def copies_per_run(self) -> int:
        return sum(t.copies_per_run for t in self.tensors)

    def describe(self) -> str:
        """One line per tensor: what happens to it and why."""
        lines = []
        for t in self.tensors:
            why = f" ({t.reason.value}: {t.detail})" if t.reason else ""
            lines.append(f"{t.role}: {t.action.value}, padding {t.padding.as_tuple()}, "
                         f"{t.copies_per_run} copies/run{why}")
        return "\n".join(lines)


def collapse_problem(info: AclTensorInfo) -> Optional[str]:
    """Why ACL kernels would mis-address this layout (rule 3), or None."""
    return collapse_problem_of(info.tensor_shape, info.strides_in_bytes, info)


def collapse_problem_of(shape: Sequence[int], strides: Sequence[int], what: object) -> Optional[str]:
    """:func:`collapse_problem` of ACL's ``shape`` and ``strides`` (bytes), the text naming
    ``what`` (the info, or what it was made of)."""
    for k in range(3, len(shape)):
        if shape[k] > 1 and strides[k] != strides[k - 1] * shape[k - 1]:
            return (f"ACL dimension {k} has stride {strides[k]} bytes, expected {strides[k - 1] * shape[k - 1]} "
                    f"(dense over dimension {k - 1}): ACL kernels collapse dimensions >= 2: {what!r}")
    if len(shape) >= 3 and shape[2] > 1 and strides[2] % strides[1]:
        return (f"ACL dimension 2 has stride {strides[2]} bytes, not a whole number of rows of "
                f"{strides[1]} bytes: {what!r}")
    return None


def _static_reason(t: TensorRequest, need: PaddingSize) -> Optional[Tuple[Reason, str]]:
    """Rules 1-4: reasons visible from the layout and the negotiated padding alone."""
    if t.problem is not None:
        return t.problem
    assert t.info is not None, f"{t.role}: a representable tensor needs its info: {t!r}"
    collapse = collapse_problem(t.info)
    if collapse is not None:
        return Reason.COLLAPSE_UNSAFE, collapse
    if not need:
        return None
    if t.acl_padding is None:
        return (Reason.PADDING_MISSING, f"ACL needs padding {need!r} and this buffer is not laid out as ACL "
                f"pads tensors (padding around x and y, dense above): {t.info!r}")
    if not t.acl_padding.covers(need):
        return Reason.PADDING_MISSING, f"ACL needs padding {need!r}, the buffer has {t.acl_padding!r}"
    return None


def _may_write(t: TensorRequest, options: PlanOptions) -> bool:
    return t.origin is Origin.BRIDGE or (options.allow_padding_writes and t.padding_is_free)


def _probe_reason(t: TensorRequest, facts: AclFacts, options: PlanOptions) -> Optional[Tuple[Reason, str]]:
    """Rule 6, for a tensor still in place once the probe has run."""
    assert facts.writes_outside is not None, "probe facts expected"
    if facts.writes_beyond.get(t.role) and t.origin is not Origin.BRIDGE:
        return (Reason.WRITES_BEYOND, "ACL writes past the end of this buffer's memory (vector stores past "
                "the last row); never allowed on memory the user brought: allocate it with padded_empty")
    if facts.writes_outside.get(t.role) and not _may_write(t, options):
        if options.allow_padding_writes:
            return (Reason.PADDING_NOT_FREE, "ACL writes outside the elements of this buffer and those bytes "
                    "hold other elements of the memory it views (a view's parent); they are never offered to ACL")
        return (Reason.WRITES_OUTSIDE, "ACL writes outside the elements of this buffer (padding or gaps); "
                "pass allow_padding_writes=True to let it, or allocate it with padded_empty")
    if facts.layout_ok is False and not t.dense:
        return (Reason.LAYOUT_MISMATCH, "ACL computes a different result on this layout than on a dense "
                "buffer (a kernel ignores its strides or padding)")
    return None


def _probe_may_stage(t: TensorRequest) -> bool:
    """Whether any finding of the probe could stage this in-place tensor (rule 6). Not for a
    dense buffer of the bridge's own: writes outside its elements land in its slack
    (``WRITES_BEYOND`` and ``WRITES_OUTSIDE`` spare bridge memory) and a dense layout is
    what ACL computes on anyway (``LAYOUT_MISMATCH`` spares dense tensors); nor for a dense
    tensor ACL takes as ``const ITensor *`` (weights and bias of the convolutions and fully
    connected, whoever's memory): it writes none of its bytes. So the probe, which configures
    and runs the function twice, is not made for them."""
    return not (t.dense and (t.origin is Origin.BRIDGE or t.acl_const))


def _staged(t: TensorRequest, padding: PaddingSize, reason: Tuple[Reason, str]) -> TensorPlan:
    copies = 1 + (1 if t.is_output and t.reads_output else 0)
    return TensorPlan(t.role, Action.STAGED, padding.for_rank(t.rank), reason[0], reason[1], copies, may_write_padding=True)


def plan_function(kind: str, tensors: Sequence[Optional[TensorRequest]], facts: AclFacts,
                  options: PlanOptions = PlanOptions(), roles: Sequence[str] = ()) -> FunctionPlan:
    """The plan for one call (pure). ``tensors`` in the function's role order, None for an
    absent optional tensor (its role then comes from ``roles``)."""
    plans = []
    for i, t in enumerate(tensors):
        if t is None:
            plans.append(TensorPlan(roles[i] if i < len(roles) else f"#{i}", Action.ABSENT))
            continue
        need = facts.required_padding.get(t.role, NO_PADDING)
        if facts.renegotiate is not None:
            pad = need.union(facts.auto_padding.get(t.role, NO_PADDING))
            plans.append(_staged(t, pad, (Reason.RENEGOTIATED, "ACL's validate() asked for more padding than "
                                          f"negotiated ({facts.renegotiate}); staged with ACL's auto padding")))
            continue
        reason = _static_reason(t, need)
        if reason is None and facts.writes_outside is not None:
            reason = _probe_reason(t, facts, options)
        if reason is not None:
            plans.append(_staged(t, need, reason))
        else:
            plans.append(TensorPlan(t.role, Action.IN_PLACE, need, may_write_padding=_may_write(t, options)))
    needs_probe = facts.writes_outside is None and any(
        p.action is Action.IN_PLACE and _probe_may_stage(t) for p, t in zip(plans, tensors) if t is not None)
    plan = FunctionPlan(kind, tuple(plans), needs_probe, renegotiated=facts.renegotiate is not None)
    if not options.allow_copy and plan.staged:
        first = plan[plan.staged[0]]
        raise NotRepresentableError(
            f"{kind}: {first.role} cannot be used in place ({first.reason.value if first.reason else ''}: "
            f"{first.detail}) and allow_copy=False")
    return plan
