"""The reduced case table of the emulated OpenCL stage (tests/function_cases.py ``reduced_rows``,
selected by ACL_NDARRAY_CL_TABLE=reduced in tests/cl/conftest.py): every function kind and dtype
family of the full table has exactly one row there, in a layout the row runs on CL; the x86
OpenCL stage runs every row."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

from function_cases import CASES, INT8_CASES, dtype_family, reduced_rows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_one_row_per_function_kind_and_dtype_family():
    cases = CASES + INT8_CASES
    by_name = {c.name: c for c in cases}
    rows = reduced_rows(cases, "cl")
    chosen = Counter((by_name[name].kind, dtype_family(by_name[name])) for name, _ in rows)
    assert set(chosen) == {(c.kind, dtype_family(c)) for c in cases if c.variants_on("cl")}
    assert set(chosen.values()) == {1}
    for name, variant in rows:
        assert variant in by_name[name].variants_on("cl"), (name, variant)
        assert variant in ("padded", "offset"), (name, variant)  # padding cells to check


def test_dtype_families_of_worked_rows():
    by_name = {c.name: c for c in CASES + INT8_CASES}
    assert [dtype_family(by_name[n]) for n in ("activation-relu", "activation-relu-f16", "add-int32",
                                               "cast-uint8_float32", "quantize-uint8", "int8-softmax")] == \
        ["float32", "float16", "integer", "float32", "quantized", "quantized"]


def test_the_reduced_table_deselects_the_other_rows_and_a_wrong_value_is_refused():
    args = [sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
            "tests/cl/test_cl_functions.py", "tests/cl/test_cl_int8_functions.py"]
    env = dict(os.environ, ACL_NDARRAY_CL_TABLE="reduced")
    out = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    full = sum(len(c.variants_on("cl")) for c in CASES + INT8_CASES)
    rows = len(reduced_rows(CASES + INT8_CASES, "cl"))
    assert f"{rows}/{full} tests collected ({full - rows} deselected)" in out.stdout, out.stdout[-500:]
    env["ACL_NDARRAY_CL_TABLE"] = "some"
    out = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode != 0 and "ACL_NDARRAY_CL_TABLE is 'some', expected 'full' or 'reduced'" in out.stderr, \
        out.stdout + out.stderr
