"""What the native module was built against, recorded at build time, and checked at import.

setup.py's build_ext writes ``_build_info.json`` next to this file (into the wheel) after
linking ``acl_bridge._acl_shim``: the ACL version and library (SONAME) it linked, the
Python ABI, the machine that compiled it and the one it runs on, the compiler, and the
module's GNU build-id. A source checkout has no such file (``load()`` returns None).

``mismatch(info)`` says, before the module is loaded, why it cannot work on this machine
(a wheel built for Debian trixie's ACL 24.11 / CPython 3.13 installed on bookworm's ACL
20.08, say), so ``acl_bridge.native`` reports a clear reason instead of a dlopen error or
a crash. Pure Python and standard library only: setup.py loads it by path at build time.
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import platform
import re
import struct
import sys
from typing import Dict, List, Optional

FILE_NAME = "_build_info.json"
_ACL_VERSION = re.compile(rb"arm_compute_version=v?([0-9]+\.[0-9]+(?:\.[0-9]+)?)")
_ACL_LIBRARY_DIRS = ("/usr/lib/aarch64-linux-gnu", "/usr/lib", "/usr/local/lib", "/lib/aarch64-linux-gnu")


# ---------------------------------------------------------------------------- ELF facts
def elf_facts(path: str) -> Dict[str, object]:
    """machine (e_machine name), needed (DT_NEEDED sonames), build_id (hex of the GNU
    build-id note) and comment (.comment section: the compiler) of a 64-bit little-endian
    ELF shared object. Raises ValueError naming the file when it is not one."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path} is not a 64-bit little-endian ELF file (starts with {data[:6]!r})")
    e_machine = struct.unpack_from("<H", data, 18)[0]
    e_shoff, = struct.unpack_from("<Q", data, 40)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize) for i in range(e_shnum)]
    names_off = sections[e_shstrndx][4]

    def name(sec) -> str:
        start = names_off + sec[0]
        return data[start:data.index(b"\0", start)].decode()

    facts: Dict[str, object] = {"machine": {183: "aarch64", 62: "x86_64"}.get(e_machine, str(e_machine)),
                                "needed": [], "build_id": "", "comment": ""}
    by_name = {name(s): s for s in sections}
    if ".comment" in by_name:
        s = by_name[".comment"]
        facts["comment"] = "; ".join(p.decode("utf-8", "replace") for p in data[s[4]:s[4] + s[5]].split(b"\0") if p)
    if ".note.gnu.build-id" in by_name:
        s = by_name[".note.gnu.build-id"]
        namesz, descsz, _ = struct.unpack_from("<III", data, s[4])
        desc = s[4] + 12 + (namesz + 3) // 4 * 4
        facts["build_id"] = data[desc:desc + descsz].hex()
    if ".dynamic" in by_name and ".dynstr" in by_name:
        dyn, strtab = by_name[".dynamic"], by_name[".dynstr"][4]
        for off in range(dyn[4], dyn[4] + dyn[5], 16):
            tag, val = struct.unpack_from("<qQ", data, off)
            if tag == 0:
                break
            if tag == 1:  # DT_NEEDED
                facts["needed"].append(data[strtab + val:data.index(b"\0", strtab + val)].decode())
    return facts


def acl_library_version(path: str) -> str:
    """The version ACL embeds in its library (``arm_compute_version=v24.11``), or ''."""
    try:
        with open(path, "rb") as f:
            m = _ACL_VERSION.search(f.read())
    except OSError:
        return ""
    return m.group(1).decode() if m else ""


# ---------------------------------------------------------------------------- the record
def describe_build(module_path: str, acl_library_dirs: List[str], compiler: str) -> Dict[str, object]:
    """The record written at build time for the linked module at ``module_path``."""
    import sysconfig

    elf = elf_facts(module_path)
    soname = next((n for n in elf["needed"] if n.startswith("libarm_compute.so")), "")
    acl_version = ""
    for d in acl_library_dirs:
        for candidate in (os.path.join(d, soname), os.path.join(d, "libarm_compute.so")):
            if soname and os.path.exists(candidate):
                acl_version = acl_library_version(os.path.realpath(candidate))
                break
        if acl_version:
            break
    return {
        "acl_version": acl_version,
        "acl_soname": soname,
        "python_cache_tag": sys.implementation.cache_tag,  # cpython-313: the ABI of the build Python
        "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX") or "",
        "module_machine": elf["machine"],
        "build_machine": platform.machine(),
        "cross_compiled": elf["machine"] != _elf_machine_name(platform.machine()),
        "compiler": compiler,
        "elf_comment": elf["comment"],
        "build_id": elf["build_id"],
        "needed": elf["needed"],
    }


def _elf_machine_name(machine: str) -> str:
    return {"arm64": "aarch64", "amd64": "x86_64"}.get(machine.lower(), machine.lower())


def load(directory: Optional[str] = None) -> Optional[Dict[str, object]]:
    """The record of the installed build, or None (source checkout, or built without it)."""
    path = os.path.join(directory or os.path.dirname(os.path.abspath(__file__)), FILE_NAME)
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# ---------------------------------------------------------------------------- the check
def _installed_acl() -> str:
    """What ACL this machine has, for messages: 'libarm_compute.so.20 (ACL 20.08)' or 'none'."""
    found = []
    for d in _ACL_LIBRARY_DIRS:
        for path in sorted(glob.glob(os.path.join(d, "libarm_compute.so.*"))):
            if not re.search(r"\.so\.[0-9]+$", path):  # the SONAME link, not libarm_compute.so.43.0.0
                continue
            version = acl_library_version(os.path.realpath(path))
            found.append(f"{os.path.basename(path)} (ACL {version or 'unknown version'})")
    return ", ".join(dict.fromkeys(found)) or "no libarm_compute.so.* in " + ", ".join(_ACL_LIBRARY_DIRS)


def built_for(info: Dict[str, object]) -> str:
    """'ACL 24.11 (libarm_compute.so.43), cpython-313 on aarch64' for messages."""
    return (f"ACL {info.get('acl_version') or '?'} ({info.get('acl_soname') or '?'}), "
            f"{info.get('python_cache_tag')} on {info.get('module_machine')}")


def mismatch(info: Optional[Dict[str, object]]) -> Optional[str]:
    """None when the recorded build can load here; otherwise the reason, naming what the
    module was built for and what this machine has. Never raises."""
    if not info:
        return None
    problems = []
    here_machine = _elf_machine_name(platform.machine())
    if info.get("module_machine") and info["module_machine"] != here_machine:
        problems.append(f"this machine is {here_machine}")
    if info.get("python_cache_tag") and info["python_cache_tag"] != sys.implementation.cache_tag:
        problems.append(f"this interpreter is {sys.implementation.cache_tag}")
    soname = info.get("acl_soname")
    if soname:
        try:
            ctypes.CDLL(str(soname))
        except OSError:
            problems.append(f"{soname} does not load here; this machine has {_installed_acl()}")
    if not problems:
        return None
    return (f"acl_bridge's native module was built for {built_for(info)}, but " + "; ".join(problems)
            + ". Install the wheel built for this system (docker/README.md: one wheel per Debian "
            "release) or build from source here: pip install --no-build-isolation .")

