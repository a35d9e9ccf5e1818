"""Test configuration shared by the whole suite.

* Marker ``acl``: the test needs arm64 and the built native ACL module; elsewhere it is
  skipped with the reason ``acl_bridge.native_available()`` gives.
* Marker ``pure``, given here to the modules of PURE_MODULES: tests that never touch ACL,
  OpenCL or the native module (ndarray, the mapping and planner, the model reader, lowering
  and numpy executor, TFLite's interpreter). They run everywhere; the test command runs them
  on the host (Python 3.11, numpy 2.x), natively in the OpenCL stage's trixie root (Python
  3.13) and natively in bookworm's amd64 builder (Debian's Python 3.11 and numpy 1.24), and
  leaves them out (``-m "not pure"``) of the emulated runs, where they cost minutes and
  tested no Arm code.
* Marker ``cpu``: what the test checks can differ by CPU (the kinds whose ACL kernel depends on
  it, tests/function_cases.py CPU_KERNEL_KINDS; CPU detection; the wheel): the CPU matrix of
  docker/emulate.sh runs these (tests/test_cpu_matrix.py).
* Hypothesis profiles, chosen with HYPOTHESIS_PROFILE: "default" on the host, "emulated"
  (few examples, no deadline) under QEMU, where code runs 20-30x slower.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=200, deadline=None)
settings.register_profile(
    "emulated", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True, scope="session")
def _own_caches(tmp_path_factory):
    """The parsed-model cache and the kept ACL answers of the runner's loads
    (acl_bridge.models.format.model_cache, acl_bridge.facts_cache) in directories of this test
    session: tests start cold and never touch the user's caches."""
    names = {"ACL_NDARRAY_MODEL_CACHE": "parsed-models", "ACL_NDARRAY_FACTS_CACHE": "acl-facts"}
    previous = {var: os.environ.get(var) for var in names}
    for var, name in names.items():
        os.environ[var] = str(tmp_path_factory.mktemp(name))
    yield
    for var, value in previous.items():
        if value is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = value


def _native_status():
    from acl_bridge import native_available

    status = native_available()
    if isinstance(status, tuple):
        ok, reason = bool(status[0]), str(status[1])
    else:
        ok, reason = bool(status), "" if status else "native ACL module not available"
    if ok:  # the acl marker means ACL's NE functions; Debian's amd64 ACL is the CL backend alone
        from acl_bridge.native import require_native

        if not require_native()[1].acl_shim_neon_available():
            return False, "this ACL has no NE (NEON) functions (CL backend only: see tests/cl)"
    return ok, reason


def pytest_report_header(config):
    ok, reason = _native_status()
    if not ok:
        return [f"acl_bridge native: not available ({reason})"]
    lines = ["acl_bridge native: available"]
    try:
        from acl_bridge import native

        lines.append(f"ACL version: {native.acl_version()}")
    except Exception as e:  # the header must never break the run
        lines.append(f"ACL version: unknown ({e})")
    return lines


PURE_MODULES = frozenset({
    # tests/
    "test_architecture", "test_catalogue_ndarray", "test_configure_batch_checks", "test_configure_session", "test_demo_reference", "test_facts_cache",
    "test_descriptor", "test_directml", "test_dlpack", "test_elements", "test_layout", "test_mapping",
    "test_natural_constructors", "test_numpy_protocol", "test_padding_is_free", "test_pictures", "test_plan",
    "test_properties", "test_reduced_cl_table", "test_torch_format", "test_typing", "test_user_cache", "test_worked_examples", "test_xla", "test_xla_roundtrip",
    "test_kernels_ask_padding",
    # tests/models/ (the reader, lowering, plans and numpy executor, against TFLite's interpreter)
    "models.test_armnn_profile", "models.test_blazeface", "models.test_classify", "models.test_face_mesh", "models.test_fuzz_reader",
    "models.test_int8_models", "models.test_int8_reference", "models.test_lowering_table", "models.test_memory_plan", "models.test_model_cache",
    "models.test_one_operator", "models.test_paired_timing", "models.test_plan", "models.test_reader", "models.test_reader_quantization", "models.test_quantization_checks",
    "models.test_resize_oracle", "models.test_tflite_schema",
    "models.test_one_operator_logic",
    "models.test_one_operator_pool3d", "models.test_one_operator_gather_nd",
    "models.test_fallback_engine",
    "test_collector_paused", "test_cpu_matrix",
    "models.test_plan_round_trip",
    "test_keep_writer",
    "test_lazy_layout_keys", "test_decision_pass", "test_describe",
    "models.test_model_hash",
    "test_constant_fast_path", "models.test_step_call_kwargs",
})


def _module_key(item) -> str:
    """'test_x' for tests/test_x.py, 'models.test_y' for tests/models/test_y.py."""
    return _path_key(str(item.fspath))


def _path_key(path: str) -> str:
    path = os.path.normpath(path)
    parent = os.path.basename(os.path.dirname(path))
    name = os.path.splitext(os.path.basename(path))[0]
    return name if parent == "tests" else f"{parent}.{name}"


def _excludes_pure(config) -> bool:
    """True when the mark expression is "not pure" or a conjunction with "not pure" in it
    (docker/emulate.sh's emulated suites: -m "not pure and not cl")."""
    expression = config.getoption("markexpr", "") or ""
    return any(term.strip() == "not pure" for term in expression.split(" and "))


def pytest_ignore_collect(collection_path, config):
    """Under -m "not pure" the PURE_MODULES files are not even imported: every test of them
    would be deselected, and importing them cost 4-7 s of the emulated collection."""
    path = str(collection_path)
    if path.endswith(".py") and os.path.basename(path).startswith("test_") and _excludes_pure(config):
        if _path_key(path) in PURE_MODULES:
            return True
    return None


def pytest_collection_modifyitems(config, items):
    pure = pytest.mark.pure
    for item in items:
        if _module_key(item) in PURE_MODULES:
            item.add_marker(pure)
    ok, reason = _native_status()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"needs arm64 + native ACL: {reason}")
    for item in items:
        if item.get_closest_marker("acl") is not None:  # the marker, not the tests/acl folder name
            item.add_marker(skip)


# ---------------------------------------------------------------------------- outcomes
# With ACL_NDARRAY_OUTCOMES=FILE, every test's outcome is written there, one line each:
# "ran|skipped <TAB> node id <TAB> skip reason <TAB> seconds (setup + call + teardown)".
# docker/emulate.sh test collects the files of all its stages and fails when a test skipped in
# each stage that collected it and ran in none (docker/skipped_everywhere.py); the seconds say
# where a stage's time goes (docker/README.md, measured timings).
_OUTCOMES: dict = {}
_SECONDS: dict = {}


def _record(nodeid: str, outcome: str, reason: str = "") -> None:
    if outcome == "ran" or _OUTCOMES.get(nodeid, ("skipped",))[0] != "ran":
        _OUTCOMES[nodeid] = (outcome, " ".join(reason.split()))


def _reason(longrepr) -> str:
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text[len("Skipped: "):] if text.startswith("Skipped: ") else text


def pytest_runtest_logreport(report):
    _SECONDS[report.nodeid] = _SECONDS.get(report.nodeid, 0.0) + float(getattr(report, "duration", 0.0) or 0.0)
    if report.skipped and not hasattr(report, "wasxfail"):
        _record(report.nodeid, "skipped", _reason(report.longrepr))
    elif report.when == "call" or report.failed or hasattr(report, "wasxfail"):
        _record(report.nodeid, "ran")


def pytest_collectreport(report):
    if report.skipped:  # a whole module skipped at import (pytest.importorskip, allow_module_level)
        _record(report.nodeid, "skipped", _reason(report.longrepr))


def pytest_sessionfinish(session):
    path = os.environ.get("ACL_NDARRAY_OUTCOMES")
    if path and _OUTCOMES:
        with open(path, "w", encoding="utf-8") as f:
            for nodeid, (outcome, reason) in sorted(_OUTCOMES.items()):
                f.write(f"{outcome}\t{nodeid}\t{reason}\t{_SECONDS.get(nodeid, 0.0):.3f}\n")
