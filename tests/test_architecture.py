"""The layers of docs/architecture.md, checked by import-linter (contracts in pyproject.toml):
CLI above models above runtime above plan/mapping above ndarray; the models' pure half never
imports the runtime; ndarray never imports acl_bridge or cffi;
formats depend on the core, never the reverse."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_import_layers_hold():
    pytest.importorskip("importlinter", reason="import-linter is not installed (the host test venv has it)")
    exe = shutil.which("lint-imports") or os.path.join(os.path.dirname(sys.executable), "lint-imports")
    if not os.path.exists(exe):
        pytest.skip("the lint-imports command of import-linter is not on PATH")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([exe, "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_pure_test_modules_exist_and_need_no_acl():
    """tests/conftest.py PURE_MODULES (left out of the emulated runs, run natively on trixie's
    and bookworm's Python instead): each names a test module, and none is marked acl or cl."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    try:
        from conftest import PURE_MODULES
    finally:
        sys.path.pop(0)
    for name in sorted(PURE_MODULES):
        path = os.path.join(ROOT, "tests", *name.split(".")) + ".py"
        assert os.path.isfile(path), f"PURE_MODULES names {name}, but {path} does not exist"
        text = open(path, encoding="utf-8").read()
        for marker in ("pytest.mark." + m for m in ("acl", "cl")):  # spelt so this file has neither
            assert marker not in text, f"{name} is in PURE_MODULES but uses {marker}"
