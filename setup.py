"""Build hook: the cffi extension acl_bridge._acl_shim is built only where ACL is installed.

Everything else is declared in pyproject.toml. Without ACL headers the package installs
pure-Python and ``acl_bridge.native_available()`` explains why the native part is missing;
set ACL_NDARRAY_REQUIRE_NATIVE=1 to make a missing ACL an installation error instead.

After linking, build_ext records what the module was built against in
``acl_bridge/_build_info.json`` (ACL version and SONAME, Python ABI, build and target
machine, compiler, GNU build-id; see acl_bridge/_build_info.py), which ``acl_bridge.native``
checks at import. Cross-compiling (docker/cross-build.sh) is the same build with the target
Python's sysconfig data selected by the environment (``_PYTHON_SYSCONFIGDATA_NAME``,
``_PYTHON_HOST_PLATFORM``) and the cross compiler in CC/CXX/LDSHARED; nothing here differs.
"""

import importlib.util
import json
import os
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
NATIVE_MODULE = "acl_bridge._acl_shim"


def acl_headers_found():
    """ACL headers for this machine's architecture (same rule as acl_bridge/_build.py)."""
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    dirs = [os.environ.get("ACL_INCLUDE_DIR", ""), f"/usr/include/{multiarch}" if multiarch else ""]
    dirs += ["/usr/include", "/usr/local/include"]
    return any(d and (os.path.isdir(os.path.join(d, "arm_compute", "runtime", "NEON"))
                      or os.path.isdir(os.path.join(d, "arm_compute", "runtime", "CL"))) for d in dirs)


# The OpenCL loader layer (native/cl_layer): a plain shared library, not a Python module, built
# where the real OpenCL headers with CL/cl_layer.h are installed (opencl-c-headers) and
# installed as acl_bridge/libacl_ndarray_cl_layer.so (see acl_bridge/opencl.py).
CL_LAYER = "acl_bridge.libacl_ndarray_cl_layer"


def _first_cl_header(include: str) -> str:
    """The CL/cl.h the compiler will really see: a multiarch include directory comes before
    /usr/include, and ACL 20.08's arm64 package puts its old OpenCL headers there."""
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    for d in (f"/usr/include/{multiarch}" if multiarch else "", include):
        if d and os.path.exists(os.path.join(d, "CL", "cl.h")):
            return os.path.join(d, "CL", "cl.h")
    return ""


def cl_layer_extensions():
    include = os.environ.get("ACL_NDARRAY_CL_INCLUDE_DIR", "/usr/include")
    if not os.path.exists(os.path.join(include, "CL", "cl_layer.h")):
        return []
    cl_h = _first_cl_header(include)
    with open(cl_h, encoding="utf-8", errors="replace") as f:
        if "CL_API_SUFFIX__VERSION_1_1_DEPRECATED" not in f.read():
            return []  # OpenCL headers older than the ICD loader's layer API (bookworm arm64)
    return [Extension(CL_LAYER, sources=["native/cl_layer/acl_ndarray_cl_layer.c"],
                      include_dirs=["native/cl_layer", include],
                      extra_compile_args=["-O2", "-fvisibility=hidden"])]


def _load_by_path(name, relative_path):
    """A module of the project, without importing its package (numpy may be missing here)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, relative_path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class build_ext(_build_ext):
    """build_ext that names the OpenCL layer exactly as OPENCL_LAYERS expects it, and records
    acl_bridge/_build_info.json beside the linked native module."""

    def get_ext_filename(self, fullname):
        parts = fullname.split(".")
        if parts[-1] == CL_LAYER.split(".")[-1]:  # the exact name OPENCL_LAYERS points at
            return os.path.join(*parts[:-1], "libacl_ndarray_cl_layer.so")
        return super().get_ext_filename(fullname)

    def get_export_symbols(self, ext):
        return [] if ext.name == CL_LAYER else super().get_export_symbols(ext)

    def run(self):
        super().run()
        build_info = _load_by_path("_acl_ndarray_build_info", os.path.join("acl_bridge", "_build_info.py"))
        acl_build = _load_by_path("_acl_ndarray_build", os.path.join("acl_bridge", "_build.py"))
        for ext in self.extensions:
            path = self.get_ext_fullpath(ext.name)
            if ext.name != NATIVE_MODULE or not os.path.exists(path):
                continue
            compiler = getattr(self.compiler, "compiler_so", None) or ["unknown"]
            record = build_info.describe_build(path, acl_build.acl_library_dirs(), compiler[0])
            out = os.path.join(os.path.dirname(path), build_info.FILE_NAME)
            with open(out, "w") as f:
                json.dump(record, f, indent=1, sort_keys=True)
            print(f"acl_bridge: built for {build_info.built_for(record)}; build-id {record['build_id']}; "
                  f"compiled on {record['build_machine']} with {record['compiler']} ({record['elf_comment']})")


# The hot path of AclFunction.run: a plain CPython extension (C, no ACL) that calls the cffi
# module's run entry point from a no-argument method (see native/native_call.c).
# Stable ABI (3.11+), as the cffi module is: one build loads in any later CPython.
NATIVE_CALL = Extension("acl_bridge._native_call", sources=["native/native_call.c"], py_limited_api=True,
                        extra_compile_args=["-O2", "-fvisibility=hidden"])

kwargs = {"cmdclass": {"build_ext": build_ext}, "ext_modules": cl_layer_extensions()}
if acl_headers_found():
    kwargs["cffi_modules"] = ["acl_bridge/_build.py:ffibuilder"]
    kwargs["ext_modules"].append(NATIVE_CALL)
elif os.environ.get("ACL_NDARRAY_REQUIRE_NATIVE") == "1":
    raise SystemExit(
        "ACL_NDARRAY_REQUIRE_NATIVE=1 but no Arm Compute Library headers (arm_compute/runtime/NEON) "
        "were found under /usr/include, /usr/include/<multiarch>, /usr/local/include or $ACL_INCLUDE_DIR"
    )

setup(**kwargs)
