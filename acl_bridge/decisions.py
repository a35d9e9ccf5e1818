"""What configuring one ACL function decided, kept so that an identical call can skip deciding.

Configuring a function (:func:`acl_bridge.executor.configure`) describes every tensor, asks
ACL its padding, plans (:func:`acl_bridge.plan.plan_function`), probes where the plan needs
it, and turns each tensor's layout into a native description. All of that depends only on
the call's content: the function kind, its native parameters, the options, and per tensor
its layout (shape, dtype, padding or strides), where its memory came from and whether its
padding is free; ACL's answers are those of the process's ACL, shim and CPU. A
:class:`Decision` is the outcome (the plan, the facts it was made from, the native
description of every tensor ACL is given) together with that content. Given back to
``configure`` with a call whose content is the same (:meth:`Decision.matches`), the function
is made from it directly: no description, negotiation, planning or probe, only ACL's
validate() and configure() and the import of the memory.

The model runner keeps the decisions of a whole load between processes beside ACL's answers
(:mod:`acl_bridge.facts_cache`, category ``configured_plan``): a second start of the same
model configures every function this way. Pure: no native calls, no numpy beyond reading a
descriptor's fields; :func:`encode` / :func:`decode` are the JSON form.
"""

from __future__ import annotations

import binascii
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .layout import PaddingSize
from .plan import AclFacts, Action, FunctionPlan, PlanOptions, Reason, TensorPlan
from .user_cache import sources_stamp


@dataclass(frozen=True)
class Decision:
    """One configured function's decisions and the content they were decided for."""

    kind: str
    params: bytes  # the acl_shim_params struct's bytes
    data_layout: str
    options: PlanOptions
    layouts: Tuple[Optional[str], ...]  # per role: layout_key() of the array given (None: absent)
    plan: FunctionPlan
    facts: AclFacts
    descs: Tuple[Optional[bytes], ...]  # per role: the native description ACL got (tensor.desc_content)
    backend: str = "neon"
    acl: str = ""  # the ACL version and shim ABI that decided (acl_bridge.executor.acl_identity)

    def matches(self, kind: str, params: bytes, data_layout: str, options: PlanOptions,
                layouts: Sequence[Optional[str]], backend: str, acl: str) -> bool:
        """Whether a call with this content, on this backend and ACL, would decide the same
        (then the decision is its). The CPU is not compared: ACL's answers can depend on its
        features, so decisions are kept between processes only under the facts cache's
        identity (acl_bridge.facts_cache), which names the CPU."""
        return (kind == self.kind and params == self.params and data_layout == self.data_layout
                and options == self.options and tuple(layouts) == self.layouts and backend == self.backend
                and acl == self.acl)


def quantization_text(q: object) -> str:
    """A role's quantization as text with every value in it: None, ``(scale, offset)``, or
    per-channel scales and their axis (floats by float.hex: exact). TypeError for another
    value (no decision is kept or reused for it)."""
    if q is None:
        return "none"
    scales = getattr(q, "scales", None)
    if scales is not None:  # PerChannelQuantization
        return "pc(" + ",".join(float.hex(float(x)) for x in scales) + f";{int(getattr(q, 'axis'))})"
    if isinstance(q, (tuple, list)) and len(q) == 2:
        return f"({float.hex(float(q[0]))},{int(q[1])})"  # type: ignore[arg-type]
    raise TypeError(f"quantization is {q!r}, expected None, (scale, offset) or per-channel scales")


def layout_key(descriptor, origin: str, padding_is_free: bool, quantization: object = None) -> str:
    """What a tensor contributes to a decision, as text: its descriptor's fields (shape, dtype,
    order, padding or explicit strides), the origin of its memory, whether its padding is
    free and its quantization. The same content gives the same text in every process (ints,
    strings, booleans, floats in hex)."""
    d = descriptor
    e = d.explicit
    explicit = None if e is None else (tuple(e.strides), e.offset, e.alloc_size)
    return repr((origin, bool(padding_is_free), tuple(d.shape), d.dtype.str, d.order, tuple(d.paddings),
                 tuple(d.padding_offsets), explicit, quantization_text(quantization)))


# The sources whose code decides what a kept decision holds: a decision is reused only by the
# same code (an installed wheel also changes the shim's file, which the facts cache's identity
# names; an editable install changes only these).
_SOURCES = ("decisions.py", "executor.py", "plan.py", "mapping.py", "tensor.py", "functions.py", "layout.py")


@functools.lru_cache(maxsize=None)
def code_identity() -> str:
    """A stamp of the sources that make decisions (:data:`_SOURCES`;
    :func:`~acl_bridge.user_cache.sources_stamp`), made once per process."""
    return sources_stamp(Path(__file__).resolve().parent, _SOURCES)[:16]


# ---------------------------------------------------------------------------- JSON form
def pad_json(p: PaddingSize) -> list:
    """A PaddingSize as JSON: [top, right, bottom, left]."""
    return list(p.as_tuple())


_PADDINGS: Dict[Tuple[int, int, int, int], PaddingSize] = {}


def pad_from_json(v) -> PaddingSize:
    """The inverse of :func:`pad_json` (ValueError/TypeError for another shape); one value per
    content (a model's kept answers repeat a few paddings hundreds of times)."""
    try:  # the JSON list as it is: found when it was decoded before (equal numbers hash alike)
        p = _PADDINGS.get(tuple(v))
    except TypeError:  # an element that is no number (a list): the checks below say so
        p = None
    if p is None:
        key = tuple(int(x) for x in v)
        p = _PADDINGS.setdefault(key, PaddingSize.from_tuple(key))  # type: ignore[arg-type]
    return p


def _str(v: object, what: str) -> str:
    if not isinstance(v, str):
        raise TypeError(f"{what} is {v!r}, expected a string")
    return v


def _bool_map(m) -> Optional[list]:
    return None if m is None else [[str(r), bool(b)] for r, b in m.items()]


def _unbool_map(v, what: str):
    if v is None:
        return None
    return {_str(role, "a role"): _bool(b, f"{what} of {role!r}") for role, b in v}


def _b64(b: Optional[bytes]) -> Optional[str]:
    return None if b is None else binascii.b2a_base64(b, newline=False).decode("ascii")


def _unb64(v) -> Optional[bytes]:
    return None if v is None else binascii.a2b_base64(_str(v, "a description"), strict_mode=True)


_ACTIONS = {a.value: a for a in Action}
_REASONS = {r.value: r for r in Reason}


def encode(decisions: Sequence[Decision]) -> list:
    """The decisions of a load (in step order) as plain JSON values."""
    out = []
    for d in decisions:
        f, p = d.facts, d.plan
        out.append({
            "kind": d.kind, "params": _b64(d.params), "data_layout": d.data_layout, "backend": d.backend, "acl": d.acl,
            "options": [d.options.allow_copy, d.options.allow_padding_writes],
            "layouts": list(d.layouts), "descs": [_b64(x) for x in d.descs],
            "plan": [p.kind, p.needs_probe, p.renegotiated,
                     [[t.role, t.action.value, pad_json(t.padding), None if t.reason is None else t.reason.value,
                       t.detail, t.copies_per_run, t.may_write_padding] for t in p.tensors]],
            "facts": [[[r, pad_json(x)] for r, x in f.required_padding.items()], _bool_map(f.writes_outside),
                      f.layout_ok, f.renegotiate, [[r, pad_json(x)] for r, x in f.auto_padding.items()],
                      _bool_map(f.writes_beyond)],
        })
    return out


def decode(value) -> Tuple[Decision, ...]:
    """The inverse of :func:`encode`; ValueError/TypeError when the value has another shape."""
    try:
        return _decode(value)
    except (KeyError, IndexError, OverflowError) as e:  # OverflowError: JSON's Infinity as an int
        raise ValueError(f"a kept decision does not decode: {type(e).__name__}: {e}") from None


def _bool(v: object, what: str) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"{what} is {v!r}, expected true or false")
    return v


def _plan(v) -> FunctionPlan:
    kind, needs_probe, renegotiated, tensors = v
    return FunctionPlan(_str(kind, "a plan's kind"), tuple(
        TensorPlan(_str(role, "a role"), _ACTIONS[action], pad_from_json(pad), None if reason is None else _REASONS[reason],
                   _str(detail, "a detail"), int(copies), _bool(may_write, "may_write_padding"))
        for role, action, pad, reason, detail, copies, may_write in tensors),
        _bool(needs_probe, "needs_probe"), _bool(renegotiated, "renegotiated"))


def _facts(v) -> AclFacts:
    required, writes_outside, layout_ok, renegotiate, auto, writes_beyond = v
    if layout_ok is not None and not isinstance(layout_ok, bool):
        raise TypeError(f"layout_ok is {layout_ok!r}, expected true, false or null")
    return AclFacts(required_padding={_str(r, "a role"): pad_from_json(x) for r, x in required},
                    writes_outside=_unbool_map(writes_outside, "writes_outside"), layout_ok=layout_ok,
                    renegotiate=None if renegotiate is None else _str(renegotiate, "renegotiate"),
                    auto_padding={_str(r, "a role"): pad_from_json(x) for r, x in auto},
                    writes_beyond=_unbool_map(writes_beyond, "writes_beyond") or {})


def _decode(value) -> Tuple[Decision, ...]:
    if not isinstance(value, list):
        raise TypeError(f"decisions are {type(value).__name__}, expected a list")
    out: List[Decision] = []
    # a model's functions repeat a few plans and facts many times: each JSON value decoded once
    # (the decoded values are frozen, so decisions may share them)
    plans: Dict[str, FunctionPlan] = {}
    facts_seen: Dict[str, AclFacts] = {}
    for v in value:
        text = repr(v["plan"])
        plan = plans.get(text)
        if plan is None:
            plan = plans[text] = _plan(v["plan"])
        text = repr(v["facts"])
        facts = facts_seen.get(text)
        if facts is None:
            facts = facts_seen[text] = _facts(v["facts"])
        allow_copy, allow_padding_writes = v["options"]
        layouts = tuple(None if x is None else _str(x, "a layout") for x in v["layouts"])
        descs = tuple(_unb64(x) for x in v["descs"])
        # one planned tensor per role, absent exactly where no array (and no description) was given
        if not len(plan.tensors) == len(layouts) == len(descs) or any(
                (t.action is Action.ABSENT) != (lay is None) or (lay is None) != (d is None)
                for t, lay, d in zip(plan.tensors, layouts, descs)):
            raise ValueError(f"a decision of {plan.kind!r} has {len(plan.tensors)} planned tensors, {len(layouts)} "
                             f"layouts and {len(descs)} descriptions, expected one of each per role, absent alike")
        params = _unb64(v["params"])
        if params is None:
            raise TypeError("a decision's params are null, expected bytes")
        out.append(Decision(_str(v["kind"], "a kind"), params, _str(v["data_layout"], "a data layout"),
                            PlanOptions(_bool(allow_copy, "allow_copy"), _bool(allow_padding_writes,
                                                                               "allow_padding_writes")),
                            layouts, plan, facts, descs, _str(v["backend"], "a backend"), _str(v["acl"], "acl")))
    return tuple(out)


__all__ = ["Decision", "layout_key", "quantization_text", "code_identity", "encode", "decode", "pad_json",
           "pad_from_json"]
