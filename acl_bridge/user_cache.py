"""Where the library keeps what it saves between processes, and how its files are sealed
(one rule for every cache).

A cache of kind ``name`` lives in ``$ENV`` when the caller's environment variable is set,
else in the per-user cache directory: ``$XDG_CACHE_HOME/acl-ndarray/NAME`` (an absolute
``XDG_CACHE_HOME`` only, as the XDG spec says), else ``~/.cache/acl-ndarray/NAME``.
Users: the OpenCL program cache (:mod:`acl_bridge.cl_program_cache`), the parsed-model
cache (:mod:`acl_bridge.models.model_cache`) and ACL's answers (:mod:`acl_bridge.facts_cache`).
Each writes its files with :func:`write_atomically`; the caches whose entries depend on the
library's own code key them by :func:`sources_stamp` (the parsed-model cache, the runner's
kept decisions).

A cache file is sealed (:func:`seal`): the cache's magic, then the format version, the lengths
of its two parts and the CRC-32 of both, then the parts (what identifies the entry, and its
data). :func:`unseal` gives the parts back only when the magic, version, lengths and checksum
all hold, else :class:`CacheFileRejected` saying which did not. The checksum is there for
accidental damage (a truncated or flipped file), what CRC-32 is made for: a file placed in the
user's own cache directory on purpose could carry any checksum, so a cryptographic hash would
buy nothing and cost many times CRC-32's time per byte at every start (the parsed-model cache
holds a model's weights: 2.3 MiB for face_landmark).
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import zlib
from pathlib import Path
from typing import Sequence, Tuple, Union

from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

# after the magic: format version, first part's length, second part's length, CRC-32(both)
SEAL = struct.Struct("<IIQI")
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


def check_cache_option(name: str, value: object) -> None:
    """A cache option is True, False or a directory (a non-empty str or path); else
    ArgumentTypeError (UnsupportedOptionError for an empty string: it would mean the current
    directory, never what a caller wants)."""
    if not isinstance(value, (bool, str, os.PathLike)):
        raise ArgumentTypeError(f"{name} is {value!r}, expected True, False or a directory")
    if isinstance(value, str) and not value or isinstance(value, os.PathLike) and not os.fspath(value):
        raise UnsupportedOptionError(f"{name} is {value!r}, expected True, False or a non-empty directory name")


def seal(magic: bytes, version: int, head: bytes, body: bytes) -> bytes:
    """The file: ``magic``, the seal (version, lengths, CRC-32 of head + body), head, body."""
    return magic + SEAL.pack(version, len(head), len(body), zlib.crc32(body, zlib.crc32(head))) + head + body


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
    if zlib.crc32(memoryview(blob)[start:]) != digest:
        raise CacheFileRejected("checksum mismatch (damaged file)")
    return blob[start:start + head_len], blob[start + head_len:]


def sources_stamp(directory: Path, names: Sequence[str], seed: bytes = b"") -> str:
    """sha256 (hex) of ``seed`` and, per file of ``names`` in ``directory`` in that order, its
    name, size and modification time: a cache key for what the code that made a cached value
    says (OSError when one cannot be read). A changed source changes its size or modification
    time: the test Python's own byte-code cache makes before it trusts compiled code (PEP 3147)
    rather than hashing the text (under emulation the text of a few hundred KiB costs 10 ms of
    every start); a file restored with its old size and time keeps its stamp, as it keeps its
    byte code."""
    h = hashlib.sha256(seed)
    for name in names:
        st = os.stat(directory / name)
        h.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def write_atomically(path: Path, data: Bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the whole new one,
    never part of it (a temporary file in the same directory, then a rename), creating the
    directory readable by its owner only. Raises OSError; leaves no temporary file behind."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


__all__ = ["user_cache_dir", "check_cache_option", "seal", "unseal", "write_atomically", "CacheFileRejected", "SEAL"]
