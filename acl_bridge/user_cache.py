"""Where the library keeps what it saves between processes, and how its files are sealed
(one rule for every cache).

A cache of kind ``name`` lives in ``$ENV`` when the caller's environment variable is set,
else in the per-user cache directory: ``$XDG_CACHE_HOME/acl-ndarray/NAME`` (an absolute
``XDG_CACHE_HOME`` only, as the XDG spec says), else ``~/.cache/acl-ndarray/NAME``.
Users: the OpenCL program cache (:mod:`acl_bridge.cl_program_cache`), the parsed-model
cache (:mod:`acl_bridge.models.format.model_cache`) and ACL's answers (:mod:`acl_bridge.facts_cache`).
Each writes its files with :func:`write_atomically` (a runner's, after its load, on the
background writer :mod:`acl_bridge.keep_writer`, whose pending writes :func:`read_trusted`
waits for); the caches whose entries depend on the
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

Trust (docs/robustness.md, "What the caches trust"): a cache file is read only through
:func:`read_trusted`: its folder and the file belong to this user and are writable by no one
else, the file is a regular file (no FIFO, device or symbolic link followed) and within the
cache's size bound; anything else is :class:`CacheNotTrusted` (an OSError: each cache's
warning and a cold start). :func:`write_atomically` never saves into a folder that read would
refuse. The OpenCL programs, which are code, are authenticated besides with a per-user secret
(:func:`user_secret`).
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat
import struct
import tempfile
import zlib
from pathlib import Path
from typing import Sequence, Tuple, Union

import numpy as np

from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

from .keep_writer import wait_for

# after the magic: format version, first part's length, second part's length, CRC-32(both)
SEAL = struct.Struct("<IIQI")
Bytes = Union[bytes, memoryview]


class CacheFileRejected(Exception):
    """Why a cache file is not used (each cache turns it into its warning and a cold start)."""


class CacheNotTrusted(OSError):
    """A cache folder or file this library will not read or write: another user's, writable by
    group or others, not a regular file, or over its size bound (an OSError, so each cache's
    handling of an unreadable file applies: a warning and a cold start)."""


# the largest file any cache reads: a parsed model holds the model's weights (TFLite's
# flatbuffers stop at 2 GiB); the facts and plan files are far smaller
MAX_CACHE_FILE_BYTES = 1 << 31
_SECRET_NAME = "secret.key"
_SECRET_BYTES = 32


def _check_mine(st: os.stat_result, what: str, path: object, private: bool = False) -> None:
    """CacheNotTrusted unless ``st`` belongs to this user and no one else may write it
    (``private``: nor read it)."""
    uid = os.geteuid()
    if st.st_uid != uid:
        raise CacheNotTrusted(f"{what} {path} belongs to uid {st.st_uid}, expected this user's ({uid})")
    mask = 0o077 if private else 0o022
    if st.st_mode & mask:
        expected = "no access for group or others" if private else "no write permission for group or others"
        raise CacheNotTrusted(f"{what} {path} has mode {stat.S_IMODE(st.st_mode):o}, expected {expected}")


def check_cache_folder(directory: Path) -> None:
    """CacheNotTrusted unless ``directory`` (followed where it is a link) is a folder of this
    user's that no one else may write; FileNotFoundError when it does not exist."""
    st = os.stat(directory)
    if not stat.S_ISDIR(st.st_mode):
        raise CacheNotTrusted(f"cache folder {directory} is not a folder")
    _check_mine(st, "cache folder", directory)


def read_trusted(path: Path, max_bytes: int = MAX_CACHE_FILE_BYTES, *, alignment_in_bytes: int = 1,
                 private: bool = False) -> memoryview:
    """The bytes of the cache file ``path``, read-only, starting ``alignment_in_bytes``-aligned
    in memory. FileNotFoundError when it (or its folder) is absent; CacheNotTrusted when the
    folder or file is another user's or writable by others (``private``: readable by others),
    the file is a symbolic link, FIFO, device or other non-regular file, or holds more than
    ``max_bytes``. The folder and the file are checked on the descriptors that are read (no
    window between check and use), and the file is opened without blocking (a FIFO cannot
    hang the start) and read for its size only. A write of ``path`` still pending on the
    background writer (:mod:`acl_bridge.keep_writer`) ends first."""
    wait_for(path)
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        dst = os.fstat(dfd)
        _check_mine(dst, "cache folder", path.parent)
        try:
            fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise CacheNotTrusted(f"cache file {path} is a symbolic link; cache files are never followed") from None
            raise
    finally:
        os.close(dfd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise CacheNotTrusted(f"cache file {path} is not a regular file (mode {st.st_mode:o})")
        _check_mine(st, "cache file", path, private)
        if st.st_size > max_bytes:
            raise CacheNotTrusted(f"cache file {path} has {st.st_size} bytes, expected at most {max_bytes}")
        size = st.st_size
        raw = np.empty(size + alignment_in_bytes, np.uint8)
        skip = -raw.ctypes.data % alignment_in_bytes
        view = memoryview(raw[skip:skip + size])  # type: ignore[arg-type]
        got = 0
        while got < size:
            n = os.readv(fd, [view[got:]])
            if n == 0:
                break
            got += n
        return view[:got].toreadonly()
    finally:
        os.close(fd)


def user_secret(directory: Path) -> bytes:
    """This user's secret for authenticating cache files in ``directory`` (made once, 32
    random bytes in ``secret.key``, mode 0600). OSError (CacheNotTrusted included) when it
    cannot be read or made as a file only this user can read."""
    path = directory / _SECRET_NAME
    try:
        key = bytes(read_trusted(path, _SECRET_BYTES, private=True))
    except FileNotFoundError:
        ensure_cache_folder(directory)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(_SECRET_BYTES))
            try:
                os.link(tmp, path)  # atomic, and never over another process's secret
            except FileExistsError:
                pass
        finally:
            os.unlink(tmp)
        key = bytes(read_trusted(path, _SECRET_BYTES, private=True))
    if len(key) != _SECRET_BYTES:
        raise CacheNotTrusted(f"secret {path} has {len(key)} bytes, expected {_SECRET_BYTES}")
    return key


def ensure_cache_folder(directory: Path) -> None:
    """Make ``directory`` (its owner only) if needed; CacheNotTrusted if it is one the caches
    would refuse to read."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    check_cache_folder(directory)


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
    parts = []
    folder = os.open(directory, getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in names:  # (relative to the folder: no path joined per name, ~100 a first start)
            st = os.stat(name, dir_fd=folder)
            parts.append(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0")
    finally:
        os.close(folder)
    return hashlib.sha256(seed + "".join(parts).encode()).hexdigest()


def write_atomically(path: Path, data: Bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the whole new one,
    never part of it (a temporary file in the same directory, then a rename), creating the
    directory readable by its owner only. Raises OSError (CacheNotTrusted for a folder that
    :func:`read_trusted` would refuse); leaves no temporary file behind."""
    ensure_cache_folder(path.parent)
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


__all__ = ["user_cache_dir", "check_cache_option", "seal", "unseal", "write_atomically", "read_trusted",
           "check_cache_folder", "ensure_cache_folder", "user_secret", "CacheFileRejected", "CacheNotTrusted", "SEAL",
           "MAX_CACHE_FILE_BYTES"]
