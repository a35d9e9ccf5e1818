"""The native layer: loading the cffi module, the ONE status-to-exception function, threads
and the report of what ACL detected.

Imports on every machine: without the compiled module (no ACL at build time, not arm64)
``native_available()`` returns ``(False, reason)`` and everything else raises
:class:`AclUnavailableError` with that reason.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional, Tuple

from ndarray.errors import ArgumentTypeError, InvalidLayoutError

from .errors import (  # noqa: F401  (re-exported: the native layer's errors)
    STATUS_ERRORS,
    AclError,
    AclExceptionError,
    AclIndexOutOfRangeError,
    AclInvalidArgumentError,
    AclNoDeviceError,
    AclNotImportedError,
    AclOutOfMemoryError,
    AclStatusError,
    AclUnavailableError,
    AclUnsupportedError,
)

from . import _build_info

# What the installed module was built for (written by setup.py; None in a source checkout).
# A wheel for another Debian release (ACL major, CPython) is refused here with the reason,
# before any dlopen.
BUILD_INFO = _build_info.load()
_LOAD_ERROR: Optional[str] = _build_info.mismatch(BUILD_INFO)
try:
    if _LOAD_ERROR is not None:
        raise ImportError(_LOAD_ERROR)
    from ._acl_shim import ffi, lib  # built by acl_bridge/_build.py through cffi_modules

    try:
        from ._native_call import NativeRun  # native/native_call.c: AclFunction's base, run() in C
    except ImportError as e:  # an older build of the package: the shim without the run module
        _LOAD_ERROR = (f"acl_bridge._acl_shim loads but acl_bridge._native_call does not ({e}); setup.py "
                       f"builds both: reinstall the package")
        raise ImportError(_LOAD_ERROR) from None

    _LOAD_ERROR = None
except ImportError as e:  # not built (no ACL headers at install time) or libarm_compute missing
    ffi = lib = None

    class NativeRun:  # type: ignore[no-redef]
        """Stand-in for AclFunction's base without the native modules (nothing can be
        configured then: require_native raises before anything is armed)."""

        _native_releases_gil = False
        _armed = False

        def run(self):
            return self._run_python()

        def _disarm(self) -> None:
            pass

    _LOAD_ERROR = _LOAD_ERROR or f"the native module acl_bridge._acl_shim could not be loaded: {e}"
    if "No module named" in str(e) and "_native_call" not in str(e):
        _LOAD_ERROR += (
            " (the package was installed on a machine without the Arm Compute Library headers, "
            "so the extension was not built; install libarm-compute-dev on arm64 and reinstall, "
            "with ACL_NDARRAY_REQUIRE_NATIVE=1 to make that an error)"
        )

EXPECTED_ABI_VERSION = 20  # 17: gather_nd runtime indices; 18: the qlstm family (QSYMM8, QSYMM16, its params fields);
# 19: acl_shim_identity (the facts cache's identity without /proc files); 20: add, sub and mul
# take a fused activation on NEON (ACL's activation in place on dst, in the same function)


def check(status: int, what: str) -> None:
    """THE one place a native status becomes a Python exception, carrying ACL's message.

    Must be called right after the native call, on the same thread: the message is the
    shim's thread-local last error.
    """
    if status == 0:
        return
    message = ffi.string(lib.acl_shim_last_error()).decode("utf-8", "replace")
    raise STATUS_ERRORS.get(status, AclError)(message or f"status {status}", status, what)


# ---------------------------------------------------------------------------- availability
def native_available() -> Tuple[bool, str]:
    """(True, description) when the native ACL module is usable, else (False, why not)."""
    if _LOAD_ERROR is not None:
        return False, _LOAD_ERROR
    abi = lib.acl_shim_abi_version()
    if abi != EXPECTED_ABI_VERSION:
        return False, f"native ABI version is {abi}, this acl_bridge expects {EXPECTED_ABI_VERSION}: rebuild"
    return True, f"ACL {acl_version()} (compiled against {compiled_acl_version()} headers)"


def require_native():
    """(ffi, lib), or AclUnavailableError with the reason."""
    if _LOAD_ERROR is not None:
        raise AclUnavailableError(_LOAD_ERROR)
    return ffi, lib


def arm(runner: "NativeRun", entry: str, handle, release_gil: bool) -> None:
    """Make ``runner.run()`` call ``lib.<entry>(handle)`` from C (native/native_call.c): the
    hot path of AclFunction.run. ``handle`` (a cdata) is held until ``runner._disarm()``;
    ``release_gil=False`` keeps the GIL during the call (calls too short to be worth
    handing it over)."""
    ffi_, lib_ = require_native()
    runner._arm(int(ffi_.cast("uintptr_t", ffi_.addressof(lib_, entry))), int(ffi_.cast("uintptr_t", handle)),
                handle, release_gil)


def _native_text(what: str, capacity: int = 4096) -> str:
    """The text the native entry ``acl_shim_<what>(buf, capacity, needed)`` writes (one call
    where it fits ``capacity`` bytes, a second with the size it asked for otherwise); raises
    what :func:`check` raises."""
    ffi_, lib_ = require_native()
    entry = getattr(lib_, "acl_shim_" + what)
    needed = ffi_.new("uint64_t *")
    buf = ffi_.new("char[]", capacity)
    check(entry(buf, capacity, needed), what)
    if needed[0] > capacity:
        buf = ffi_.new("char[]", needed[0])
        check(entry(buf, needed[0], needed), what)
    return ffi_.string(buf).decode("utf-8", "replace")


def build_information() -> str:
    """arm_compute::build_information() of the ACL library actually loaded."""
    return _native_text("build_information")


def identity_text() -> str:
    """What ACL's answers depend on besides the question, as the loaded ACL and this process
    see it (native/acl_shim_identity.cpp, ABI 19): the line "hwcap=<hex> hwcap2=<hex> cpus=<n>
    models=<ACL's CPU model per core> <ACL's feature flags>", then "library<tab>real path<tab>
    size<tab>mtime ns" per loaded ``libarm_compute`` object and the same line tagged "shim" for
    the shim's own file. Read by :func:`acl_bridge.facts_cache.identity` instead of
    /proc/self/maps and /proc/cpuinfo (slow files under emulation; and under QEMU's user mode
    /proc/cpuinfo describes the host, not the CPU ACL sees). Raises AclInvalidArgumentError
    where a file cannot be stat'ed."""
    return _native_text("identity")


@functools.lru_cache(maxsize=None)
def acl_version() -> str:
    """Version of the loaded ACL, e.g. '20.08' or '24.11' (from build_information), read once
    per process (the library loaded does not change; a first start asked it four times)."""
    info = build_information()
    found = _version_in(info)
    return found if found is not None else f"unknown ({info[:80]})"


_DIGITS = frozenset("0123456789")
_VERSION_KEY = "arm_compute_version="


def _version_in(info: str) -> Optional[str]:
    """What ``re.search(r"arm_compute_version=v?([0-9][0-9.]*)", info)`` finds (its group), or
    None: read with str methods (no pattern compiled on a first start)."""
    at = info.find(_VERSION_KEY)
    while at >= 0:
        start = at + len(_VERSION_KEY)
        if info.startswith("v", start):
            start += 1
        if start < len(info) and info[start] in _DIGITS:
            end = start + 1
            while end < len(info) and (info[end] in _DIGITS or info[end] == "."):
                end += 1
            return info[start:end]
        at = info.find(_VERSION_KEY, at + 1)
    return None


# The first ACL whose NEON (CPU) kernels are known to ask their tensors for no padding: 24.11's
# asked none on the first starts of all 26 fetched models (1346 questions, every answer zero;
# tests/models/test_first_start_decisions_acl.py asks them again). 20.08's ask it (pooling,
# depthwise, reduction, scale: docs/performance.md, issue 40 part 7s); the versions between are
# not measured here and count as asking.
NEON_KERNELS_PADDING_FREE_SINCE = (24, 11)
# The same for OpenCL's kernels on NHWC tensors (the layout of every model the runner loads):
# 24.11's asked none on all 26 fetched models nor on any NHWC row of the function table (PoCL;
# tests/acl/helpers.py asks each row again); its NCHW convolution asks its input padding (docs/opencl.md).
CL_NHWC_KERNELS_PADDING_FREE_SINCE = (24, 11)


@functools.lru_cache(maxsize=None)
def kernels_ask_padding(backend_name: str, data_layout: str = "NCHW") -> bool:
    """Whether the loaded ACL's kernels of ``backend_name`` may ask padding of tensors in
    ``data_layout``: False for NEON from :data:`NEON_KERNELS_PADDING_FREE_SINCE` on, for CL on
    NHWC from :data:`CL_NHWC_KERNELS_PADDING_FREE_SINCE` on, True otherwise (a version that does
    not read as numbers too). A first start then negotiates no padding at all
    (acl_bridge.models.runtime.negotiation); ACL's validate() in the one native call still
    checks every function (it refuses a layout without the padding its kernel wants), and a
    refusal negotiates as before, asking."""
    if backend_name == "neon":
        since = NEON_KERNELS_PADDING_FREE_SINCE
    elif backend_name == "cl" and data_layout == "NHWC":
        since = CL_NHWC_KERNELS_PADDING_FREE_SINCE
    else:
        return True
    version = _major_minor(acl_version())
    return version is None or version < since


def _major_minor(version: str) -> Optional[Tuple[int, int]]:
    r"""The two numbers ``re.match(r"(\d+)\.(\d+)", version)`` finds, or None (str methods:
    no pattern compiled on a first start)."""
    major, dot, rest = version.partition(".")
    end = 0
    while end < len(rest) and rest[end].isdecimal():
        end += 1
    return (int(major), int(rest[:end])) if dot and end and major.isdecimal() else None


def compiled_acl_version() -> str:
    """ACL version family of the headers the shim was compiled against ('20.08' or '24.11')."""
    _, lib_ = require_native()
    v = lib_.acl_shim_compiled_acl_version()
    return f"{v // 100}.{v % 100:02d}"


def set_num_threads(num_threads: int) -> None:
    """Threads of ACL's NEON scheduler (0: one per core, ACL's default)."""
    if isinstance(num_threads, bool) or not isinstance(num_threads, int):
        raise ArgumentTypeError(f"num_threads is {num_threads!r}, expected an int >= 0")
    if num_threads < 0:
        raise InvalidLayoutError(f"num_threads is {num_threads}, expected an int >= 0")
    ffi_, lib_ = require_native()
    check(lib_.acl_shim_set_num_threads(num_threads), "set_num_threads")


def num_threads() -> int:
    """Threads of ACL's NEON scheduler now."""
    ffi_, lib_ = require_native()
    out = ffi_.new("uint32_t *")
    check(lib_.acl_shim_num_threads(out), "num_threads")
    return int(out[0])


@dataclass(frozen=True)
class AclReport:
    """What ACL detected. Feature flags are None where this ACL version does not report them."""

    version: str
    compiled_against: str
    build_information: str
    num_cpus: int
    num_threads: int
    fp16: bool
    dot_product: bool
    sve: Optional[bool]
    sve2: Optional[bool]
    bf16: Optional[bool]
    i8mm: Optional[bool]
    f16_kernels: bool  # this ACL build accepts F16 tensors (Debian's builds target armv8.0: no)

    def __str__(self) -> str:
        flags = ", ".join(
            f"{name}={'?' if v is None else ('yes' if v else 'no')}"
            for name, v in (("fp16", self.fp16), ("dot_product", self.dot_product), ("sve", self.sve),
                            ("sve2", self.sve2), ("bf16", self.bf16), ("i8mm", self.i8mm),
                            ("f16_kernels", self.f16_kernels))
        )
        return (f"ACL {self.version} (headers {self.compiled_against}), {self.num_cpus} CPUs, "
                f"{self.num_threads} threads, {flags}")


def cpu_report() -> AclReport:
    ffi_, lib_ = require_native()
    r = ffi_.new("acl_shim_cpu_report *")
    check(lib_.acl_shim_cpu_report_get(r), "cpu_report")

    def flag(v):
        return None if v < 0 else bool(v)

    return AclReport(
        version=acl_version(),
        compiled_against=compiled_acl_version(),
        build_information=build_information(),
        num_cpus=r.num_cpus,
        num_threads=r.num_threads,
        fp16=bool(r.has_fp16),
        dot_product=bool(r.has_dotprod),
        sve=flag(r.has_sve),
        sve2=flag(r.has_sve2),
        bf16=flag(r.has_bf16),
        i8mm=flag(r.has_i8mm),
        f16_kernels=bool(r.f16_kernels),
    )
