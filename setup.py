"""Build hook: the cffi extension acl_bridge._acl_shim is built only where ACL is installed.

Everything else is declared in pyproject.toml. Without ACL headers the package installs
pure-Python and ``acl_bridge.native_available()`` explains why the native part is missing;
set ACL_NDARRAY_REQUIRE_NATIVE=1 to make a missing ACL an installation error instead.
"""

import os
import sysconfig

from setuptools import setup


def acl_headers_found():
    """ACL headers for this machine's architecture (same rule as acl_bridge/_build.py)."""
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    dirs = [os.environ.get("ACL_INCLUDE_DIR", ""), f"/usr/include/{multiarch}" if multiarch else ""]
    dirs += ["/usr/include", "/usr/local/include"]
    return any(d and os.path.isdir(os.path.join(d, "arm_compute", "runtime", "NEON")) for d in dirs)


kwargs = {}
if acl_headers_found():
    kwargs["cffi_modules"] = ["acl_bridge/_build.py:ffibuilder"]
elif os.environ.get("ACL_NDARRAY_REQUIRE_NATIVE") == "1":
    raise SystemExit(
        "ACL_NDARRAY_REQUIRE_NATIVE=1 but no Arm Compute Library headers (arm_compute/runtime/NEON) "
        "were found under /usr/include, /usr/include/<multiarch>, /usr/local/include or $ACL_INCLUDE_DIR"
    )

setup(**kwargs)
