"""What a runner keeps between processes and recalls on its next start: ACL's compiled OpenCL
programs (:mod:`acl_bridge.cl_program_cache`), and ACL's answers with the negotiation, the
arena placement and every function's decision (:mod:`acl_bridge.facts_cache`), each under a
key of the content it depends on; and the stamp of the layout code those decisions depend on,
so that changed layout code starts with fresh decisions."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Dict, Optional, Tuple

import ndarray

from ...cl_program_cache import CacheReport, ProgramCache
from ...configure_batch import RecalledFunctions
from ...configure_session import CONFIGURED_PLAN, MEMORY_PLAN, NEGOTIATED_PLAN, ConfigureSession, encode
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


def open_facts(model_sha256: str, backend_name: str, facts_cache, reuse_facts: bool,
               session: ConfigureSession) -> Tuple[Optional[FactsCache], FactsCacheReport]:
    """ACL's answers of an earlier process with the same ACL, shim, CPU and device, given to
    the load's ``session``: (the cache, its report), or (None, why it is off)."""
    if facts_cache is False or not reuse_facts:
        return None, FactsCacheReport("off", None, "facts_cache=False" if facts_cache is False else "reuse_facts=False")
    try:
        ident = facts_identity(backend_name)
    except (OSError, AclError) as e:  # no /proc (not Linux), no ACL: nothing to key answers by
        return None, FactsCacheReport("off", None, f"no identity for ACL's answers: {e}")
    facts = FactsCache(model_sha256, ident, None if facts_cache is True else facts_cache)
    report = facts.load()
    session.known = facts.decoded
    return facts, report


def answers_to_keep(runner) -> Dict[str, Dict[str, object]]:
    """Everything a configured ``runner`` learnt that its next start can recall: the session's
    answers, the negotiation as the load ended it (after any renegotiation, which grows it in
    place), the arena placement where it was made afresh, and the functions' decisions where
    some were not recalled (a batch's decisions as columns, without making its functions'
    objects)."""
    answers = runner._session.answers()
    if runner._negotiation_made is not None:
        key, made = runner._negotiation_made
        answers.setdefault(NEGOTIATED_PLAN, {})[key] = encode(NEGOTIATED_PLAN, made)
    if runner._arena_key is not None and runner.memory is not None and not runner.memory_recalled:
        answers.setdefault(MEMORY_PLAN, {})[runner._arena_key] = encode(
            MEMORY_PLAN, [(s.tensor, s.offset_in_bytes) for s in runner.memory.slots])
    if runner._decisions_key is not None and runner.functions_recalled < len(runner.functions):
        f = runner.functions
        made_decisions = f.decisions if isinstance(f, RecalledFunctions) else tuple(x.decision for x in f)
        if isinstance(f, RecalledFunctions) or all(d is not None for d in made_decisions):
            answers.setdefault(CONFIGURED_PLAN, {})[runner._decisions_key] = encode(CONFIGURED_PLAN, made_decisions)
    return answers


__all__ = ["layout_code_identity", "restore_programs", "open_facts", "answers_to_keep"]
