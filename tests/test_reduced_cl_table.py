"""The reduced case table of the emulated OpenCL stage (tests/function_cases.py ``reduced_rows``,
selected by ACL_NDARRAY_CL_TABLE=reduced in tests/cl/conftest.py): every function kind (every
family, for the kinds of acl_bridge.families' rooms: ``reduced_group``) and dtype family of the
full table that PoCL builds has exactly one row there, in a layout the row runs on CL; the x86
OpenCL stage runs every row."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest
from function_cases import CASES, INT8_CASES, POCL_CANNOT_BUILD, dtype_family, reduced_group, reduced_rows


def test_one_row_per_function_kind_and_dtype_family():
    cases = CASES + INT8_CASES
    by_name = {c.name: c for c in cases}
    rows = reduced_rows(cases, "cl")
    chosen = Counter((reduced_group(by_name[name].kind), dtype_family(by_name[name])) for name, _ in rows)
    pocl_builds = [c for c in cases if c.variants_on("cl") and c.notes.get("cl") is not POCL_CANNOT_BUILD]
    assert set(chosen) == {(reduced_group(c.kind), dtype_family(c)) for c in pocl_builds}
    assert not any(by_name[name].kind == "Lstm" for name, _ in rows)  # PoCL cannot build it: rusticl, x86
    assert reduced_group("Less") == reduced_group("ArgMax") == "acl_bridge.families.logic"
    assert reduced_group("Convolution") == "Convolution"  # the rooms of PER_KIND_ROOMS: a row per kind
    assert set(chosen.values()) == {1}
    for name, variant in rows:
        assert variant in by_name[name].variants_on("cl"), (name, variant)
        assert variant in ("padded", "offset"), (name, variant)  # padding cells to check


def test_dtype_families_of_worked_rows():
    by_name = {c.name: c for c in CASES + INT8_CASES}
    assert [dtype_family(by_name[n]) for n in ("activation-relu", "activation-relu-f16", "add-int32",
                                               "cast-uint8_float32", "quantize-uint8", "int8-softmax")] == \
        ["float32", "float16", "integer", "float32", "quantized", "quantized"]


class _Item:
    """What the selection reads of a collected test: its parameters and its markers."""

    def __init__(self, case, variant, marker="cl"):
        self.callspec = SimpleNamespace(params={"case": case, "variant": variant})
        self.marker = marker

    def get_closest_marker(self, name):
        return name if name == self.marker else None


def test_the_reduced_table_deselects_the_other_rows_and_a_wrong_value_is_refused(monkeypatch):
    from cl import conftest as cl_conftest

    items = [_Item(c, v) for c in CASES + INT8_CASES for v in c.variants_on("cl")]
    neon = [_Item(c, v, "acl") for c in CASES[:3] for v in c.variants_on("neon")]  # not CL: never deselected
    deselected = []
    config = SimpleNamespace(hook=SimpleNamespace(pytest_deselected=lambda items: deselected.extend(items)))
    kept = items + neon
    monkeypatch.setenv(cl_conftest.TABLE_ENV, "reduced")
    monkeypatch.setattr(cl_conftest, "cl_status", lambda: (True, "a device"))
    cl_conftest.pytest_collection_modifyitems(config, kept)
    assert {(i.callspec.params["case"].name, i.callspec.params["variant"]) for i in kept if i.marker == "cl"} == \
        reduced_rows(CASES + INT8_CASES, "cl")
    assert all(i in kept for i in neon) and len(deselected) == len(items) + len(neon) - len(kept)
    monkeypatch.setenv(cl_conftest.TABLE_ENV, "some")
    with pytest.raises(pytest.UsageError, match="ACL_NDARRAY_CL_TABLE is 'some', expected 'full' or 'reduced'"):
        cl_conftest.pytest_collection_modifyitems(config, list(items))
