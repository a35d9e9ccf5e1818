"""The ABI's constants, read from their one source: ``native/acl_shim.h``.

cffi exposes every integer ``#define`` of the header's CDEF block on the compiled module's
``lib`` (``lib.ACL_SHIM_FN_POOLING == 5``). Where the module is not built (an x86 host,
a pure-Python install) the same block is parsed from the header itself, so host code and
host tests still see the kinds and codes; ``tests/test_abi.py`` fails if the two disagree.

Names follow from the header's prefixes, so adding a ``#define ACL_SHIM_ACT_FOO 16`` adds
the activation ``"foo"`` with no Python change:

===================  ===========================  =====================================
table                prefix                       names
===================  ===========================  =====================================
``KINDS``            ``ACL_SHIM_FN_``             "activation", "pooling", ...
``ACTIVATIONS``      ``ACL_SHIM_ACT_``            "relu", "leaky_relu", ... ("none": -1)
``POLICIES``         ``ACL_SHIM_POLICY_``         "wrap", "saturate"
``ROUNDING``         ``ACL_SHIM_ROUND_``          "to_zero", "to_nearest_up", ...
``POOL_TYPES``       ``ACL_SHIM_POOL_``           "max", "avg", "l2"
``PAD_MODES``        ``ACL_SHIM_PAD_``            "constant", "reflect", "symmetric"
``INTERPOLATIONS``   ``ACL_SHIM_INTERP_``         "nearest", "bilinear"
``SAMPLINGS``        ``ACL_SHIM_SAMPLING_``       "center", "top_left"
``DATA_TYPES``       ``ACL_SHIM_DT_``             "F32", "QASYMM8", ... (ACL's spelling)
``DATA_LAYOUTS``     ``ACL_SHIM_LAYOUT_``         "NCHW", "NHWC"
``STATUS``           ``ACL_SHIM_OK``/``_ERR_``    "OK", "INVALID_ARGUMENT", ...
``BACKENDS``         ``ACL_SHIM_BACKEND_``        "neon", "cl" (where the header has them)
===================  ===========================  =====================================
"""

from __future__ import annotations

import os
import re
from types import MappingProxyType
from typing import Dict, Mapping, Optional

from ndarray.errors import UnsupportedOptionError

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# The header: shipped inside the package by setup.py, or beside it in a source checkout.
HEADER_CANDIDATES = (
    os.path.join(_PACKAGE_DIR, "acl_shim.h"),
    os.path.join(os.path.dirname(_PACKAGE_DIR), "native", "acl_shim.h"),
)
_DEFINE = re.compile(r"^\s*#define\s+(ACL_SHIM_[A-Z0-9_]+)\s+(-?\d+)\b", re.M)


def header_defines(path: Optional[str] = None) -> Dict[str, int]:
    """Every integer ``#define ACL_SHIM_*`` of the header's CDEF block, parsed from the text."""
    candidates = (path,) if path else HEADER_CANDIDATES
    for candidate in candidates:
        if candidate and os.path.exists(candidate):
            with open(candidate, encoding="utf-8") as f:
                text = f.read()
            m = re.search(r"/\* ACL_SHIM_CDEF_BEGIN \*/(.*)/\* ACL_SHIM_CDEF_END \*/", text, re.S)
            if m is None:
                raise RuntimeError(f"{candidate} has no ACL_SHIM_CDEF_BEGIN/END markers")
            return {name: int(value) for name, value in _DEFINE.findall(m.group(1))}
    return {}


def module_defines(lib) -> Dict[str, int]:
    """The same constants as the compiled cffi module exposes them."""
    return {name: getattr(lib, name) for name in dir(lib)
            if name.startswith("ACL_SHIM_") and isinstance(getattr(lib, name), int)}


def _load() -> Dict[str, int]:
    try:
        from ._acl_shim import lib  # type: ignore[import-not-found]
    except ImportError:
        return header_defines()
    return module_defines(lib)


DEFINES: Mapping[str, int] = MappingProxyType(_load())


def _table(prefix: str, *, lower: bool = True, exclude: tuple = ()) -> Mapping[str, int]:
    table = {}
    for name, value in DEFINES.items():
        if name.startswith(prefix) and name not in exclude:
            key = name[len(prefix):]
            table[key.lower() if lower else key] = value
    return MappingProxyType(table)


KINDS = _table("ACL_SHIM_FN_")
ACTIVATIONS = _table("ACL_SHIM_ACT_")
POLICIES = _table("ACL_SHIM_POLICY_")
ROUNDING = _table("ACL_SHIM_ROUND_")
POOL_TYPES = _table("ACL_SHIM_POOL_")
PAD_MODES = _table("ACL_SHIM_PAD_")
INTERPOLATIONS = _table("ACL_SHIM_INTERP_")
SAMPLINGS = _table("ACL_SHIM_SAMPLING_")
DATA_TYPES = _table("ACL_SHIM_DT_", lower=False)
DATA_LAYOUTS = _table("ACL_SHIM_LAYOUT_", lower=False)
BACKENDS = _table("ACL_SHIM_BACKEND_")
STATUS = MappingProxyType({"OK": DEFINES.get("ACL_SHIM_OK", 0), **_table("ACL_SHIM_ERR_", lower=False)})
MAX_DIMS = DEFINES.get("ACL_SHIM_MAX_DIMS", 6)
ABI_VERSION = DEFINES.get("ACL_SHIM_ABI_VERSION", -1)


def code(table: Mapping[str, int], value, field: str) -> int:
    """The ABI code of option ``value`` in ``table``, or UnsupportedOptionError naming
    ``field``, the value and every accepted name."""
    if isinstance(value, str) and value in table:
        return table[value]
    raise UnsupportedOptionError(f"{field} is {value!r}, expected one of {sorted(table)}")


def activation_code(value, field: str = "activation") -> int:
    """Activation code; None means "no fused activation" (the header's NONE)."""
    return ACTIVATIONS["none"] if value is None else code(ACTIVATIONS, value, field)
