"""ACL's answers about a model's functions, kept between processes: a second start asks
ACL nothing it already answered.

Loading a model asks ACL, per function, which padding it wants (``negotiate``), whether
validate() accepts exact layouts (``check_layouts``), its auto padding and what it writes
outside the elements (``probe``); :mod:`acl_bridge.configure_session` keeps each answer by
its content for one load. The answers depend only on that content and on which ACL answers:
the library file, the native shim, the CPU (ACL picks kernels by its features), ACL's thread
count and, on OpenCL, the device and driver. :class:`FactsCache` keeps them in a file per
model and :func:`identity`, so the next process with the same identity starts with them:

* the file is sealed (:func:`acl_bridge.user_cache.seal`: magic, version, lengths, CRC-32)
  around the identity (JSON) and the answers (JSON: per category, the sha256 of the
  question's content -> the answer as plain values); nothing in it is executed or unpickled;
* the identity names ACL's version, every loaded ``libarm_compute`` file and the shim's
  module by path, size and modification time (a rebuilt or upgraded library is another
  identity), the shim's ABI version, the package version, the CPU as ACL sees it (the
  kernel's hardware capability words, ACL's CPU model per core and feature flags), ACL's
  thread count and the OpenCL device and driver; any change is another file. The CPU and the
  files come from one native call (:func:`acl_bridge.native.identity_text`), not from /proc
  files and a realpath and stat per file in Python;
* a file that fails its seal or names another identity is a :class:`FactsCacheWarning` and
  a start that asks ACL again, never an exception; so is a directory that cannot be read or
  written. Each answer is decoded when a load first asks for it (a second start reads three of
  a file's answers): one that does not decode is a warning then, and ACL is asked again.
  ``$ACL_NDARRAY_FACTS_CACHE``, else ``~/.cache/acl-ndarray/acl-facts``.

An answer taken from the file is exactly what ACL said last time for the same question on
the same library, shim and CPU; the checks after it are unchanged (validate() on the final
layouts, renegotiation, staging), so a wrong answer could cost a copy, not a write outside a
buffer. The model runner also keeps its whole negotiation (``negotiated_plan``) and every
function's decision (``configured_plan``, :mod:`acl_bridge.decisions`: its plan and the native
description of each tensor) here; a kept description is handed to ACL only after checking
that it addresses nothing outside the buffer it is given (element size, x stride, extent), and
one that does not fit is decided afresh. Measurements: docs/performance.md, "Start-up".
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Mapping, Optional, Tuple, Union

from ._version import __version__
from .configure_session import decode_all
from .user_cache import CacheFileRejected, read_trusted, seal, unseal, user_cache_dir, write_atomically

DIR_ENV = "ACL_NDARRAY_FACTS_CACHE"
MAGIC = b"ACLNDFC\x00"
FORMAT_VERSION = 4  # 2: CRC-32 seal; 3: decisions as columns (acl_bridge.decisions.KeptDecisions);
# 4: the identity from the native module, the model by its MD5
SUFFIX = ".aclfacts"
MAX_FILE_BYTES = 256 << 20  # a facts file is a few hundred KiB; a bound keeps a crafted one from filling memory


class FactsCacheWarning(UserWarning):
    """The kept answers were not used (damaged or foreign file, unreadable or unwritable
    directory): ACL was asked again. Never raised as an error."""


@dataclass(frozen=True)
class FactsCacheReport:
    """What the cache did for one load: ``state`` "off", "cold" (nothing usable: ``reason``)
    or "warm" (``answers`` kept answers from ``path``); ``saved`` new answers written."""

    state: str
    path: Optional[str]
    reason: str = ""
    answers: int = 0
    saved: int = 0


def cache_dir() -> Path:
    """$ACL_NDARRAY_FACTS_CACHE, else the per-user cache directory / acl-ndarray/acl-facts."""
    return user_cache_dir("acl-facts", DIR_ENV)


# ---------------------------------------------------------------------------- the identity (ACL)
def _split_native(text: str) -> Tuple[str, list, Optional[list]]:
    """(the CPU line, the libraries, the shim) of :func:`acl_bridge.native.identity_text`'s
    ``text``: its first line, then lines "library|shim <tab> real path <tab> size <tab> mtime ns";
    each file as [real path, size, mtime ns], the libraries once per real path, sorted; the shim
    None where no line names it. ValueError for a line of another form."""
    cpu, *lines = text.split("\n")
    libraries, shim = {}, None
    for line in lines:
        tag, path, size, mtime = line.split("\t")
        found = [path, int(size), int(mtime)]
        if tag == "library":
            libraries[path] = found
        elif tag == "shim":
            shim = found
        else:
            raise ValueError(f"identity line {line!r}: tag {tag!r}, expected 'library' or 'shim'")
    return cpu, [libraries[p] for p in sorted(libraries)], shim


_IDENTITIES: Dict[Tuple[str, int], str] = {}  # as JSON text: each caller is given its own copy


def identity(backend_name: str) -> Dict[str, object]:
    """Everything ACL's answers depend on besides the question (module docstring); made once
    per process for each backend and ACL thread count (the libraries mapped, the shim, the CPU
    and the device do not change under a running process). A copy: the caller may keep it."""
    from . import native

    native.require_native()
    key = (backend_name, native.num_threads())
    text = _IDENTITIES.get(key)
    if text is None:
        text = _IDENTITIES[key] = json.dumps(_identity(backend_name))
    return json.loads(text)


def _identity(backend_name: str) -> Dict[str, object]:
    from . import native

    cpu, libraries, shim = _split_native(native.identity_text())
    out: Dict[str, object] = {
        "acl_version": native.acl_version(), "libraries": libraries, "shim": shim,
        "shim_abi": native.EXPECTED_ABI_VERSION, "package": __version__, "cpu": cpu,
        "acl_threads": native.num_threads(), "backend": backend_name,
    }
    if backend_name == "cl":
        from .cl_program_cache import current_key

        out["device"] = json.loads(current_key().text())
    return out


# ---------------------------------------------------------------------------- the file
class FactsCache:
    """The kept answers of one model under one identity (a file in ``directory``)."""

    def __init__(self, model_md5: str, ident: Dict[str, object], directory: Union[None, str, os.PathLike] = None):
        self.directory = Path(directory) if directory is not None else cache_dir()
        # the format version in the head too: a file of another version is another file (no warning)
        self.head = json.dumps({"identity": ident, "model_md5": model_md5, "format": FORMAT_VERSION},
                               sort_keys=True).encode()
        self.path = self.directory / (hashlib.sha256(self.head).hexdigest()[:32] + SUFFIX)
        self.known: Dict[str, Dict[str, object]] = {}  # encoded, as in the file (what save merges with)
        # the same, each decoded when first asked for (what a session is given)
        self.decoded: Dict[str, Mapping[str, object]] = {}

    def load(self) -> FactsCacheReport:
        """Read the kept answers into :attr:`known` (encoded) and :attr:`decoded`;
        what happened."""
        try:
            blob = read_trusted(self.path, MAX_FILE_BYTES)
        except FileNotFoundError:
            return FactsCacheReport("cold", str(self.path), "no cache file")
        except (OSError, MemoryError) as e:  # CacheNotTrusted included: another user's, a FIFO, too big
            return self._cold(f"cannot read {self.path}: {e}")
        try:
            head, body = unseal(MAGIC, FORMAT_VERSION, blob, "an acl-ndarray facts cache")
            if bytes(head) != self.head:
                raise CacheFileRejected("written for another identity or model")
            known = json.loads(bytes(body))
            if not isinstance(known, dict):
                raise CacheFileRejected("answers are not {category: {question: answer}}")
            # every category known and a map (else TypeError/ValueError: the file is not used);
            # each answer decoded when a load first asks for it, one that does not decode a
            # warning then, and ACL asked again for it
            answers = decode_all(known, self._undecodable)
        except Exception as e:  # whatever a damaged or crafted file makes the decoders raise: a cold start
            return self._cold(f"{self.path} ignored: {type(e).__name__}: {e}" if not isinstance(e, CacheFileRejected)
                              else f"{self.path} ignored: {e}")
        self.known, self.decoded = known, answers
        return FactsCacheReport("warm", str(self.path), "", sum(len(v) for v in known.values()))

    def _undecodable(self, reason: str) -> None:
        warnings.warn(FactsCacheWarning(f"{self.path}: {reason}"), stacklevel=4)

    def _cold(self, reason: str) -> FactsCacheReport:
        warnings.warn(FactsCacheWarning(reason), stacklevel=3)
        return FactsCacheReport("cold", str(self.path), reason)

    def save(self, answers: Dict[str, Dict[str, object]]) -> Tuple[int, str]:
        """Write the file's answers and ``answers`` (encoded, this load's) when this load has
        any the file lacks: (answers written, reason). The file keeps what it held, so loads of
        one model with other options (copies or not, arena or not) add to it instead of
        replacing each other's answers. Never raises: a failure is a warning."""
        saved, problems = self.keep(answers)
        for w in problems:
            warnings.warn(w, stacklevel=2)
        return saved

    def keep(self, answers: Dict[str, Dict[str, object]]
             ) -> Tuple[Tuple[int, str], Tuple[FactsCacheWarning, ...]]:
        """:meth:`save` with its warning returned instead of issued, ((answers written,
        reason), the warnings): a job for :mod:`acl_bridge.keep_writer`, on any thread."""
        # new: a question the file lacks, or an answer it holds otherwise (a load's decisions
        # that no longer matched, made again)
        new = sum(1 for c, a in answers.items() for q, v in a.items() if self.known.get(c, {}).get(q) != v)
        if not new:
            return (0, "nothing new"), ()
        merged = {c: dict(a) for c, a in self.known.items()}
        for c, a in answers.items():
            merged.setdefault(c, {}).update(a)
        answers = merged
        body = json.dumps(answers, sort_keys=True, separators=(",", ":")).encode()
        try:
            write_atomically(self.path, seal(MAGIC, FORMAT_VERSION, self.head, body))
        except OSError as e:
            return (0, f"not saved: {e}"), (FactsCacheWarning(f"cannot write the facts cache {self.path}: {e}"),)
        return (sum(len(a) for a in answers.values()), "saved"), ()


__all__ = ["FactsCache", "FactsCacheReport", "FactsCacheWarning", "identity", "cache_dir"]
