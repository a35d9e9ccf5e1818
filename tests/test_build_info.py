"""The build record of the native module (acl_bridge/_build_info.py): ELF facts, and the
import-time refusal of a module built for another ACL or Python. Runs on any machine: the
record is forged, the ELF read is this interpreter's own."""

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from acl_bridge import _build_info

HERE_MACHINE = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine().lower(), platform.machine().lower())


def forged(**changes):
    """A record that matches this machine and interpreter, with changes."""
    info = {"acl_version": "24.11", "acl_soname": "", "python_cache_tag": sys.implementation.cache_tag,
            "module_machine": HERE_MACHINE, "build_machine": "x86_64", "build_id": "ab" * 20}
    info.update(changes)
    return info


def test_elf_facts_of_this_interpreter():
    facts = _build_info.elf_facts(os.path.realpath(sys.executable))
    assert facts["machine"] == HERE_MACHINE
    assert re.fullmatch(r"([0-9a-f]{2})*", facts["build_id"]), facts
    assert all(isinstance(n, str) and n for n in facts["needed"]), facts


def test_elf_facts_refuses_a_file_that_is_not_elf(tmp_path):
    path = tmp_path / "not-elf.so"
    path.write_bytes(b"#!/bin/sh\n")
    with pytest.raises(ValueError, match=r"not-elf\.so is not a 64-bit little-endian ELF file"):
        _build_info.elf_facts(str(path))


def test_no_record_means_no_check(tmp_path):
    assert _build_info.load(str(tmp_path)) is None
    assert _build_info.mismatch(None) is None
    assert _build_info.mismatch(forged()) is None


def test_record_round_trips_through_its_file(tmp_path):
    (tmp_path / _build_info.FILE_NAME).write_text(json.dumps(forged()))
    assert _build_info.load(str(tmp_path)) == forged()


def test_another_python_is_refused_with_both_versions():
    why = _build_info.mismatch(forged(python_cache_tag="cpython-399"))
    assert "built for ACL 24.11" in why and "cpython-399" in why
    assert f"this interpreter is {sys.implementation.cache_tag}" in why
    assert "pip install --no-build-isolation ." in why


def test_another_acl_major_is_refused_naming_the_library():
    why = _build_info.mismatch(forged(acl_version="99.01", acl_soname="libarm_compute.so.999"))
    assert "built for ACL 99.01 (libarm_compute.so.999)" in why
    assert "libarm_compute.so.999 does not load here; this machine has" in why


def test_another_machine_is_refused():
    other = "x86_64" if HERE_MACHINE == "aarch64" else "aarch64"
    why = _build_info.mismatch(forged(module_machine=other))
    assert f"{other}, but this machine is {HERE_MACHINE}" in why


def test_import_reports_the_mismatch_instead_of_crashing(tmp_path):
    """The whole path: an installed acl_bridge whose record names another ACL major imports,
    reports why through native_available(), and raises AclUnavailableError on use."""
    import acl_bridge
    import ndarray

    for pkg in (ndarray, acl_bridge):  # wherever they are imported from (sources or installed)
        shutil.copytree(os.path.dirname(pkg.__file__), tmp_path / pkg.__name__,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", _build_info.FILE_NAME))
    (tmp_path / "acl_bridge" / _build_info.FILE_NAME).write_text(
        json.dumps(forged(acl_version="99.01", acl_soname="libarm_compute.so.999")))
    out = refused_import(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "REFUSED: acl_bridge's native module was built for ACL 99.01 (libarm_compute.so.999)" in out.stdout


def refused_import(site_dir):
    """Import acl_bridge from site_dir in a new interpreter and use it: the process must end
    normally with 'REFUSED: <reason>' (native_available() False, AclUnavailableError on use).
    Also used by tests/acl/test_wheel.py with the other release's wheel unpacked."""
    script = textwrap.dedent("""
        from acl_bridge import native
        ok, why = native.native_available()
        assert not ok, why
        try:
            native.cpu_report()
        except native.AclUnavailableError as e:
            print("REFUSED:", e)
    """)
    return subprocess.run([sys.executable, "-c", script], cwd=site_dir, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(site_dir)}, timeout=600)
