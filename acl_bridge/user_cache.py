"""Where the library keeps what it saves between processes, and how its files are sealed
(one rule for every cache).

A cache of kind ``name`` lives in ``$ENV`` when the caller's environment variable is set,
else in the per-user cache directory: ``$XDG_CACHE_HOME/acl-ndarray/NAME`` (an absolute
``XDG_CACHE_HOME`` only, as the XDG spec says), else ``~/.cache/acl-ndarray/NAME``.
Users: the OpenCL program cache (:mod:`acl_bridge.cl_program_cache`) and the parsed-model
cache (:mod:`acl_bridge.models.model_cache`).

A cache file is sealed (:func:`seal`): the cache's magic, then the format version, the lengths
of its two parts and the sha256 of both, then the parts (what identifies the entry, and its
data). :func:`unseal` gives the parts back only when the magic, version, lengths and checksum
all hold, else :class:`CacheFileRejected` saying which did not.
"""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path
from typing import Tuple, Union

# after the magic: format version, first part's length, second part's length, sha256(both)
SEAL = struct.Struct("<IIQ32s")
Bytes = Union[bytes, memoryview]


class CacheFileRejected(Exception):
    """Why a cache file is not used (each cache turns it into its warning and a cold start)."""


def user_cache_dir(name: str, env: str) -> Path:
    """``$env`` if set, else the per-user cache directory's ``acl-ndarray/name``."""
    explicit = os.environ.get(env)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path(os.path.expanduser("~")) / ".cache"
    return base / "acl-ndarray" / name


def seal(magic: bytes, version: int, head: bytes, body: bytes) -> bytes:
    """The file: ``magic``, the seal (version, lengths, sha256 of head + body), head, body."""
    return magic + SEAL.pack(version, len(head), len(body), hashlib.sha256(head + body).digest()) + head + body


def unseal(magic: bytes, version: int, blob: Bytes, what: str) -> Tuple[Bytes, Bytes]:
    """(head, body) of a sealed file (slices of ``blob``), or CacheFileRejected naming what
    failed: not ``what`` (no header), another format version, a length the file does not
    have, a checksum that does not hold."""
    start = len(magic) + SEAL.size
    if len(blob) < start or bytes(blob[:len(magic)]) != magic:
        raise CacheFileRejected(f"not {what} (no header)")
    got, head_len, body_len, digest = SEAL.unpack_from(blob, len(magic))
    if got != version:
        raise CacheFileRejected(f"format version {got}, expected {version}")
    if start + head_len + body_len != len(blob):
        raise CacheFileRejected(f"the header says {start + head_len + body_len} bytes, the file has {len(blob)}")
    if hashlib.sha256(memoryview(blob)[start:]).digest() != digest:
        raise CacheFileRejected("checksum mismatch (damaged file)")
    return blob[start:start + head_len], blob[start + head_len:]


__all__ = ["user_cache_dir", "seal", "unseal", "CacheFileRejected", "SEAL"]
