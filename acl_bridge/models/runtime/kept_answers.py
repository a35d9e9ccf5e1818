"""What a runner keeps between processes and recalls on its next start: ACL's compiled OpenCL
programs (:mod:`acl_bridge.cl_program_cache`), and ACL's answers with the negotiation, the
arena placement and every function's decision (:mod:`acl_bridge.facts_cache`), each under a
key of the content it depends on, taken when the load ends and encoded and written later by
the background writer (:class:`KeptFiles`, :mod:`acl_bridge.keep_writer`); and the stamp of
the layout code those decisions depend on, so that changed layout code starts with fresh
decisions."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import ndarray
from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

from ... import keep_writer
from ...cl_program_cache import CacheReport, ProgramCache
from ...configure_batch import RecalledFunctions
from ...configure_session import (CONFIGURED_PLAN, MEMORY_PLAN, NEGOTIATED_PLAN, ConfigureSession, KeptSession, encode,
                                  encode_answers)
from ...errors import AclError
from ...facts_cache import FactsCache, FactsCacheReport
from ...facts_cache import identity as facts_identity
from ...opencl import cl_init
from ...user_cache import sources_stamp

_HERE = Path(__file__).resolve().parent
# The sources that fix every buffer's layout from a plan and its negotiated padding (the
# allocation, the views, the memory plan, the descriptors), with the batch that checks kept
# decisions against them: a load's decisions are kept under a stamp of them too, so that a
# changed layout code starts with fresh decisions instead of a batch that refuses every one.
_LAYOUT_SOURCES = ((_HERE, ("tflite_runner.py", "function_kinds.py", "buffers.py", "negotiation.py", "step_calls.py")),
                   (_HERE.parent / "planning", ("tflite_plan.py", "memory_plan.py")),
                   (_HERE.parent.parent, ("configure_batch.py",)),
                   (Path(ndarray.__file__).resolve().parent, ("descriptor.py", "array.py", "strides.py", "memory.py")))


@functools.lru_cache(maxsize=None)
def layout_code_identity() -> str:
    """A stamp of :data:`_LAYOUT_SOURCES` (user_cache.sources_stamp), made once per process
    (OSError when unreadable)."""
    return "".join(sources_stamp(d, names)[:16] for d, names in _LAYOUT_SOURCES)


def restore_programs(backend_name: str, program_cache) -> Tuple[Optional[ProgramCache], Optional[CacheReport]]:
    """CL: start OpenCL (the device error comes here, before anything is built) and restore
    the program cache: (the cache, its report); (None, None) on NEON, (None, "off") with the
    cache off."""
    if backend_name != "cl":
        return None, None
    cl_init()
    if program_cache is False:
        return None, CacheReport("off", None, "program_cache=False")
    cache = ProgramCache(None if program_cache is True else program_cache)
    return cache, cache.restore()


def open_facts(model_md5: str, backend_name: str, facts_cache, reuse_facts: bool,
               session: ConfigureSession) -> Tuple[Optional[FactsCache], FactsCacheReport]:
    """ACL's answers of an earlier process with the same ACL, shim, CPU and device, given to
    the load's ``session``: (the cache, its report), or (None, why it is off)."""
    if facts_cache is False or not reuse_facts:
        return None, FactsCacheReport("off", None, "facts_cache=False" if facts_cache is False else "reuse_facts=False")
    try:
        ident = facts_identity(backend_name)
    except (OSError, AclError) as e:  # no ACL, an identity file not stat'ed: nothing to key by
        return None, FactsCacheReport("off", None, f"no identity for ACL's answers: {e}")
    facts = FactsCache(model_md5, ident, None if facts_cache is True else facts_cache)
    report = facts.load()
    session.known = facts.decoded
    return facts, report


class AnswersToKeep(NamedTuple):
    """What a configured runner learnt, as it was when its load ended (:func:`answers_kept`):
    frozen values and copies of its maps, to encode on any thread (:func:`encode_kept`)."""

    session: KeptSession
    negotiation: Optional[Tuple[str, object]]  # (key, (asked, constant padding))
    arena: Optional[Tuple[str, Tuple[Tuple[int, int], ...]]]  # (key, (tensor, offset) pairs)
    # (key, every function's decision); the key may be a function that spells it (None: nothing
    # to key them by), as a first start leaves it to the writer (TfliteRunner._recall_decisions)
    decisions: Optional[Tuple[Union[str, Callable[[], Optional[str]]], Sequence[object]]]


def answers_kept(runner) -> AnswersToKeep:
    """Everything a configured ``runner`` learnt that its next start can recall, taken now (it
    may be encoded later; nothing the runner does afterwards changes it): the session's answers,
    the negotiation as the load ended it (after any renegotiation, which grows it in place), the
    arena placement where it was made afresh, and the functions' decisions where some were not
    recalled (a batch's decisions as columns, without making its functions' objects)."""
    negotiation = arena = decisions = None
    if runner._negotiation_made is not None:
        key, (asked, const_pad) = runner._negotiation_made
        negotiation = (key, ({b: tuple(entries) for b, entries in asked.items()}, [dict(p) for p in const_pad]))
    if runner._arena_key is not None and runner.memory is not None and not runner.memory_recalled:
        arena = (runner._arena_key, tuple((s.tensor, s.offset_in_bytes) for s in runner.memory.slots))
    if runner._decisions_key is not None and runner.functions_recalled < len(runner.functions):
        f = runner.functions
        made_decisions = f.decisions if isinstance(f, RecalledFunctions) else tuple(x.decision for x in f)
        if isinstance(f, RecalledFunctions) or all(d is not None for d in made_decisions):
            decisions = (runner._decisions_key, made_decisions)
    return AnswersToKeep(runner._session.kept(), negotiation, arena, decisions)


def encode_kept(kept: AnswersToKeep) -> Dict[str, Dict[str, object]]:
    """:func:`answers_kept`'s answers encoded, as the facts cache keeps them."""
    answers = encode_answers(kept.session)
    for category, entry in ((NEGOTIATED_PLAN, kept.negotiation), (MEMORY_PLAN, kept.arena),
                            (CONFIGURED_PLAN, kept.decisions)):
        if entry is None:
            continue
        key = entry[0]() if callable(entry[0]) else entry[0]
        if key is not None:
            answers.setdefault(category, {})[key] = encode(category, entry[1])
    return answers


FOREGROUND_ENV = "ACL_NDARRAY_KEEP_IN_FOREGROUND"


def _ignored(result: object) -> None:
    """A kept file's result that no report takes."""


def keeps_in_background(option: Optional[bool]) -> bool:
    """Whether a runner's kept files are written by the background writer: ``option`` where it
    is True or False, else (None) unless ``$ACL_NDARRAY_KEEP_IN_FOREGROUND`` is ``1``.
    ArgumentTypeError for another option, UnsupportedOptionError for another value of the
    variable."""
    if option is None:
        value = os.environ.get(FOREGROUND_ENV, "")
        if value not in ("", "0", "1"):
            raise UnsupportedOptionError(f"${FOREGROUND_ENV} is {value!r}, expected 1 (the files written during "
                                         f"the load), 0 or unset (written after it, in the background)")
        return value != "1"
    if not isinstance(option, bool):
        raise ArgumentTypeError(f"keep_in_background is {option!r}, expected True, False or None "
                                f"(${FOREGROUND_ENV} decides)")
    return option


class KeptFiles:
    """The files one load keeps (the lowered plan, ACL's answers, a re-planned plan), each a
    job of :mod:`acl_bridge.keep_writer` with what to do with its result (``on_result``, on
    the caller's thread). ``background``: the jobs are held (pending, not run) until
    :meth:`start` (the runner's first result is made), then written by the background
    writer; else each is written at once, where the load meets it, its warnings issued there."""

    def __init__(self, background: bool):
        self.background = background
        self._jobs: List[Tuple[keep_writer.Kept, Callable[[object], None]]] = []

    def add(self, paths: Sequence[Path], work: Callable[[], object], warning: type,
            on_result: Callable[[object], None]) -> None:
        """A file to keep: ``work() -> (result, warnings)`` writes ``paths``."""
        if self.background:
            self._jobs.append((keep_writer.hold(paths, work, warning), on_result))  # type: ignore[arg-type]
        else:
            self._jobs.append((keep_writer.run_here(paths, work, warning), on_result))  # type: ignore[arg-type]
            self.settle(stacklevel=3)

    def start(self) -> None:
        """Hand the held jobs to the background writer (in the order the load met them; those
        released already, the writer ignores)."""
        if self._jobs:
            keep_writer.release([job for job, _ in self._jobs])

    def start_when_gone(self, owner: object) -> None:
        """The held jobs released once ``owner`` (the runner) is collected, by the next load's
        first file (:func:`acl_bridge.keep_writer.release_when_gone`), if nothing started them
        before (they would otherwise wait for a wait or the interpreter's exit)."""
        if self._jobs:
            keep_writer.release_when_gone(owner, [job for job, _ in self._jobs])

    def results_ignored(self) -> None:
        """The files given so far are still written, their results taken by no report (a
        load that failed and starts again without the caches reports that start's)."""
        self._jobs = [(job, _ignored) for job, _ in self._jobs]

    @property
    def pending(self) -> bool:
        """Whether a file given to the writer is not written yet (or one is still held)."""
        return any(not job.done for job, _ in self._jobs)

    def settle(self, stacklevel: int = 2) -> None:
        """Wait for the files given to the writer (those held released first), each one's
        result handed to its ``on_result`` and its warnings issued here (once)."""
        self.start()
        jobs, self._jobs = self._jobs, []
        for job, on_result in jobs:  # every result handed over before any warning (one raised
            on_result(job.result())  # as an error loses no report)
        for job, _ in jobs:
            job.wait(stacklevel=stacklevel + 1)


__all__ = ["layout_code_identity", "restore_programs", "open_facts", "answers_kept", "encode_kept",
           "AnswersToKeep", "KeptFiles", "keeps_in_background", "FOREGROUND_ENV"]
