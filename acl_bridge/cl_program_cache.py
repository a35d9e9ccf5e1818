"""ACL's compiled OpenCL programs, kept between processes: fast starts on the CL backend.

Configuring a CL function makes ACL compile the OpenCL programs it needs (one per kernel
source and set of build options); a model with a hundred functions compiles dozens, and that
is most of its start-up. ACL keeps them for the life of the process and can write them to a
file and read them back (``save_program_cache_to_file`` / ``restore_program_cache_from_file``
in arm_compute/runtime/CL/Utils.h, reached through ``acl_shim_cl_program_cache_*``).

ACL reads its file without any check (lengths straight into allocations, binaries straight
into ``clCreateProgramWithBinary``), so the library never gives it a file it did not verify:

* one file per :class:`CacheKey` (device, platform, driver version, OpenCL version, ACL
  version, shim ABI, whether acl-ndarray's OpenCL layer is active), named by the key's hash,
  in :func:`cache_dir` (``$ACL_NDARRAY_CL_PROGRAM_CACHE``, else
  ``$XDG_CACHE_HOME/acl-ndarray/cl-programs``, else ``~/.cache/acl-ndarray/cl-programs``);
* the file is our header (magic, format version, the whole key, lengths, CRC-32 of key and
  payload) followed by ACL's own file (the payload); before ACL sees the payload the header
  must match the current key exactly and the checksum must hold, and the payload must parse
  as ACL's records (:func:`count_programs`); it is then written to a private temporary file
  for ACL to read;
* the programs are code (on PoCL a CPU device's binary is native code), and the key and CRC
  are public facts anyone could recompute: the file also carries an HMAC-SHA256 of the key and
  payload made with this user's secret (:func:`acl_bridge.user_cache.user_secret`, mode 0600
  in the cache folder), so only files this user's processes wrote are handed to ACL; the
  folder and file pass :func:`acl_bridge.user_cache.read_trusted` first (this user's, no one
  else may write them, a regular file within :data:`MAX_FILE_BYTES`);
* a change of any key field is a different file name (invalidated); a file whose header
  names another key (copied from elsewhere), a damaged or truncated one, or an unreadable
  directory is a :class:`ProgramCacheWarning` and a cold start, never an exception; a program
  that still fails to build from its binary makes the shim drop every restored program (ACL
  then compiles from source as if there were no cache);
* saving writes a new file beside the old one and renames it over (readers never see half a
  file); it is skipped when ACL holds no program the file lacks.

Drivers keep caches of their own (PoCL: ``POCL_KERNEL_CACHE``, Mesa: the shader cache); this
one is the library's and works whatever the driver does. Measurements: docs/opencl.md.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import struct
import tempfile
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple, Union

from .native import check, require_native
from .user_cache import (CacheFileRejected, ensure_cache_folder, read_trusted, seal, unseal, user_cache_dir,
                         user_secret, write_atomically)

DIR_ENV = "ACL_NDARRAY_CL_PROGRAM_CACHE"
MAGIC = b"ACLNDPC\x00"
FORMAT_VERSION = 3  # 2: CRC-32 seal; 3: HMAC-SHA256 with the user's secret
MAX_FILE_BYTES = 1 << 30  # far above what a model's programs take (tens of MiB)
_MAC_BYTES = 32
SUFFIX = ".aclprograms"
# ACL's record: size_t name length, size_t binary length, name, binary (native byte order)
_ACL_RECORD = struct.Struct("@NN")
_MAX_NAME_BYTES = 1 << 16

# cache files whose programs this process holds (restored or saved), with how many programs
# each file holds: ACL's cache is per process, so restoring twice would rebuild every binary
# for nothing, and saving is needed only when ACL holds more than the file
_IN_PROCESS: Dict[str, int] = {}


class ProgramCacheWarning(UserWarning):
    """The OpenCL program cache was not used (damaged, foreign or unreadable file, unwritable
    directory): a cold start, with the reason. Never raised as an error."""


@dataclass(frozen=True)
class CacheKey:
    """Everything a compiled program depends on; any change is another cache file."""

    device_name: str
    platform_name: str
    driver_version: str
    opencl_version: str
    acl_version: str
    shim_abi_version: int
    layer_active: bool

    def text(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))

    @property
    def file_name(self) -> str:
        return hashlib.sha256(self.text().encode()).hexdigest()[:24] + SUFFIX


@dataclass(frozen=True)
class CacheReport:
    """What the cache did for one configure: ``state`` is "off", "cold" (nothing usable:
    ``reason`` says why) or "warm" (``programs_restored`` from ``path``)."""

    state: str
    path: Optional[str]
    reason: str = ""
    programs_restored: int = 0
    programs_saved: int = 0
    restore_seconds: float = 0.0
    save_seconds: float = 0.0


def cache_dir() -> Path:
    """Where cache files go: $ACL_NDARRAY_CL_PROGRAM_CACHE, else the per-user cache directory
    ($XDG_CACHE_HOME or ~/.cache) / acl-ndarray/cl-programs."""
    return user_cache_dir("cl-programs", DIR_ENV)


def current_key() -> CacheKey:
    """The key of the device ACL's CLScheduler uses (starts OpenCL on the default device, as
    a CL function does: AclNoDeviceError when ACL cannot use it)."""
    from . import native
    from .opencl import cl_init

    d = cl_init()
    return CacheKey(device_name=d.name, platform_name=d.platform_name, driver_version=d.driver_version,
                    opencl_version=d.version, acl_version=native.acl_version(),
                    shim_abi_version=native.EXPECTED_ABI_VERSION, layer_active=d.layer_active)


# ---------------------------------------------------------------------------- the file format (pure)
def count_programs(payload: bytes) -> int:
    """Number of programs in ACL's cache-file format, after checking that every record's
    lengths are non-zero and inside the data, names are printable ASCII, and the records end
    exactly at the end (what ACL's reader would otherwise trust blindly)."""
    pos, n, size = 0, 0, len(payload)
    while pos < size:
        if size - pos < _ACL_RECORD.size:
            raise CacheFileRejected(f"ACL's data ends inside a record header at byte {pos} of {size}")
        name_len, binary_len = _ACL_RECORD.unpack_from(payload, pos)
        pos += _ACL_RECORD.size
        if not 0 < name_len <= _MAX_NAME_BYTES or binary_len == 0 or name_len + binary_len > size - pos:
            raise CacheFileRejected(f"record {n} has name length {name_len} and binary length {binary_len}, "
                                    f"but {size - pos} bytes are left")
        name = payload[pos:pos + name_len]
        if not all(32 <= c < 127 for c in name):
            raise CacheFileRejected(f"record {n}'s program name is not printable ASCII: {name[:40]!r}")
        pos += name_len + binary_len
        n += 1
    return n


def _mac(secret: bytes, key_bytes: bytes, payload) -> bytes:
    return hmac.new(secret, len(key_bytes).to_bytes(8, "little") + key_bytes + payload, hashlib.sha256).digest()


def pack(key: CacheKey, payload: bytes, secret: bytes) -> bytes:
    """Our file: the key's text, then the HMAC of key and payload made with ``secret`` and
    ACL's file, sealed (acl_bridge.user_cache.seal)."""
    key_bytes = key.text().encode()
    return seal(MAGIC, FORMAT_VERSION, key_bytes, _mac(secret, key_bytes, payload) + payload)


def unpack(data: bytes, key: CacheKey, secret: bytes) -> Tuple[bytes, int]:
    """(ACL's file, number of programs) from our file, or CacheFileRejected saying why: not
    sealed, another key, an HMAC that ``secret`` did not make, or records ACL could not read."""
    key_bytes, body = unseal(MAGIC, FORMAT_VERSION, data, "an acl-ndarray program cache")
    if bytes(key_bytes) != key.text().encode():
        raise CacheFileRejected(f"written for another key: {bytes(key_bytes[:300]).decode('utf-8', 'replace')} "
                                f"(this process: {key.text()})")
    if len(body) < _MAC_BYTES:
        raise CacheFileRejected(f"the file has {len(body)} bytes after its key, expected at least {_MAC_BYTES}")
    payload = bytes(body[_MAC_BYTES:])
    if not hmac.compare_digest(bytes(body[:_MAC_BYTES]), _mac(secret, bytes(key_bytes), payload)):
        raise CacheFileRejected("not written by this user's processes (its HMAC does not hold with this user's secret)")
    return payload, count_programs(payload)


# ---------------------------------------------------------------------------- with ACL
def program_count() -> int:
    """Compiled programs ACL holds in this process."""
    ffi, lib = require_native()
    n = ffi.new("int32_t *")
    check(lib.acl_shim_cl_program_count(n), "cl_program_count")
    return int(n[0])


def _warn(message: str) -> None:
    warnings.warn(ProgramCacheWarning(f"OpenCL program cache: {message}; starting cold"), stacklevel=4)


class ProgramCache:
    """The cache file of the current device in ``directory`` (default :func:`cache_dir`).
    :meth:`restore` before configuring, :meth:`save` after."""

    def __init__(self, directory: Union[str, os.PathLike, None] = None):
        self.directory = Path(directory) if directory is not None else cache_dir()
        self.key = current_key()
        self.path = self.directory / self.key.file_name
        self._report = CacheReport("cold", str(self.path), "not restored yet")

    @property
    def report(self) -> CacheReport:
        return self._report

    def restore(self) -> CacheReport:
        """Give the verified file's programs to ACL. Never raises for a bad or missing file:
        warns (damaged, foreign, unreadable) and reports a cold start."""
        t0 = time.perf_counter()
        path = str(self.path)
        if path in _IN_PROCESS:
            self._report = CacheReport("warm", path, "restored earlier in this process")
            return self._report
        try:
            data = read_trusted(self.path, MAX_FILE_BYTES)
        except FileNotFoundError:
            self._report = CacheReport("cold", path, "no cache file yet")
            return self._report
        except (OSError, MemoryError) as e:  # CacheNotTrusted included
            _warn(f"cannot read {path}: {e}")
            self._report = CacheReport("cold", path, f"unreadable: {e}")
            return self._report
        try:
            payload, n = unpack(data, self.key, user_secret(self.directory))
        except OSError as e:
            _warn(f"no secret to check {path} with: {e}")
            self._report = CacheReport("cold", path, f"no secret: {e}")
            return self._report
        except CacheFileRejected as e:
            _warn(f"ignored {path}: {e}")
            self._report = CacheReport("cold", path, f"ignored: {e}")
            return self._report
        restored, error = self._hand_to_acl(payload)
        if error:
            _warn(f"ACL could not use {path}: {error}")
            self._report = CacheReport("cold", path, f"ACL refused it: {error}")
            return self._report
        _IN_PROCESS[path] = n
        self._report = CacheReport("warm", path, programs_restored=restored,
                                   restore_seconds=time.perf_counter() - t0)
        return self._report

    @staticmethod
    def _hand_to_acl(payload: bytes) -> Tuple[int, str]:
        """(programs restored, "") or (0, why): ACL reads the payload from a private file."""
        from ndarray.errors import AclNdarrayError

        ffi, lib = require_native()
        fd, tmp = tempfile.mkstemp(prefix="acl-ndarray-programs-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(payload)
            n = ffi.new("int32_t *")
            try:
                check(lib.acl_shim_cl_program_cache_restore(tmp.encode(), n), "cl_program_cache_restore")
            except AclNdarrayError as e:
                return 0, str(e)
            return int(n[0]), ""
        except OSError as e:
            return 0, f"cannot write a temporary file: {e}"
        finally:
            try:
                os.unlink(tmp)
            except OSError:
                pass

    def save(self) -> int:
        """Write ACL's programs to the file when ACL holds more than it has; returns how many
        were written (0: nothing new, or the directory is not writable: warned)."""
        from ndarray.errors import AclNdarrayError

        t0 = time.perf_counter()
        if program_count() <= _IN_PROCESS.get(str(self.path), 0):
            return 0
        ffi, lib = require_native()
        acl_tmp = None
        try:
            ensure_cache_folder(self.directory)
            fd, acl_tmp = tempfile.mkstemp(prefix=".acl-", dir=self.directory)
            os.close(fd)
            n = ffi.new("int32_t *")
            check(lib.acl_shim_cl_program_cache_save(acl_tmp.encode(), n), "cl_program_cache_save")
            payload = Path(acl_tmp).read_bytes()
            written = count_programs(payload)
            write_atomically(self.path, pack(self.key, payload, user_secret(self.directory)))
        except (OSError, AclNdarrayError, CacheFileRejected) as e:
            warnings.warn(ProgramCacheWarning(f"OpenCL program cache: not saved to {self.path}: {e}"), stacklevel=3)
            return 0
        finally:
            if acl_tmp is not None:
                try:
                    os.unlink(acl_tmp)
                except OSError:
                    pass
        _IN_PROCESS[str(self.path)] = written  # what the file holds is in this process already
        self._report = CacheReport(self._report.state, self._report.path, self._report.reason,
                                   self._report.programs_restored, written, self._report.restore_seconds,
                                   time.perf_counter() - t0)
        return written


__all__ = ["CacheKey", "CacheReport", "DIR_ENV", "ProgramCache", "ProgramCacheWarning", "cache_dir", "count_programs",
           "current_key", "pack", "program_count", "unpack"]
