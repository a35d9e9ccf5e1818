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
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ndarray.errors import AclNdarrayError

from .layout import PaddingSize
from .mapping import PerChannelQuantization, _exact_per_channel, scales_hex
from .plan import AclFacts, Action, FunctionPlan, PlanOptions, Reason, TensorPlan
from .user_cache import sources_stamp


@dataclass(frozen=True)
class Decision:
    """One configured function's decisions and the content they were decided for."""

    kind: str
    params: bytes  # the acl_shim_params struct's bytes
    data_layout: str
    options: PlanOptions
    # per role: layout_key() of the array given (None: absent), or a LazyLayoutKey spelling it when asked
    layouts: Tuple[Optional["str | LazyLayoutKey"], ...]
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
    per-channel scales and their axis, or a symmetric scale (floats by float.hex: exact). TypeError for another
    value (no decision is kept or reused for it)."""
    if q is None:
        return "none"
    scales = getattr(q, "scales", None)
    if scales is not None:  # PerChannelQuantization
        exact = scales_hex(q) if type(q) is PerChannelQuantization else None  # (made once per object)
        if exact is not None:
            return f"pc({exact};{q.axis})"
        return "pc(" + ",".join(map(float.hex, map(float, scales))) + f";{int(getattr(q, 'axis'))})"
    if isinstance(q, (tuple, list)) and len(q) == 2:
        return f"({float.hex(float(q[0]))},{int(q[1])})"  # type: ignore[arg-type]
    symmetric = getattr(q, "scale", None)
    if symmetric is not None:  # SymmetricQuantization (QSYMM8 / QSYMM16)
        return f"sym({float.hex(float(symmetric))})"
    raise TypeError(f"quantization is {q!r}, expected None, (scale, offset) or per-channel scales")


def layout_key(descriptor, origin: str, padding_is_free: bool, quantization: object = None) -> str:
    """What a tensor contributes to a decision, as text: its descriptor's fields (shape, dtype,
    order, padding or explicit strides), the origin of its memory, whether its padding is
    free and its quantization. The same content gives the same text in every process (ints,
    strings, booleans, floats in hex)."""
    return layout_key_with(layout_prefix(descriptor, origin, padding_is_free), quantization)


def layout_prefix(descriptor, origin: str, padding_is_free: bool) -> str:
    """The memory's part of :func:`layout_key` (all but the quantization), for
    :func:`layout_key_with`: a buffer read by one function and written by another is spelled
    once (the repr of the key's tuple without its last item and closing parenthesis)."""
    return _prefix_text(layout_parts(descriptor, origin, padding_is_free))


def layout_parts(descriptor, origin: str, padding_is_free: bool) -> tuple:
    """What :func:`layout_prefix` spells, as the tuple it is the repr of (ints, strings,
    booleans, None: equal tuples spell equal texts)."""
    d = descriptor
    e = d.explicit
    explicit = None if e is None else (tuple(e.strides), e.offset, e.alloc_size)
    return (origin, bool(padding_is_free), tuple(d.shape), d.dtype.str, d.order, tuple(d.paddings),
            tuple(d.padding_offsets), explicit)


def _prefix_text(parts: tuple) -> str:
    return repr(parts)[:-1] + ", "


def layout_key_with(prefix: str, quantization: object) -> str:
    """:func:`layout_key` from the memory's :func:`layout_prefix` and a quantization
    (TypeError as :func:`quantization_text`)."""
    return _key_text(prefix, quantization_text(quantization))


def _key_text(prefix: str, quantization_text: str) -> str:
    return prefix + repr(quantization_text) + ")"


def quantization_key(q: object) -> object:
    """A stand-in for :func:`quantization_text` that is equal only where the texts are: the
    text itself, except for a per-channel quantization of a tuple of floats and an int axis
    (as :func:`~acl_bridge.mapping.per_channel` makes them), whose hundreds of scales are
    named by their float64 bits (made once per object) instead of spelled. TypeError as
    :func:`quantization_text`."""
    if type(q) is PerChannelQuantization and _exact_per_channel(q):
        bits = q.__dict__.get("_scales_bits")
        if bits is None:
            bits = array("d", q.scales).tobytes()
            object.__setattr__(q, "_scales_bits", bits)
        return ("pc", bits, q.axis)
    return quantization_text(q)


class LazyLayoutKey:
    """A :func:`layout_key` spelled when first asked for (:attr:`text`): what a first start's
    decision pass (:mod:`acl_bridge.configure_cold`) gives its decisions, since only the
    kept files need the text, and they are written after the load
    (:mod:`acl_bridge.keep_writer`). Made of :func:`layout_parts` and the quantization (with
    its :func:`quantization_key`), both immutable: the text spelled later is the one that
    would be spelled now. Equality, hash and repr are the text's (a str of the same text
    compares equal)."""

    __slots__ = ("parts", "quantization", "_text")

    def __init__(self, parts: tuple, quantization: object, qkey: object):
        self.parts = parts
        # the quantization where its key names it without its text (an exact per-channel one:
        # frozen, of a tuple of floats), else the text itself (the key)
        self.quantization = quantization if type(qkey) is tuple else qkey
        self._text: Optional[str] = None

    @property
    def text(self) -> str:
        """:func:`layout_key` of what it was made of (spelled once)."""
        t = self._text
        if t is None:
            q = self.quantization
            t = self._text = _key_text(_prefix_text(self.parts), q if type(q) is str else quantization_text(q))
        return t

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return repr(self.text)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (LazyLayoutKey, str)):
            return self is other or self.text == (other if isinstance(other, str) else other.text)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)


def layout_text(layout: "str | LazyLayoutKey") -> str:
    """A decision's layout key as text (a :class:`LazyLayoutKey` spelled now)."""
    return layout if type(layout) is str else layout.text  # type: ignore[union-attr]


def _layout_index(layout: "str | LazyLayoutKey") -> object:
    """What :meth:`KeptDecisions.of` tables a layout by: a text, or a lazy key by its identity
    (not spelled; a pass makes one per content, and :func:`encode` joins equal texts)."""
    return layout if type(layout) is str else ("lazy", id(layout))


def plain_parts(parts: tuple) -> bool:
    """Whether every number in :func:`layout_parts` is an int and its order a str or None (as
    the descriptor's canonical factory makes them): then equal parts spell equal texts (an
    int subclass, equal to an int, spells another)."""
    _, _, shape, _, order, paddings, offsets, explicit = parts
    numbers = shape + paddings + offsets + (() if explicit is None else explicit[0] + explicit[1:])
    return set(map(type, numbers)) <= _INT and (order is None or type(order) is str)


_INT = frozenset((int,))


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
FORM = "columns-1"  # the JSON form's name and version (encode / decode)


def _mismatched(k: int, d: Decision) -> Optional[str]:
    """Why decision ``k``'s roles do not line up (one planned tensor, layout and description
    per role, absent exactly where no array and no description was given), else None."""
    tensors, layouts, descs = d.plan.tensors, d.layouts, d.descs
    if len(tensors) == len(layouts) == len(descs):
        for t, lay, desc in zip(tensors, layouts, descs):
            if (t.action is Action.ABSENT) != (lay is None) or (lay is None) != (desc is None):
                break
        else:
            return None
    return (f"decision {k} ({d.kind}) has {len(tensors)} planned tensors, {len(layouts)} layouts and "
            f"{len(descs)} descriptions, expected one of each per role, absent alike")


def _record_sizes(decisions: Sequence[Decision]) -> Tuple[int, int]:
    """(the size of a description's record: the shortest description's; the size of the
    parameters, which every decision's must have: ValueError otherwise)."""
    distinct = list({id(d): d for d in decisions}.values())
    present = [d for dec in distinct for d in dec.descs if d is not None]
    desc_size = min(map(len, present)) if present else 0
    params_size = len(decisions[0].params) if decisions else 0
    if any(len(d.params) != params_size for d in distinct):
        raise ValueError(f"decisions whose parameters differ in size: {sorted({len(d.params) for d in decisions})}")
    return desc_size, params_size


def _same(value: object) -> object:
    return value


def _tabled(value: object, met_as: object, key_of, seen: Dict, at: Dict, values: list) -> int:
    """``value``'s index in the table ``values``: the one it got when met before as ``met_as``
    (``seen``), else the one of an equal key (``key_of(value)`` in ``at``), else a new one
    (``value`` appended)."""
    i = seen.get(met_as)
    if i is None:
        key = key_of(value)
        i = at.get(key)
        if i is None:
            i = at[key] = len(values)
            values.append(value)
        seen[met_as] = i
    return i


class KeptDecisions(Sequence):
    """The decisions of a load, in step order, as columns: what :func:`decode` gives.

    A model's decisions repeat a few plans, facts, heads (kind, data layout, backend, ACL,
    options) and layouts many times, and every function's native parameters and tensor
    descriptions are fixed-size records: so each distinct value is kept once, and the
    records as two byte strings (:attr:`params_blob`, one record of :attr:`params_size` bytes
    per function; :attr:`desc_blob`, one of :attr:`desc_size` bytes per tensor in role order,
    zeros where absent, with :attr:`desc_tails` holding what a description has past its record:
    per-channel scales). One native call takes the records as they are
    (:mod:`acl_bridge.configure_batch`); a :class:`Decision` is made only when indexed. A first
    start's layouts are :class:`LazyLayoutKey` objects, tabled by their keys: :func:`encode`
    spells them (two of one text become one)."""

    def __init__(self, heads: Sequence[tuple], plans: Sequence[FunctionPlan], facts: Sequence[AclFacts],
                 layouts: Sequence["str | LazyLayoutKey"], functions: Sequence[Tuple[int, int, int]], tensors: Sequence[int],
                 params_blob: bytes, params_size: int, desc_blob: bytes, desc_size: int,
                 desc_tails: Dict[int, bytes]):
        self.heads = tuple(heads)  # distinct (kind, data_layout, backend, acl, PlanOptions)
        self.distinct_plans = tuple(plans)
        self.distinct_facts = tuple(facts)
        self.distinct_layouts = tuple(layouts)
        self.functions = tuple(functions)  # per function: (head, plan, facts) indices
        self.tensors = tuple(tensors)  # per tensor, in role order: its layout's index, -1 where absent
        self.params_blob, self.params_size = params_blob, params_size
        self.desc_blob, self.desc_size, self.desc_tails = desc_blob, desc_size, dict(desc_tails)
        self.plans = tuple(self.distinct_plans[p] for _, p, _ in self.functions)
        self.kinds = tuple(self.heads[h][0] for h, _, _ in self.functions)
        starts, at = [], 0
        for plan in self.plans:
            starts.append(at)
            at += len(plan.tensors)
        self.starts = tuple(starts)  # per function: the index of its first tensor
        self._made: Dict[int, Decision] = {}

    @classmethod
    def of(cls, decisions: Sequence[Decision], by_identity: bool = False) -> "KeptDecisions":
        """The columns of ``decisions`` (ValueError where their parameters differ in size).
        ``by_identity``: plans and facts tabled by object, not content (a first start's pass,
        :mod:`acl_bridge.configure_cold`, makes one per content it decides, and a plan is
        hashed field by field otherwise): two equal values may then have two entries, which
        :func:`encode` joins, so the kept JSON is the content-tabled one."""
        if isinstance(decisions, KeptDecisions):
            return decisions
        desc_size, params_size = _record_sizes(decisions)
        # each table: its values, {a value's key: its index} (facts hold dicts: keyed by
        # _facts_key; plans by content, or by identity), and {id of an object met: its index}:
        # a pass that decided a content once hands the same plan, facts and layout objects to
        # many functions (configure_cold), each otherwise hashed field by field again (every
        # object is alive here: ``decisions`` holds it); a lazy layout key by its identity, not
        # its text (which only encode() needs)
        heads: list = []
        plans: list = []
        facts: list = []
        layouts: list = []
        # per table: {a value's key: its index}, and {how a value met before is known: its index}
        head_at: Dict[object, int] = {}
        plan_at: Dict[object, int] = {}
        facts_at: Dict[object, int] = {}
        layout_at: Dict[object, int] = {}
        head_seen: Dict[tuple, int] = {}  # a head by its strings and its options object (a shared value)
        plan_seen: Dict[int, int] = {}
        facts_seen: Dict[int, int] = {}
        layout_seen: Dict[int, int] = {}
        plan_key = id if by_identity else _same
        facts_key = id if by_identity else _facts_key
        functions, tensors, tails, records = [], [], {}, []
        zero = bytes(desc_size)
        # one pass per decision object: a pass that decided a content once hands the same
        # Decision to every function of that content (configure_cold), whose row, layout
        # indices, records and tails are then those made for its first function
        rows: Dict[int, tuple] = {}  # id(decision) -> (its row, layout indices, records, tails by role)
        for k, d in enumerate(decisions):
            made = rows.get(id(d))
            if made is None:
                why = _mismatched(k, d)
                if why is not None:
                    raise ValueError(why)
                h = _tabled((d.kind, d.data_layout, d.backend, d.acl, d.options),
                            (d.kind, d.data_layout, d.backend, d.acl, id(d.options)), _same, head_seen, head_at, heads)
                p = _tabled(d.plan, id(d.plan), plan_key, plan_seen, plan_at, plans)
                f = _tabled(d.facts, id(d.facts), facts_key, facts_seen, facts_at, facts)
                at_of, recs, own_tails = [], [], []
                for at, (layout, desc) in enumerate(zip(d.layouts, d.descs)):
                    if layout is None:
                        at_of.append(-1)
                    else:
                        at_of.append(_tabled(layout, id(layout), _layout_index, layout_seen, layout_at, layouts))
                    if desc is None:
                        recs.append(zero)
                        continue
                    recs.append(desc[:desc_size])
                    if len(desc) > desc_size:
                        own_tails.append((at, desc[desc_size:]))
                made = rows[id(d)] = ((h, p, f), at_of, recs, own_tails)
            row, at_of, recs, own_tails = made
            for at, tail in own_tails:
                tails[len(tensors) + at] = tail
            functions.append(row)
            tensors.extend(at_of)
            records.extend(recs)
        return cls(heads, plans, facts, layouts, functions, tensors, b"".join(d.params for d in decisions),
                   params_size, b"".join(records), desc_size, tails)

    def __len__(self) -> int:
        return len(self.functions)

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return tuple(self[i] for i in range(*k.indices(len(self))))
        k = range(len(self))[k]  # IndexError as a tuple's
        d = self._made.get(k)
        if d is None:
            h, p, f = self.functions[k]
            kind, data_layout, backend, acl, options = self.heads[h]
            plan, start = self.distinct_plans[p], self.starts[k]
            rows = range(start, start + len(plan.tensors))
            layouts = tuple(None if self.tensors[t] < 0 else self.distinct_layouts[self.tensors[t]] for t in rows)
            descs = tuple(None if self.tensors[t] < 0 else
                          self.desc_blob[t * self.desc_size:(t + 1) * self.desc_size] + self.desc_tails.get(t, b"")
                          for t in rows)
            d = self._made[k] = Decision(kind, self.params_blob[k * self.params_size:(k + 1) * self.params_size],
                                         data_layout, options, layouts, plan, self.distinct_facts[f], descs,
                                         backend, acl)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"KeptDecisions({len(self)} functions; {len(self.distinct_plans)} distinct plans, "
                f"{len(self.distinct_layouts)} distinct layouts)")


def _encode_plan(p: FunctionPlan) -> list:
    return [p.kind, p.needs_probe, p.renegotiated,
            [[t.role, t.action.value, pad_json(t.padding), None if t.reason is None else t.reason.value,
              t.detail, t.copies_per_run, t.may_write_padding] for t in p.tensors]]


def _facts_key(f: AclFacts) -> tuple:
    """What :func:`_encode_facts` writes of ``f``, as a hashable key (equal exactly where the
    JSON forms are: facts hold dicts, so they key :meth:`KeptDecisions.of`'s table this way)."""
    return (tuple(f.required_padding.items()),
            None if f.writes_outside is None else tuple((r, bool(b)) for r, b in f.writes_outside.items()),
            (type(f.layout_ok), f.layout_ok), f.renegotiate, tuple(f.auto_padding.items()),
            tuple((r, bool(b)) for r, b in f.writes_beyond.items()))


def _encode_facts(f: AclFacts) -> list:
    return [[[r, pad_json(x)] for r, x in f.required_padding.items()], _bool_map(f.writes_outside),
            f.layout_ok, f.renegotiate, [[r, pad_json(x)] for r, x in f.auto_padding.items()],
            _bool_map(f.writes_beyond)]


def encode(decisions: Sequence[Decision]) -> dict:
    """The decisions of a load (in step order) as plain JSON values: :class:`KeptDecisions`'
    columns, the records compressed (mostly zeros) and in base64."""
    k = KeptDecisions.of(decisions)
    layouts, tensors = _spelled_layouts(k)
    plans, plan_at = _joined(k.distinct_plans, lambda p: p)
    facts, facts_at = _joined(k.distinct_facts, _facts_key)
    return {
        "form": FORM,
        "heads": [[kind, layout, backend, acl, o.allow_copy, o.allow_padding_writes]
                  for kind, layout, backend, acl, o in k.heads],
        "plans": [_encode_plan(p) for p in plans],
        "facts": [_encode_facts(f) for f in facts],
        "layouts": layouts,
        "functions": [i for h, p, f in k.functions for i in (h, plan_at[p], facts_at[f])],
        "tensors": tensors,
        "params_size": k.params_size, "params": _b64(zlib.compress(k.params_blob)),
        "desc_size": k.desc_size, "descs": _b64(zlib.compress(k.desc_blob)),
        "desc_tails": [[t, _b64(b)] for t, b in sorted(k.desc_tails.items())],
    }


def _joined(values: Sequence, key) -> Tuple[list, List[int]]:
    """(``values`` with each content once, in the order of its first entry; each entry's index
    among them): a table made by identity (:meth:`KeptDecisions.of` ``by_identity``) as the
    content-tabled one, which it already is where no two entries are equal."""
    index: Dict[object, int] = {}
    at = [index.setdefault(key(v), len(index)) for v in values]
    if len(index) == len(values):
        return list(values), at
    first: Dict[int, object] = {}
    for v, i in zip(values, at):
        first.setdefault(i, v)
    return [first[i] for i in range(len(index))], at


def _spelled_layouts(k: KeptDecisions) -> Tuple[List[str], List[int]]:
    """(the distinct layout texts, each tensor's index among them; -1 where absent): the
    columns' own where every layout is a distinct text; else (lazy keys, some spelling a text
    another spells too) each text once, in the order the tensors first name it, as
    :meth:`KeptDecisions.of` would have tabled the texts themselves."""
    texts = [layout_text(v) for v in k.distinct_layouts]
    index: Dict[str, int] = {}
    renumbered = [index.setdefault(t, len(index)) for t in texts]
    if len(index) == len(texts):
        return texts, list(k.tensors)
    return list(index), [-1 if t < 0 else renumbered[t] for t in k.tensors]


class KeptValueError(AclNdarrayError, ValueError):
    """A value an earlier process kept (ACL's answers, a load's decisions, an arena: the facts
    cache's JSON) that does not decode: damaged, crafted or of another form. The one class the
    codecs raise (:func:`decode` here, :func:`acl_bridge.configure_session.decode`), so a
    reader catches exactly it and asks ACL again."""


# What the decoders meet in a value of another shape (OverflowError: JSON's Infinity as an int).
DECODE_FAILURES = (ValueError, TypeError, KeyError, IndexError, OverflowError, zlib.error)


def decode(value) -> KeptDecisions:
    """The inverse of :func:`encode`; KeptValueError (naming what failed) when the value has
    another shape."""
    try:
        return _decode(value)
    except DECODE_FAILURES as e:
        raise KeptValueError(f"kept decisions do not decode: {type(e).__name__}: {e}") from None


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


def _head(v) -> tuple:
    kind, data_layout, backend, acl, allow_copy, allow_padding_writes = v
    return (_str(kind, "a kind"), _str(data_layout, "a data layout"), _str(backend, "a backend"), _str(acl, "acl"),
            PlanOptions(_bool(allow_copy, "allow_copy"), _bool(allow_padding_writes, "allow_padding_writes")))


def _indices(v, bound: int, what: str, least: int = 0) -> List[int]:
    """``v`` as a list of ints in [least, bound) (TypeError/ValueError naming ``what``)."""
    if not isinstance(v, list) or not all(type(x) is int for x in v):
        raise TypeError(f"{what} are {str(v)[:80]}, expected a list of integers")
    if v and (min(v) < least or max(v) >= bound):
        raise ValueError(f"{what} run from {min(v)} to {max(v)}, expected {least} to {bound - 1}")
    return v


def _size(v, what: str) -> int:
    if type(v) is not int or v < 0:
        raise TypeError(f"{what} is {v!r}, expected an integer >= 0")
    return v


def _decode(value) -> KeptDecisions:
    if not isinstance(value, dict) or value.get("form") != FORM:
        raise TypeError(f"decisions are {type(value).__name__} of form "
                        f"{value.get('form') if isinstance(value, dict) else None!r}, expected the form {FORM!r}")
    heads = [_head(h) for h in value["heads"]]
    plans = [_plan(p) for p in value["plans"]]
    facts = [_facts(f) for f in value["facts"]]
    layouts = value["layouts"]
    if not isinstance(layouts, list) or not all(type(x) is str for x in layouts):
        raise TypeError("a decision's layouts are not all strings")
    flat = _indices(value["functions"], max(len(heads), len(plans), len(facts)), "the functions' indices")
    if len(flat) % 3:
        raise ValueError(f"{len(flat)} function indices, expected three per function")
    functions = list(zip(flat[0::3], flat[1::3], flat[2::3]))
    if any(h >= len(heads) or p >= len(plans) or f >= len(facts) for h, p, f in functions):
        raise ValueError("a function's head, plan or facts index is past its table")
    tensors = _indices(value["tensors"], len(layouts), "the tensors' layout indices", least=-1)
    # one planned tensor per role, absent exactly where no array (and no description) was given
    absent_by_plan = [t.action is Action.ABSENT for _, p, _ in functions for t in plans[p].tensors]
    if absent_by_plan != [t < 0 for t in tensors]:
        raise ValueError(f"the decisions plan {len(absent_by_plan)} tensors and have {len(tensors)} layouts, "
                         f"expected one per role, absent alike")
    params_size, desc_size = _size(value["params_size"], "params_size"), _size(value["desc_size"], "desc_size")
    params, descs = _unb64(value["params"]), _unb64(value["descs"])
    if params is None or descs is None:
        raise TypeError("a decision's parameters or descriptions are null, expected bytes")
    params, descs = zlib.decompress(params), zlib.decompress(descs)
    if len(params) != params_size * len(functions) or len(descs) != desc_size * len(tensors):
        raise ValueError(f"{len(params)} bytes of parameters and {len(descs)} of descriptions, expected "
                         f"{params_size} per function and {desc_size} per tensor")
    tails: Dict[int, bytes] = {}
    for t, b in value["desc_tails"]:
        if type(t) is not int or not 0 <= t < len(tensors) or tensors[t] < 0:
            raise ValueError(f"a description's tail is for tensor {t!r}, which has no description")
        tails[t] = _unb64(b) or b""
        if len(tails[t]) % 4:  # per-channel scales: whole float32s
            raise ValueError(f"the description of tensor {t} has a tail of {len(tails[t])} bytes, expected float32s")
    return KeptDecisions(heads, plans, facts, layouts, functions, tensors, params, params_size, descs, desc_size,
                         tails)


__all__ = ["Decision", "KeptDecisions", "KeptValueError", "LazyLayoutKey", "layout_key", "layout_prefix",
           "layout_parts", "layout_text", "plain_parts", "quantization_key", "layout_key_with", "quantization_text", "code_identity", "encode", "decode",
           "pad_json", "pad_from_json"]
