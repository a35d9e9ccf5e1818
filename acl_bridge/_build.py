"""cffi builder (API mode) for acl_bridge._acl_shim, declared in setup.py via cffi_modules.

The declarations are the part of native/acl_shim.h between its CDEF markers, read from
the one real header, so the Python side can never drift from the ABI.
ACL 20.08 (Debian bookworm) needs -larm_compute -larm_compute_core (its pkg-config file is
broken); 24.11 (trixie) is one library, -larm_compute: libraries are picked by which
shared objects exist.
"""

import glob
import os
import platform
import re
import sysconfig

from cffi import FFI

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE = os.path.join(ROOT, "native")
HEADER = os.path.join(NATIVE, "acl_shim.h")
# The module's C++: every native/acl_shim*.cpp (one translation unit per room, see
# native/README.md), relative to the project root; the one list of them (cl_check.cpp and
# native_call.c are not part of this module).
SOURCES = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(NATIVE, "acl_shim*.cpp")))


MULTIARCH = sysconfig.get_config_var("MULTIARCH") or ""  # e.g. aarch64-linux-gnu (Debian)


def acl_include_dirs():
    """Directories holding arm_compute/ for THIS machine's architecture ([] without ACL).
    Only this architecture's multiarch directory counts: a cross-installed ACL for another
    architecture (e.g. arm64 headers on an x86 host) must not trigger a build."""
    candidates = [os.environ.get("ACL_INCLUDE_DIR", "")]
    candidates += [f"/usr/include/{MULTIARCH}" if MULTIARCH else "", "/usr/include", "/usr/local/include"]
    return [d for d in candidates if d and (os.path.isdir(os.path.join(d, "arm_compute", "runtime", "NEON"))
                                            or os.path.isdir(os.path.join(d, "arm_compute", "runtime", "CL")))]


def backend_macros(include_dirs):
    """ACL_SHIM_WITH_NEON / ACL_SHIM_WITH_CL for the ACL found. NE functions exist only in Arm
    builds of ACL (Debian's amd64 ACL 24.11 ships the NEON headers but is the CL backend alone);
    the shim's CL backend needs ACL >= 23.05 headers (function_info/) with the CL runtime.
    ACL_NDARRAY_OPENCL=0 leaves CL out."""
    def has(rel):
        return any(os.path.exists(os.path.join(d, rel)) for d in include_dirs)
    arch = MULTIARCH or platform.machine()
    neon = arch.lower().startswith(("aarch64", "arm")) and has("arm_compute/runtime/NEON")
    cl = (has("arm_compute/runtime/CL/CLScheduler.h") and has("arm_compute/function_info/ActivationLayerInfo.h")
          and os.environ.get("ACL_NDARRAY_OPENCL", "1") != "0")
    return [("ACL_SHIM_WITH_NEON", "1" if neon else "0"), ("ACL_SHIM_WITH_CL", "1" if cl else "0")]


def acl_library_dirs():
    """Where the target's libarm_compute.so is looked for (also read by setup.py, which
    records the version of the library the module was linked against)."""
    dirs = [os.environ.get("ACL_LIBRARY_DIR", ""), f"/usr/lib/{MULTIARCH}" if MULTIARCH else "",
            "/usr/lib", "/usr/local/lib"]
    return [d for d in dirs if d]


def acl_libraries():
    for d in acl_library_dirs():
        if os.path.exists(os.path.join(d, "libarm_compute_core.so")):
            return ["arm_compute", "arm_compute_core"]  # ACL <= 22.x: core is a separate library
    return ["arm_compute"]


def cdef_text():
    with open(HEADER) as f:
        text = f.read()
    m = re.search(r"/\* ACL_SHIM_CDEF_BEGIN \*/(.*)/\* ACL_SHIM_CDEF_END \*/", text, re.S)
    if m is None:
        raise RuntimeError(f"{HEADER} has no ACL_SHIM_CDEF_BEGIN/END markers")
    return m.group(1)


ffibuilder = FFI()
ffibuilder.cdef(cdef_text())
ffibuilder.set_source(
    "acl_bridge._acl_shim",
    '#include "acl_shim.h"\n',
    source_extension=".cpp",
    sources=SOURCES,
    include_dirs=[NATIVE, os.path.join(NATIVE, "cl_layer")] + acl_include_dirs(),
    define_macros=backend_macros(acl_include_dirs()),
    libraries=acl_libraries(),
    extra_compile_args=["-std=c++14", "-O2", "-fvisibility=hidden"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
