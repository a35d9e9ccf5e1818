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
takes, so a first start and a second start make their functions the same way (where ACL's
work runs beside the pass, :func:`beside_worthwhile`, in pieces while it decides:
:mod:`acl_bridge.configure_beside`).

A model repeats calls: the same function on tensors of the same layouts (a block of equal
shapes), and the same tensor read by one function and written by another. Within one
:func:`decide_calls` pass (:class:`Decided`), each tensor's description for the planner and
native description are made once per content (its :func:`~acl_bridge.decisions.layout_key`
and the quantization's types; a buffer one call writes and another reads is described once,
its second role's request differing only in the role's part), the memory's part of a layout
key once per array, and a call whose content is a decided one's
(what :meth:`~acl_bridge.decisions.Decision.matches` compares, the quantization's types too)
takes that decision, as a second start would: nothing is described, asked or planned again.
A call whose tensors are all plain (:func:`_plain_signature`) takes the plan of the first call
of its signature, its descriptions packed from their infos.
The layout keys are not spelled in the pass (:class:`~acl_bridge.decisions.LazyLayoutKey`,
one object per content, which the memos key by identity): only the kept files need their
text, spelled after the load by the background writer.

A function whose plan stages a tensor (its run copies through a buffer of the bridge's own,
in Python) is not made in the one native call: the pass leaves it undecided (None in its
place) and the caller makes it one at a time, the others in the one call. Where the one-call
path does not apply at all (a misaligned tensor of the caller's, ACL refusing or asking for
more padding on the final layouts), nothing is made and the reason is returned: the caller
makes the functions one at a time, as before, and that path says what ACL refused.
"""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Protocol, Sequence, Tuple, Union

from ndarray import NdArray, NotRepresentableError, ShapeDescriptor
from ndarray.errors import AclNdarrayError

from .decisions import Decision, LazyLayoutKey, layout_parts, plain_parts, quantization_key
from .configure_session import Asked, current as current_session
from .executor import (Call, _is_dense, acl_identity, array_layout_prefix, describe_request, in_place_desc, layout_of,
                       facts_with_probe, layouts_rejected, negotiate_padding, negotiated_descs, origin_of, probe_beside,
                       probed_facts)
from .layout import NO_PADDING, PaddingSize
from .mapping import (_SCALE_OFFSET_TYPES, PerChannelQuantization, SymmetricQuantization, _exact_per_channel, _types,
                      padded_descriptor, tensor_info_fields)
from .native import kernels_ask_padding, require_native
from .plan import AclFacts, FunctionPlan, TensorRequest, collapse_problem_of, plan_function
from .question_thread import QuestionThread, cpus_available
from .tensor import desc_content, desc_content_of_fields


class Staged(NamedTuple):
    """What :func:`decide_one` says of a call whose plan stages ``roles``: not for the one
    native call (made one at a time, where its copies run)."""

    roles: Tuple[str, ...]


class Bound(NamedTuple):
    """A call as the model runner's padding negotiation bound and asked it
    (:func:`acl_bridge.models.runtime.negotiation.negotiate`), kept for :func:`decide_calls`,
    which would otherwise bind and ask again: ``call`` (kind, native parameters, quantization per role: what
    :meth:`~acl_bridge.functions.AclFunction._prepare` takes as ``bound``), ``specs`` per
    role, ``padding`` ACL asked for on resizable tensors (zero, not asked, where
    :func:`~acl_bridge.native.kernels_ask_padding` is False), and whether validate() was asked on
    exactly those layouts (``checked``; where not, the decision pass answers it: the function
    made on its final layouts, or the question asked there, :func:`_negotiated_layouts_refused`)."""

    call: tuple
    specs: list
    padding: Tuple[PaddingSize, ...]
    checked: bool


# the constructor's keywords that are not the kind's options nor its quantization: what a call
# bound by the negotiation still takes (AclFunction._bound_call, whose defaults are _prepare's)
_CALL_KEYWORDS = ("data_layout", "allow_copy", "allow_padding_writes", "backend", "workspace")


def _call(cls: type, args: tuple, kwargs: dict, bound: Optional[Bound] = None) -> Call:
    """The :class:`~acl_bridge.executor.Call` the constructor of ``cls`` would configure
    (arguments bound and checked by its own first half, :meth:`AclFunction._prepare`); with
    ``bound``, the negotiation's binding of the same options and shapes instead of binding
    them again (``kwargs``' options then unread), made without a function object
    (:meth:`AclFunction._bound_call`)."""
    if bound is None:
        return cls.__new__(cls)._prepare(args, **kwargs)  # type: ignore[attr-defined]
    if len(args) != len(cls.roles):  # type: ignore[attr-defined]  # (refused there, in its words)
        return cls.__new__(cls)._prepare(args, bound=bound.call)  # type: ignore[attr-defined]
    return cls._bound_call(args, bound.call,  # type: ignore[attr-defined]
                           **{k: kwargs[k] for k in _CALL_KEYWORDS if k in kwargs})


_NUMBERS = frozenset((int, float))


def _immutable(q: object) -> bool:
    """Whether no one can change quantization ``q``, so that its id names its content for a
    pass: None, a tuple of ints and floats, a frozen quantization of those."""
    t = type(q)
    if q is None:
        return True
    if t is tuple:
        return set(map(type, q)) <= _NUMBERS  # type: ignore[call-overload]
    if t is PerChannelQuantization:
        return _exact_per_channel(q)  # type: ignore[arg-type]
    return t is SymmetricQuantization and type(q.scale) in _NUMBERS  # type: ignore[union-attr]


class Decided:
    """What one :func:`decide_calls` pass made, by content: decisions, the planner's tensor
    descriptions, the facts of a negotiated padding, the native descriptions (each key holds
    everything its value is computed from; module docstring); and the layout keys, not spelled
    (:class:`~acl_bridge.decisions.LazyLayoutKey`: only the kept files, written after the
    load, need their text): the memory's part of each array's key by the array's identity, by
    the descriptor's, then one object per content, and one key object per content (memory's
    part, :func:`~acl_bridge.decisions.quantization_key`), so that the memos key by the key
    objects' identities (the arrays, descriptors and keys held here: an id names one object
    for the whole pass)."""

    def __init__(self) -> None:
        self.decisions: Dict[tuple, Decision] = {}
        self.requests: Dict[tuple, TensorRequest] = {}
        self.described: Dict[tuple, TensorRequest] = {}  # a request for the first role of its content
        self.descs: Dict[tuple, bytes] = {}
        self.layouts: Dict[int, Tuple[NdArray, tuple]] = {}  # by id: (array, its layout key's parts)
        # by (descriptor id, origin, padding free): (descriptor, its parts); arrays of one shape share a descriptor
        self.prefixes: Dict[tuple, Tuple[ShapeDescriptor, tuple]] = {}
        self.parts: Dict[tuple, tuple] = {}  # plain layout_parts by content: one object per content
        self.keys: Dict[tuple, LazyLayoutKey] = {}  # (id of the parts, quantization_key) -> the key
        self.facts: Dict[tuple, AclFacts] = {}  # AclFacts of (roles, negotiated padding)
        self.negotiated: Dict[tuple, bool] = {}  # (array id, shape, padding): its layout is the padded spec's
        # by id of an immutable quantization (held here): (it, its quantization_key, its types)
        self.quantizations: Dict[int, Tuple[object, object, object]] = {}
        # a tensor's part of a plain call's signature by its description's key (_descs'), False: not plain
        self.plain: Dict[tuple, object] = {}
        self.plans: Dict[tuple, FunctionPlan] = {}  # a plain call's plan by its signature (_plain_signature)

    def quantization(self, q: object) -> Tuple[object, object]:
        """(a key equal only where the quantizations' texts are, its
        :func:`~acl_bridge.mapping._types`): :func:`~acl_bridge.decisions.quantization_key`
        made once per object of the pass where ``q`` cannot change (None, a tuple of ints and
        floats, a frozen quantization: a model's calls hand the same object to the roles that
        share it); a ``(scale > 0, offset)`` tuple of a float and an int is its own key (a
        new tuple per role, equal by content), else made now. TypeError as quantization_key."""
        made = self.quantizations.get(id(q))
        if made is not None:
            return made[1], made[2]
        if type(q) is tuple and len(q) == 2 and type(q[0]) is float and type(q[1]) is int and q[0] > 0:
            # by content, the tuple its own key: equal floats > 0 and equal ints have one text
            # (-0.0 and 0.0 would not), spelled only if a kept file needs it (LazyLayoutKey)
            return q, _SCALE_OFFSET_TYPES
        qkey, types = quantization_key(q), _types(q)
        if _immutable(q):
            self.quantizations[id(q)] = (q, qkey, types)
        return qkey, types

    def layout_parts(self, a: NdArray) -> tuple:
        """:func:`~acl_bridge.executor.array_layout_prefix` of ``a`` as its
        :func:`~acl_bridge.decisions.layout_parts` (() for a misaligned array of the user's),
        made once per array of the pass and one object per content."""
        made = self.layouts.get(id(a))
        if made is None:
            made = self.layouts[id(a)] = (a, array_layout_prefix(a, self._descriptor_parts) or ())  # type: ignore
        return made[1]

    def _descriptor_parts(self, d: ShapeDescriptor, origin: str, free: bool) -> tuple:
        """:func:`~acl_bridge.decisions.layout_parts`, made once per descriptor object of the
        pass (a frozen value, held here: its id names it for the whole pass)."""
        key = (id(d), origin, free)
        made = self.prefixes.get(key)
        if made is None:
            parts = layout_parts(d, origin, free)
            if plain_parts(parts):  # (else this descriptor's own: equal parts might spell other texts)
                parts = self.parts.setdefault(parts, parts)
            made = self.prefixes[key] = (d, parts)
        return made[1]

    def layout_key(self, a: NdArray, quantization: object) -> Optional[LazyLayoutKey]:
        """``a``'s layout key with ``quantization``, one object per content of the pass; None
        where :func:`~acl_bridge.executor.call_layouts` has none (a misaligned array of the
        user's, a quantization without text)."""
        made = self.layout_key_and_types(a, quantization)
        return None if made is None else made[0]

    def layout_key_and_types(self, a: NdArray, quantization: object) -> Optional[Tuple[LazyLayoutKey, object]]:
        """(:meth:`layout_key`, the quantization's :func:`~acl_bridge.mapping._types`), the
        quantization looked up once; None where layout_key is None."""
        parts = self.layout_parts(a)
        if not parts:
            return None
        try:
            qkey, types = self.quantization(quantization)
        except TypeError:
            return None
        k = (id(parts), qkey)
        key = self.keys.get(k)
        if key is None:
            key = self.keys[k] = LazyLayoutKey(parts, quantization, qkey)
        return key, types


def _layouts(call: Call, memo: Decided) -> Optional[Tuple[Tuple[Optional[LazyLayoutKey], ...], tuple]]:
    """(each role's layout key as :func:`~acl_bridge.executor.call_layouts` would spell it, not
    spelled: :meth:`Decided.layout_key`; each role's quantization's types); None where
    call_layouts is None. One pass over the roles, each quantization looked up once
    (tests/test_decision_pass_bound.py holds it equal to call_layouts and the types one by one)."""
    layouts: List[Optional[LazyLayoutKey]] = []
    qtypes: list = []
    absent: List[int] = []  # roles without a tensor: their types asked after every layout, as before
    for at, role in enumerate(call.roles):
        a = call.arrays[role]
        if a is None:
            layouts.append(None)
            qtypes.append(None)
            absent.append(at)
            continue
        made = memo.layout_key_and_types(a, call.quantization[role])
        if made is None:
            return None
        layouts.append(made[0])
        qtypes.append(made[1])
    for at in absent:
        qtypes[at] = _quantization_types(memo, call.quantization[call.roles[at]])
    return tuple(layouts), tuple(qtypes)


def _quantization_types(memo: Decided, q: object) -> object:
    """:func:`~acl_bridge.mapping._types` of ``q``, from the pass's memo where it has it."""
    try:
        return memo.quantization(q)[1]
    except TypeError:  # a quantization without a key (the call has no layouts then): its types alone
        return _types(q)


def _ids(layouts: Sequence[Optional[LazyLayoutKey]]) -> tuple:
    """The layout keys of a pass by identity (one object per content: :meth:`Decided.layout_key`)."""
    return tuple(None if k is None else id(k) for k in layouts)


def _requests(call: Call, layouts: Sequence[Optional[LazyLayoutKey]], qtypes: tuple,
              memo: Decided) -> List[Optional[TensorRequest]]:
    """:func:`~acl_bridge.executor.describe_call` of ``call``, each request made once per
    content: the layout key (descriptor, origin, free padding, quantization's text), the
    quantization's types, the data layout and the role's part (name, output, const). A
    tensor is described once per content of its own (the layout key, the types, the data
    layout): a buffer one call writes and another reads gets its second role's request from
    the first's, only the role's part differing."""
    out: List[Optional[TensorRequest]] = []
    for role, layout, qt in zip(call.roles, layouts, qtypes):
        if layout is None:
            out.append(None)
            continue
        is_output, const = role in call.outputs, role in call.const_roles
        key = (id(layout), qt, call.data_layout, role, is_output, const)
        r = memo.requests.get(key)
        if r is None:
            first = memo.described.get(key[:3])
            if first is None:
                r = memo.described[key[:3]] = describe_request(
                    role, call.arrays[role], is_output=is_output, data_layout=call.data_layout,  # type: ignore[arg-type]
                    quantization=call.quantization[role], acl_const=const)
            else:  # describe_request's other fields depend on the tensor, its quantization and the data layout
                r = first.for_role(role, is_output, const)
            memo.requests[key] = r
        out.append(r)
    return out


def _by_content(call: Call, layouts: Sequence[Optional[LazyLayoutKey]], qtypes: tuple, table: dict,
                make) -> List[object]:
    """Per role, ``table``'s entry for its tensor's content (None: absent), ``make(at, role,
    key)`` where the table has none: the key is the layout key's identity, the quantization's
    types, the data layout and the backend, all a tensor's description depends on."""
    out: List[object] = []
    for at, (role, layout, qt) in enumerate(zip(call.roles, layouts, qtypes)):
        if layout is None:
            out.append(None)
            continue
        key = (id(layout), qt, call.data_layout, call.backend.name)
        entry = table.get(key)
        if entry is None:
            entry = table[key] = make(at, role, key)
        out.append(entry)
    return out


def _descs(call: Call, layouts: Sequence[Optional[LazyLayoutKey]], qtypes: tuple,
           requests: Sequence[Optional[TensorRequest]], memo: Decided) -> Tuple[Optional[bytes], ...]:
    """Per role, the content of what AclTensor gives ACL in place (None: absent), once per
    content (:func:`_by_content`)."""
    return tuple(_by_content(call, layouts, qtypes, memo.descs,  # type: ignore[arg-type]
                             lambda at, role, _: desc_content(in_place_desc(call, role, requests[at]))))


def _plain_signature(call: Call, layouts: Sequence[Optional[LazyLayoutKey]], qtypes: tuple,
                     memo: Decided) -> Optional[tuple]:
    """Per role, what the planner reads of a plain tensor (rank, origin, whether its padding is
    free; None: absent), or None where some tensor is not plain. Plain: dense, representable,
    without padding or a layout ACL's kernels would collapse wrongly, so that with no padding
    negotiated and no probe the planner's answer for the call is a function of this signature,
    the call's kind, roles and options: :func:`decide_one` plans a signature once per pass. Each
    tensor's part made once per content (:func:`_by_content`), its description with it."""
    parts = _by_content(call, layouts, qtypes, memo.plain, lambda _, role, key: _plain_part(call, role, key, memo))
    return None if False in parts else tuple(parts)


def _plain_part(call: Call, role: str, key: tuple, memo: Decided) -> object:
    """:func:`_plain_signature`'s part for ``role``'s tensor, or False where it is not plain;
    its description (what :func:`_descs` makes for it) kept in the pass's memo. A tensor of the
    caller's that is misaligned has no layout key and never comes here."""
    a = call.arrays[role]
    if not _is_dense(a):  # type: ignore[arg-type]
        return False
    origin = origin_of(a)  # type: ignore[arg-type]
    side = layout_of(a, origin)  # type: ignore[arg-type]
    try:  # its info's fields, made once here: neither the info object nor its cache by content
        fields = tensor_info_fields(side, call.data_layout, call.quantization[role])
    except NotRepresentableError:  # (the planner's problem: not plain)
        return False
    shape, strides, _, _, padding = fields[:5]
    if padding or collapse_problem_of(shape, strides, side) is not None:
        return False
    if key not in memo.descs:  # in_place_desc of a dense tensor: its info, no padding declared
        memo.descs[key] = desc_content_of_fields(fields, call.backend)
    return len(a.shape), origin, bool(getattr(a, "padding_is_free", True))  # type: ignore[union-attr]


class Probing(NamedTuple):
    """A call :func:`decide_one` planned and whose probe runs beside the pass
    (:func:`~acl_bridge.executor.probe_beside`): :func:`finish_probing` decides it once the
    answer has come."""

    call: Call
    key: tuple
    bound: Optional[Bound]
    requests: List[Optional[TensorRequest]]
    facts: AclFacts
    layouts: tuple
    qtypes: tuple
    params: bytes
    asked: Asked  # the probe's answer to come


def decide_one(call: Call, memo: Optional[Decided] = None, bound: Optional[Bound] = None,
               beside: Optional[QuestionThread] = None) -> Tuple[Union[Decision, Staged, Probing, None], str]:
    """The decision :func:`~acl_bridge.executor.configure` would make for ``call`` on a first
    start, and ""; (:class:`Staged`, why) where its plan stages a tensor; or (None, why) where
    the one-call path cannot make it (a misaligned tensor of the caller's, validate() refusing
    the negotiated layouts of a negotiation that did not ask it). ACL's refusals (AclError)
    propagate. ``memo``: what earlier calls of the same pass made (:class:`Decided`; a call of
    a decided content takes its decision). ``bound``: the negotiation's :class:`Bound` of this call
    (its padding is the answer asking again would give, or zero where the kernels ask none).
    ``beside``: where given, a probe the plan needs is asked on that thread and the call is
    left :class:`Probing` (:func:`finish_probing` decides it), else it is asked here."""
    ffi, _ = require_native()
    memo = Decided() if memo is None else memo
    made_layouts = _layouts(call, memo)
    if made_layouts is None:
        return None, f"{call.kind}: a tensor of the caller's is misaligned or has a quantization without text"
    layouts, qtypes = made_layouts
    params = ffi.buffer(call.params)[:]
    key = (call.kind, params, call.data_layout, call.options, _ids(layouts), qtypes, call.backend.name, call.roles,
           call.outputs, call.const_roles)
    made = memo.decisions.get(key)
    if made is not None:
        return made, ""
    if bound is None:
        specs = [call.spec(r) for r in call.roles]
        pads = negotiate_padding(call.kind, call.params, specs, call.backend)
    else:
        pads = bound.padding
    facts = memo.facts.get((call.roles, pads))
    if facts is None:
        facts = memo.facts[(call.roles, pads)] = AclFacts(required_padding=dict(zip(call.roles, pads)))
    plain_key = None  # a start that asks ACL no padding (kernels_ask_padding): the plain signature's plan
    if bound is not None and not bound.checked and not any(pads) \
            and not kernels_ask_padding(call.backend.name, call.data_layout):
        signature = _plain_signature(call, layouts, qtypes, memo)
        if signature is not None:
            plain_key = (call.kind, call.options, call.roles, call.outputs, call.const_roles, signature, id(facts))
            plan = memo.plans.get(plain_key)
            if plan is not None:  # planned for an earlier call of this signature: nothing to ask or plan
                descs = _descs(call, layouts, qtypes, (None,) * len(layouts), memo)  # (each made with its part)
                made = memo.decisions[key] = Decision(call.kind, params, call.data_layout, call.options, layouts, plan,
                                                      facts, descs, call.backend.name, acl_identity())
                return made, ""
    requests = _requests(call, layouts, qtypes, memo)
    if bound is not None and not bound.checked:
        refused = _negotiated_layouts_refused(call, bound, requests, memo)
        if refused is not None:
            return None, f"{call.kind}: validate() refuses its negotiated layouts: {refused}"
    plan = plan_function(call.kind, requests, facts, call.options, call.roles)
    if plan.needs_probe:
        if beside is not None:
            probing = memo.decisions[key] = Probing(call, key, bound, requests, facts, layouts, qtypes, params,
                                                    probe_beside(call, plan, requests, beside))
            return probing, ""
        facts = facts_with_probe(call, plan, facts, requests)
        plan = plan_function(call.kind, requests, facts, call.options, call.roles)
    elif plain_key is not None and not plan.staged:
        memo.plans[plain_key] = plan
    return _decided(call, key, bound, requests, facts, plan, layouts, qtypes, params, memo)


def finish_probing(probing: Probing, memo: Decided) -> Tuple[Union[Decision, Staged, None], str]:
    """:func:`decide_one`'s answer for a call left :class:`Probing`, its probe's answer come
    (waited for where it has not): the plan made again with the probe's findings, as
    :func:`~acl_bridge.executor.decide` makes it. ACL's refusals propagate."""
    p = probing
    facts = probed_facts(p.call, p.facts, p.asked.result())
    plan = plan_function(p.call.kind, p.requests, facts, p.call.options, p.call.roles)
    return _decided(p.call, p.key, p.bound, p.requests, facts, plan, p.layouts, p.qtypes, p.params, memo)


def _decided(call: Call, key: tuple, bound: Optional[Bound], requests: List[Optional[TensorRequest]],
             facts: AclFacts, plan: FunctionPlan, layouts: tuple, qtypes: tuple, params: bytes,
             memo: Decided) -> Tuple[Union[Decision, Staged, None], str]:
    """The end of :func:`decide_one` once ``plan`` is made: (:class:`Staged`, why) for a plan
    that stages (ACL asked about its negotiated layouts where the negotiation did not), else
    the Decision, kept in ``memo`` for the calls of the same content."""
    if plan.staged:
        if bound is not None and not bound.checked:  # made one at a time, not on these layouts: asked here
            refused = _negotiated_layouts_refused(call, bound, requests, memo, in_one_call=False)
            if refused is not None:
                return None, f"{call.kind}: validate() refuses its negotiated layouts: {refused}"
        return Staged(plan.staged), f"{call.kind}: its plan stages {list(plan.staged)}"
    made = memo.decisions[key] = Decision(call.kind, params, call.data_layout, call.options, layouts, plan, facts,
                                          _descs(call, layouts, qtypes, requests, memo), call.backend.name,
                                          acl_identity())
    return made, ""


def _negotiated_layouts_refused(call: Call, bound: Bound, requests: Sequence[Optional[TensorRequest]],
                                memo: Optional[Decided] = None, in_one_call: bool = True) -> Optional[str]:
    """ACL's "Insufficient Padding" message where validate() refuses the call's negotiated
    layouts, else None: not asked where every tensor's final layout is its negotiated one (its
    descriptor that of its spec with exactly that padding, declared to ACL as that padding: the
    same native description, the bridge's buffer or the model's own dense constant alike; the
    one native call then makes the function on those very layouts, and a refusal there
    negotiates again), nor where the negotiated layouts are dense and this ACL's kernels of the
    backend ask no padding (:func:`~acl_bridge.native.kernels_ask_padding`: validate() wants
    none of a dense layout; the final layouts are validated by the probe or the one native
    call, and a refusal there negotiates again), asked of ACL otherwise. ``memo``: the pass's,
    where each array's comparison with a spec's padded layout is kept (an array meets it for
    both its roles). ``in_one_call`` False (a staging function, made one at a time on its
    staging buffers): asked wherever the negotiated layouts are not dense ones validate() wants
    no padding of, the final layouts being no answer for them."""
    if not any(bound.padding) and not kernels_ask_padding(call.backend.name, call.data_layout):
        return None
    if not in_one_call:
        return layouts_rejected(call.kind, call.params, negotiated_descs(bound.specs, bound.padding, call.backend))
    same_layout = {} if memo is None else memo.negotiated
    for role, spec, pad, r in zip(call.roles, bound.specs, bound.padding, requests):
        if spec is None:
            continue
        a, shape = call.arrays[role], spec[0]
        pad = pad.for_rank(len(shape))
        if r is None or r.acl_padding != pad or r.info is None:
            same = False
        else:  # (the memo's arrays are held by memo.layouts: an id names one array for the pass)
            same = same_layout.get((id(a), shape, pad))
            if same is None:
                same = same_layout[(id(a), shape, pad)] = a.descriptor == padded_descriptor(  # type: ignore[union-attr]
                    shape, a.dtype, pad)  # type: ignore[union-attr]
        if not same:
            return layouts_rejected(call.kind, call.params, negotiated_descs(bound.specs, bound.padding,
                                                                             call.backend))
    return None


class MakesBeside(Protocol):
    """What makes the functions while the pass decides them
    (:class:`acl_bridge.configure_beside.MadeBeside`): its thread, and each call's decision
    (None: it stages a tensor) given once final."""

    thread: QuestionThread

    def decided(self, k: int, decision: Optional[Decision]) -> None: ...


def beside_worthwhile(padding_asked: bool) -> bool:
    """Whether a pass asks ACL on a second thread beside it: where it asks ACL nothing else
    (``padding_asked`` False: elsewhere each of its questions would wait for the one running,
    ACL being asked one thing at a time; measured on ACL 20.08: 12-14% slower), a configure
    session is active and more than one CPU is available."""
    return not padding_asked and current_session() is not None and cpus_available() > 1


def decide_calls(calls: Sequence[Tuple[type, tuple, dict]], step_of=None,
                 bound: Optional[Sequence[Optional[Bound]]] = None,
                 padding_asked: bool = True, probes_beside: Optional[bool] = None,
                 made_beside: Optional[MakesBeside] = None) -> Tuple[Optional[List[Optional[Decision]]], str]:
    """Every call's first-start decision ((class, tensors, keyword arguments) as its
    constructor would be given them), in order: (decisions, why) with None in the place of
    each call whose plan stages a tensor (made one at a time; ``why`` says the first, else
    ""), or (None, why) at the first call the one-call path cannot take (:func:`decide_one`,
    or ACL's refusal: the one-at-a-time path raises it again, with the operator's name).
    ``step_of(k)``, where given, is called before call ``k`` (the runner's profile attributes
    its questions).
    ``bound``: per call, the negotiation's :class:`Bound` of it (None: bound here, and ACL
    asked its padding; with ``padding_asked`` False none is asked: where this ACL's kernels
    ask none, :func:`~acl_bridge.native.kernels_ask_padding`, and no negotiation was made,
    :func:`acl_bridge.models.runtime.negotiation.unasked`). A staging call of a negotiation
    that did not ask validate() has it asked on its negotiated layouts (:func:`decide_one`):
    a refusal ends the pass, as for any other call.
    ``probes_beside``: the probes asked on a second thread while the pass goes on
    (:mod:`acl_bridge.question_thread`), the probed calls decided at the end: the same
    decisions and answers as asking each in turn. None: :func:`beside_worthwhile`.
    ``made_beside``: each call's final decision given to it as the pass makes it (the
    functions made on its thread meanwhile), the probes asked on its thread; its owner closes
    the thread."""
    acl_identity()  # (asked before any probe runs beside: ACL is asked one thing at a time)
    if made_beside is not None:
        return _decide_all(calls, step_of, bound, padding_asked, made_beside.thread, made_beside)
    threaded = probes_beside if probes_beside is not None else beside_worthwhile(padding_asked)
    beside = QuestionThread(threaded=True) if threaded else None
    try:
        return _decide_all(calls, step_of, bound, padding_asked, beside)
    finally:
        if beside is not None:
            beside.close()  # every probe has run: nothing of ACL is left running


def _probes_first(calls: Sequence[Tuple[type, tuple, dict]]) -> List[int]:
    """The calls' indices in the order the pass decides them: first those on memory that other
    tensors view (``allow_padding_writes`` False: the runner's channel slices, concatenated
    outputs and their roots, where the probes are), so that their probes run beside the rest
    of the pass; each group in call order. A call's decision depends on its own content and
    ACL's answers alone, so the order changes when a probe runs, never what is decided."""
    first = [k for k, (_, _, kwargs) in enumerate(calls) if not kwargs.get("allow_padding_writes", False)]
    if len(first) in (0, len(calls)):
        return list(range(len(calls)))
    chosen = set(first)
    return first + [k for k in range(len(calls)) if k not in chosen]


def _decide_all(calls: Sequence[Tuple[type, tuple, dict]], step_of, bound: Optional[Sequence[Optional[Bound]]],
                padding_asked: bool, beside: Optional[QuestionThread], made_beside: Optional[MakesBeside] = None
                ) -> Tuple[Optional[List[Optional[Decision]]], str]:
    """:func:`decide_calls`' pass: every call decided (with ``beside``, in :func:`_probes_first`'s
    order, its probes asked there; each final decision given to ``made_beside``), then the
    answer made in call order."""
    made: Dict[int, Tuple[Union[Decision, Staged, Probing], str]] = {}
    refused: Optional[Tuple[int, str]] = None  # the first call (by index) the pass could not take, and why
    memo = Decided()
    for k in (_probes_first(calls) if beside is not None else range(len(calls))):
        if refused is not None and k > refused[0]:
            continue  # (only an earlier call's refusal would be the pass's answer now)
        cls, args, kwargs = calls[k]
        if step_of is not None:
            step_of(k)
        if not isinstance(cls, type):  # a stand-in for a function class: made one at a time
            refused = (k, f"function {k}: {cls!r} is not a function class")
            continue
        b = None if bound is None else bound[k]
        try:
            call = _call(cls, args, kwargs, b)
            if b is None and not padding_asked:  # bound here: what an unasked negotiation's binding holds
                b = Bound((call.kind, call.params, call.quantization), [call.spec(r) for r in call.roles],
                          (NO_PADDING,) * len(call.roles), False)
            decision, why = decide_one(call, memo, b, beside)
        except AclNdarrayError as e:  # ACL's refusal, or arguments refused: the other path says it
            refused = (k, f"function {k}: {e}")
            continue
        if decision is None:
            refused = (k, f"function {k}: {why}")
            continue
        made[k] = (decision, why)
        if made_beside is not None and not isinstance(decision, Probing):
            made_beside.decided(k, decision if isinstance(decision, Decision) else None)
    # in call order: the probed calls decided (a refusal of an earlier call is the pass's answer)
    out: List[Optional[Decision]] = []
    staged = ""  # the first call left to the one-at-a-time path, and why
    finished: Dict[int, Tuple[Union[Decision, Staged, None], str]] = {}  # id(Probing) -> its answer
    for k in range(len(calls) if refused is None else refused[0]):
        decision, why = made[k]
        if isinstance(decision, Probing):
            answer = finished.get(id(decision))
            if answer is None:
                if step_of is not None:
                    step_of(k)
                try:
                    answer = finished[id(decision)] = finish_probing(decision, memo)
                except AclNdarrayError as e:
                    return None, f"function {k}: {e}"
            decision, why = answer  # type: ignore[assignment]
            if decision is None:
                return None, f"function {k}: {why}"
            if made_beside is not None:
                made_beside.decided(k, decision if isinstance(decision, Decision) else None)
        if isinstance(decision, Staged):
            staged = staged or f"function {k}: {why}"
            out.append(None)
            continue
        out.append(decision)  # type: ignore[arg-type]
    if refused is not None:
        return None, refused[1]
    return out, staged


__all__ = ["Bound", "Decided", "MakesBeside", "Probing", "Staged", "beside_worthwhile", "decide_calls", "decide_one",
           "finish_probing"]
