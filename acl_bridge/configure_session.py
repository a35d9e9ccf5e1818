"""Where a configure's seconds go, and ACL's answers asked once per content within one load.

Loading a model configures many ACL functions, and before each configure the bridge asks
ACL questions about it (:mod:`acl_bridge.executor`): which padding it wants
(``negotiate``), whether validate() accepts exact layouts (``check_layouts``), its auto
padding (``auto_padding``), what it writes outside the elements (``probe``). The answers
depend only on the question's content: the function kind, its native parameters (bytes),
the tensors' specs or native descriptions (bytes), the backend; ACL's version and the CPU
are those of the process. A :class:`ConfigureSession`, while :meth:`~ConfigureSession.active`
on a thread, keeps each answer by that content, so identical steps of a model (and the
function that asks again what the negotiation already asked) pay for it once; and it
times every native call the executor makes by category (the four questions, plus
``configure``: ACL's validate() and configure() in ``acl_shim_function_create``, and
``import``: native tensors made and their memory imported), in total and per step.

Outside a session (a lone :class:`~acl_bridge.functions.AclFunction`) nothing is kept and
nothing is timed: :func:`ask` calls straight through. A session never outlives the load
that made it. Answers of an earlier process come in as ``known`` (by :func:`question_id`,
stored as :func:`encode` makes them and read back with :func:`decode_all`), only from :mod:`acl_bridge.facts_cache`,
which keeps them per ACL library, shim, CPU and device: an answer never meets another ACL,
CPU or OpenCL device.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time
from collections import defaultdict
from collections.abc import Mapping
from contextlib import contextmanager
from typing import Callable, Dict, Generic, Hashable, Iterator, NamedTuple, Optional, Tuple, TypeVar

from . import decisions
from .decisions import KeptValueError, pad_from_json, pad_json
from .mapping import PerChannelQuantization, scales_hex
from .question_thread import ACL_LOCK, Later, QuestionThread

T = TypeVar("T")

# the categories, in the order a function meets them
CATEGORIES = ("negotiate", "check_layouts", "auto_padding", "probe", "configure", "import")
# the questions whose answers may be reused (configure and import make the function itself)
REUSABLE = frozenset({"negotiate", "check_layouts", "auto_padding", "probe"})
# a whole plan's negotiation (the model runner's: the padding every step asked, per buffer and
# per constant), kept between processes beside ACL's answers it was made of
NEGOTIATED_PLAN = "negotiated_plan"
# a whole load's decisions, function by function (acl_bridge.decisions), kept the same way: a
# second start makes every function from them (no description, negotiation, plan or probe)
CONFIGURED_PLAN = "configured_plan"
# a whole load's arena: where each buffer was placed ((tensor, offset) pairs, in placement
# order), kept so that a second start checks a placement instead of searching for one
MEMORY_PLAN = "memory_plan"

_LOCAL = threading.local()
_MISSING = object()
_LATER = object()  # a question id made when the answers are kept (ConfigureSession.answers)


def question_id(category: str, key: Hashable) -> str:
    """A question's content as a file-safe id: sha256 of its canonical text (:func:`_canonical`:
    the same content gives the same text, different content different text)."""
    return hashlib.sha256(_canonical((category, key)).encode()).hexdigest()[:40]


def _canonical(v: object) -> str:
    """Text that names every value inside ``v`` (tuples, lists, bytes by length and sha256,
    strings, numbers, None, numpy dtypes by their byte-order-explicit code, frozen dataclasses
    field by field): not
    ``repr``, which a dataclass may shorten (PerChannelQuantization lists no scales) and
    numpy spells differently for equal dtypes (``int32`` / ``<i4``)."""
    t = type(v)
    if t is int or t is str or t is bool or v is None:  # the common cases first
        return repr(v)
    if t is bytes:  # native parameters and descriptions: hundreds of bytes, by their digest
        return _bytes_text(v)
    if t is float:  # per-channel scales: hundreds per question
        return float.hex(v)
    if t is tuple or t is list:
        first = type(v[0]) if v else None  # type: ignore[index]
        if (first is float or first is int or first is str) and len(set(map(type, v))) == 1:  # type: ignore
            # a shape, per-channel scales: each item's text without a call each
            return "(" + ",".join(map(float.hex if first is float else repr, v)) + ")"  # type: ignore
        return "(" + ",".join(map(_canonical, v)) + ")"  # type: ignore[call-overload]
    text = _TEXT_OF_TYPE.get(t)
    if text is None:  # what the value's type asks for, found once per type
        text = _TEXT_OF_TYPE[t] = _text_of_type(t, v)
    return text(v)


def _bytes_text(v: bytes) -> str:
    """Bytes as their length and sha256 (what :func:`question_id` hashes anyway; their repr
    spells a zero byte in four characters, and a question holds a few kilobytes of them)."""
    return f"bytes:{len(v)}:{hashlib.sha256(v).hexdigest()}"


def _text_of_type(t: type, v: object) -> Callable[[object], str]:
    """How :func:`_canonical` spells a value of type ``t`` (``v``, one of them) that is none of
    its exact common types: by the first of these it is."""
    if issubclass(t, bytes):
        return lambda x: _bytes_text(bytes(x))  # type: ignore[arg-type]
    if issubclass(t, (bool, int, str)):
        return repr
    if issubclass(t, float):
        return float.hex  # type: ignore[return-value]
    if issubclass(t, (tuple, list)):
        return lambda x: "(" + ",".join(_canonical(y) for y in x) + ")"  # type: ignore[attr-defined]
    if t is PerChannelQuantization:  # frozen, of a tuple of scales: its text kept per object
        return _per_channel_text
    if dataclasses.is_dataclass(t):
        names = tuple(f.name for f in dataclasses.fields(t))
        return lambda x: t.__name__ + _canonical(tuple(getattr(x, name) for name in names))
    if t.__module__.startswith("numpy"):
        if isinstance(getattr(v, "str", None), str):  # a numpy dtype (no numpy import here)
            return lambda x: "dtype:" + x.str  # type: ignore[attr-defined]
        if hasattr(v, "item"):  # a numpy scalar
            return lambda x: _canonical(x.item())  # type: ignore[attr-defined]
    return _no_text


_PER_CHANNEL_TEXTS: Dict[int, tuple] = {}  # id -> (the object, its text): a load asks about each a dozen times


def _per_channel_text(q) -> str:
    kept = _PER_CHANNEL_TEXTS.get(id(q))
    if kept is not None and kept[0] is q:
        return kept[1]
    exact = scales_hex(q)  # every scale a float: _canonical's text of them, made once per object
    text = ("PerChannelQuantization" + _canonical((q.scales, q.axis)) if exact is None
            else f"PerChannelQuantization(({exact}),{q.axis!r})")
    if type(q.scales) is tuple and type(q.axis) is int:  # nothing inside that could change
        if len(_PER_CHANNEL_TEXTS) >= 1024:
            _PER_CHANNEL_TEXTS.clear()
        _PER_CHANNEL_TEXTS[id(q)] = (q, text)
    return text


def _no_text(v: object) -> str:
    raise TypeError(f"a question's content holds a {type(v).__name__} ({v!r}), which has no canonical text")


_TEXT_OF_TYPE: Dict[type, Callable[[object], str]] = {}


def encode(category: str, answer: object) -> object:
    """The answer of a question of ``category`` as plain JSON values."""
    if category == "negotiate":
        return [pad_json(p) for p in answer]  # type: ignore[attr-defined]
    if category == "auto_padding":
        return pad_json(answer)  # type: ignore[arg-type]
    if category == "check_layouts":
        return answer
    if category == "probe":
        writes, same = answer  # type: ignore[misc]
        return [[int(w) for w in writes], bool(same)]
    if category == NEGOTIATED_PLAN:  # ({buffer: [(op index, role, padding)]}, [{role: padding}] per step)
        asked, const_pad = answer  # type: ignore[misc]
        return [[[int(b), [[int(op), str(role), pad_json(p)] for op, role, p in entries]] for b, entries in asked.items()],
                [[[str(role), pad_json(p)] for role, p in per_step.items()] for per_step in const_pad]]
    if category == CONFIGURED_PLAN:
        return decisions.encode(answer)  # type: ignore[arg-type]
    if category == MEMORY_PLAN:
        return [[int(t), int(offset)] for t, offset in answer]  # type: ignore[attr-defined]
    raise ValueError(f"category is {category!r}, expected negotiate, auto_padding, check_layouts, probe, "
                     f"{NEGOTIATED_PLAN}, {CONFIGURED_PLAN} or {MEMORY_PLAN}")


def decode(category: str, value: object) -> object:
    """The inverse of :func:`encode`; KeptValueError (naming the category and what failed)
    when the value has another shape or the category is unknown."""
    try:
        return _decode(category, value)
    except KeptValueError:
        raise
    except decisions.DECODE_FAILURES as e:
        raise KeptValueError(f"a kept {category} answer does not decode: {type(e).__name__}: {e}") from None


def _decode(category: str, value: object) -> object:
    if category == "negotiate":
        return tuple(pad_from_json(v) for v in value)  # type: ignore[union-attr]
    if category == "auto_padding":
        return pad_from_json(value)
    if category == "check_layouts":
        if value is not None and not isinstance(value, str):
            raise TypeError(f"check_layouts answer is {value!r}, expected a message or null")
        return value
    if category == "probe":
        writes, same = value  # type: ignore[misc]
        if not isinstance(same, bool) or any(int(w) not in (0, 1, 2) for w in writes):
            raise ValueError(f"probe answer is {value!r}, expected [[0|1|2, ...], true|false]")
        return tuple(int(w) for w in writes), same
    if category == NEGOTIATED_PLAN:
        asked, const_pad = value  # type: ignore[misc]
        return ({int(b): [(int(op), _role(role), pad_from_json(p)) for op, role, p in entries] for b, entries in asked},
                [{_role(role): pad_from_json(p) for role, p in per_step} for per_step in const_pad])
    if category == CONFIGURED_PLAN:
        return decisions.decode(value)
    if category == MEMORY_PLAN:
        if not isinstance(value, list) or any(not isinstance(p, list) or len(p) != 2 or
                                              any(type(x) is not int or x < 0 for x in p) for p in value):
            raise ValueError(f"a kept arena is {str(value)[:80]}, expected [[tensor, offset], ...] of ints >= 0")
        return tuple((t, offset) for t, offset in value)
    raise ValueError(f"category is {category!r}, expected negotiate, auto_padding, check_layouts, probe, "
                     f"{NEGOTIATED_PLAN}, {CONFIGURED_PLAN} or {MEMORY_PLAN}")


KNOWN_CATEGORIES = frozenset(REUSABLE | {NEGOTIATED_PLAN, CONFIGURED_PLAN, MEMORY_PLAN})


class KeptAnswers(Mapping):
    """One category's answers of an earlier process ({question_id: answer}), each decoded when
    first asked for: a load reads a few of a file's answers (a second start of a model the
    runner kept whole reads three: its negotiation, decisions and arena), so the rest cost
    nothing. An answer that does not decode is reported to ``on_error`` (the facts cache
    warns) and is then absent, so that ACL is asked again; without ``on_error`` the codec's
    KeptValueError is raised."""

    def __init__(self, category: str, encoded: Dict[str, object],
                 on_error: Optional[Callable[[str], None]] = None):
        self.category = category
        self._encoded = encoded
        self._decoded: Dict[str, object] = {}
        self._bad: set = set()
        self._on_error = on_error

    def __getitem__(self, qid: str) -> object:
        try:
            return self._decoded[qid]
        except KeyError:
            pass
        if qid in self._bad:
            raise KeyError(qid)
        value = self._encoded[qid]
        try:
            answer = decode(self.category, value)
        except KeptValueError as e:
            if self._on_error is None:
                raise
            self._bad.add(qid)
            self._on_error(f"{e}; ACL is asked again")
            raise KeyError(qid) from None
        self._decoded[qid] = answer
        return answer

    def __iter__(self) -> Iterator[str]:
        """The question ids whose answers decode (each decoded now: iterating is not the hot
        path, :meth:`get` is)."""
        for qid in list(self._encoded):
            try:
                self[qid]
            except KeyError:  # did not decode (reported once)
                continue
            yield qid

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"KeptAnswers({self.category!r}, {len(self)} answers, {len(self._decoded)} decoded)"


def decode_all(encoded: Dict[str, Dict[str, object]], on_error: Optional[Callable[[str], None]] = None
               ) -> Dict[str, KeptAnswers]:
    """{category: {question_id: answer}} from its encoded form (what a facts file holds), each
    answer decoded when first asked for (:class:`KeptAnswers`); KeptValueError for a category
    this code does not know or one that is no {question_id: answer} map."""
    for c, answers in encoded.items():
        if c not in KNOWN_CATEGORIES:
            raise KeptValueError(f"category is {c!r}, expected one of {sorted(KNOWN_CATEGORIES)}")
        if not isinstance(answers, dict):
            raise KeptValueError(f"the {c} answers are {type(answers).__name__}, expected a map of question ids")
    return {c: KeptAnswers(c, answers, on_error) for c, answers in encoded.items()}


def _role(v: object) -> str:
    if not isinstance(v, str):
        raise TypeError(f"a role is {v!r}, expected a name")
    return v


class KeptSession(NamedTuple):
    """A session's answers to keep (:meth:`ConfigureSession.kept`): by question id, and those
    asked where nothing was known by their content (their ids made when encoded)."""

    by_id: Dict[str, Dict[str, object]]
    unkeyed: Tuple[Tuple[Hashable, object], ...]


def encode_answers(kept: KeptSession) -> Dict[str, Dict[str, object]]:
    """A session's kept answers encoded: what a facts cache keeps ({category: {question id:
    answer as plain values}})."""
    by_id = {c: dict(a) for c, a in kept.by_id.items()}
    for k, answer in kept.unkeyed:  # ids of the answers asked where nothing was known
        try:
            by_id.setdefault(k[0], {})[question_id(*k)] = answer  # type: ignore[index]
        except TypeError:  # content without a canonical text: kept for this load only
            pass
    return {c: {qid: encode(c, answer) for qid, answer in a.items()} for c, a in by_id.items() if a}


class ConfigureSession:
    """ACL's answers by content (``reuse=True``) and the seconds of native calls by category.

    ``seconds[c]``, ``calls[c]`` (native calls made) and ``reused[c]`` (answers given from
    the memo, those of ``known`` included) per category; ``remembered[c]`` of them came from
    ``known`` (an earlier process's answers, decoded: {category: {question_id: answer}});
    ``step_seconds[step][c]`` for the step set in :attr:`step` while the call was made (None:
    no step); of ``seconds[c]``, ``beside[c]`` ran on another thread while this one went on
    (:meth:`ask_beside`, :meth:`add_beside`; meaningful summed over categories).
    :meth:`answers` gives this session's answers encoded, to keep."""

    def __init__(self, reuse: bool = True, known: Optional[Dict[str, Dict[str, object]]] = None):
        self.reuse = bool(reuse)
        self.known = known or {}
        self.seconds: Dict[str, float] = defaultdict(float)
        self.calls: Dict[str, int] = defaultdict(int)
        self.reused: Dict[str, int] = defaultdict(int)
        self.remembered: Dict[str, int] = defaultdict(int)
        self.step_seconds: Dict[int, Dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.step: Optional[int] = None
        self._answers: Dict[Hashable, object] = {}
        # native descriptions of the questions' specs by content, made once per load
        # (acl_bridge.executor; the shim takes them as const)
        self.descriptions: Dict[Hashable, object] = {}
        # this load's answers by question_id (asked of ACL or remembered from known), to keep
        self._by_id: Dict[str, Dict[str, object]] = defaultdict(dict)
        # the keys of answers asked where ``known`` had none of their category: their ids are
        # made when the answers are kept (:meth:`answers`), not on the load's path
        self._unkeyed: list = []
        # questions asked beside this thread and not yet answered (ask_beside), by memo key
        self._pending: Dict[Hashable, "Asked"] = {}
        # per category, the seconds of its calls that ran beside the session's thread (not
        # waited for): part of ``seconds``, not of the caller's wall clock
        self.beside: Dict[str, float] = defaultdict(float)

    def _add(self, category: str, seconds: float, step: object = _MISSING) -> None:
        self.seconds[category] += seconds
        self.calls[category] += 1
        step = self.step if step is _MISSING else step
        if step is not None:
            self.step_seconds[step][category] += seconds  # type: ignore[index]

    def _known(self, category: str, key: Callable[[], Hashable]) -> Tuple[object, object, object]:
        """(memo key, question id, answer): the answer from the memo, ``known`` or a question
        pending beside (an :class:`Asked`), else _MISSING; key and id None where nothing is kept."""
        if not (self.reuse and category in REUSABLE):
            return None, None, _MISSING
        k = (category, key())
        if k in self._answers:
            self.reused[category] += 1
            return k, None, self._answers[k]
        pending = self._pending.get(k)
        if pending is not None:
            self.reused[category] += 1
            return k, None, pending
        known = self.known.get(category)
        if known is None:  # the id only where the answers are kept (:meth:`answers`)
            return k, _LATER, _MISSING
        try:  # an earlier process's answers to look in: the id now
            qid = question_id(*k)
        except TypeError:  # content without a canonical text: kept for this load only
            return k, None, _MISSING
        answer = known.get(qid, _MISSING)
        if answer is not _MISSING:  # (an answer that does not decode is absent: KeptAnswers)
            self._keep(k, qid, answer)
            self.reused[category] += 1
            self.remembered[category] += 1
        return k, qid, answer

    def _keep(self, k: object, qid: object, answer: object) -> None:
        if k is None:
            return
        self._answers[k] = answer
        if qid is _LATER:
            self._unkeyed.append(k)
        elif qid is not None:
            self._by_id[k[0]][qid] = answer  # type: ignore[index]

    def ask(self, category: str, key: Callable[[], Hashable], call: Callable[[], T]) -> T:
        """``call()``'s answer, from the memo when the same ``key()`` was asked before in this
        session (categories in REUSABLE, ``reuse=True``); timed when it is asked of ACL, holding
        :data:`~acl_bridge.question_thread.ACL_LOCK`. A call that raises is timed and not kept."""
        k, qid, answer = self._known(category, key)
        if type(answer) is Asked:
            return answer.result()  # type: ignore[return-value]
        if answer is not _MISSING:
            return answer  # type: ignore[return-value]
        t0 = time.perf_counter()
        try:
            with ACL_LOCK:
                answer = call()
        finally:
            self._add(category, time.perf_counter() - t0)
        self._keep(k, qid, answer)
        return answer  # type: ignore[return-value]

    def ask_beside(self, category: str, key: Callable[[], Hashable], call: Callable[[], T],
                   thread: QuestionThread) -> "Asked[T]":
        """:meth:`ask`'s answer, where it is not known asked on ``thread`` beside this one: an
        :class:`Asked` whose :meth:`~Asked.result` (on this session's thread) gives it and keeps
        it, timed, for the step current now, as :meth:`ask` would have. The same question asked
        again while it is pending gets the same :class:`Asked`."""
        k, qid, answer = self._known(category, key)
        if type(answer) is Asked:
            return answer  # type: ignore[return-value]
        if answer is not _MISSING:
            return Asked(self, category, None, None, None, answer)
        asked: Asked[T] = Asked(self, category, k, qid, thread.submit(call))
        if k is not None:
            self._pending[k] = asked
        return asked

    def add_beside(self, category: str, later: Later, step: Optional[int] = None) -> None:
        """A job's seconds added to ``category`` (for ``step``) once it is answered, and its
        seconds less the caller's wait for it (:attr:`Later.waited`) to ``beside``: a wait for
        one job also waits for the jobs queued before it, so a category's part may be negative;
        summed over the jobs of a thread, it is the time they ran while the caller went on."""
        self._add(category, later.seconds, step)
        self.beside[category] += later.seconds - later.waited

    def answers(self) -> Dict[str, Dict[str, object]]:
        """This session's answers (asked or remembered), encoded: what a facts cache keeps."""
        return encode_answers(self.kept())

    def kept(self) -> "KeptSession":
        """This session's answers as they are now, to encode later on any thread
        (:func:`encode_answers`): copies of its maps, which :meth:`forget` and later questions
        leave as they are (the answers themselves are frozen values)."""
        return KeptSession({c: dict(a) for c, a in self._by_id.items() if a},
                           tuple((k, self._answers[k]) for k in self._unkeyed))

    def timed(self, category: str) -> "_Timed":
        """Time a native call that is never reused (``configure``, ``import``): a context
        manager."""
        return _Timed(self, category)

    def forget(self) -> None:
        """Drop the answers kept (the load is over); the times and counts stay."""
        self._answers.clear()
        self._by_id.clear()
        self._unkeyed.clear()
        self._pending.clear()
        self.descriptions.clear()
        self.known = {}

    def native_seconds(self) -> float:
        return sum(self.seconds.values())

    @contextmanager
    def active(self) -> Iterator["ConfigureSession"]:
        """Make this the session of the current thread (the previous one comes back after)."""
        previous = getattr(_LOCAL, "session", None)
        _LOCAL.session = self
        try:
            yield self
        finally:
            _LOCAL.session = previous


def current() -> Optional[ConfigureSession]:
    """The session active on this thread, or None."""
    return getattr(_LOCAL, "session", None)


def ask(category: str, key: Callable[[], Hashable], call: Callable[[], T]) -> T:
    """``call()`` through the active session (reused or timed), or directly without one."""
    session = current()
    if session is None:
        with ACL_LOCK:
            return call()
    return session.ask(category, key, call)


class Asked(Generic[T]):
    """A question :meth:`ConfigureSession.ask_beside` asked (or found answered): :meth:`result`
    waits for its answer and keeps it in the session, once."""

    __slots__ = ("session", "category", "key", "qid", "later", "step", "_answer", "_timed")

    def __init__(self, session: "ConfigureSession", category: str, key: object, qid: object,
                 later: Optional[Later], answer: object = _MISSING):
        self.session, self.category, self.key, self.qid, self.later = session, category, key, qid, later
        self.step = session.step
        self._answer = answer
        self._timed = later is None

    def result(self) -> T:
        """The answer; what asking raised is raised here (timed, not kept), each time asked."""
        if self._answer is not _MISSING:
            return self._answer  # type: ignore[return-value]
        s, later = self.session, self.later
        assert later is not None
        try:
            answer = later.result()
        finally:
            if not self._timed:
                self._timed = True
                s._pending.pop(self.key, None)
                s.add_beside(self.category, later, self.step)
        s._keep(self.key, self.qid, answer)
        self._answer = answer
        return answer


class _Timed:
    """``with``: the block's seconds added to a session's category (none: nothing timed). A
    class, not a generator: a load enters one per native call (hundreds)."""

    __slots__ = ("session", "category", "t0")

    def __init__(self, session: Optional[ConfigureSession], category: str):
        self.session, self.category = session, category

    def __enter__(self) -> None:
        self.t0 = time.perf_counter()

    def __exit__(self, *exc) -> None:
        if self.session is not None:
            self.session._add(self.category, time.perf_counter() - self.t0)


def timed(category: str) -> _Timed:
    """Time a native call in the active session (nothing without one): a context manager."""
    return _Timed(current(), category)


__all__ = ["ConfigureSession", "Asked", "current", "ask", "timed", "CATEGORIES", "REUSABLE", "NEGOTIATED_PLAN",
           "KeptSession", "encode_answers", "CONFIGURED_PLAN", "question_id", "encode", "decode", "decode_all", "KeptAnswers"]
