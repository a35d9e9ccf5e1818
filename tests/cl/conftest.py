"""CL tests: skipped with the reason where this acl_bridge has no CL backend or no OpenCL
device ACL can use. The session asks for acl-ndarray's OpenCL layer (the way a user does,
use_software_opencl_layer) unless ACL_NDARRAY_CL_LAYER=0: software devices need it, and a
device with non-uniform work-groups of its own (Mali) passes through it untouched.
ACL_NDARRAY_CL_TABLE=reduced runs only the reduced case table (below)."""

import os

import pytest

_STATE = {}


def cl_status():
    """(True, device description) or (False, why CL tests cannot run here); computed once."""
    if "status" in _STATE:
        return _STATE["status"]
    from acl_bridge import native_available
    from acl_bridge import opencl
    from ndarray.errors import AclNdarrayError

    ok, reason = native_available()
    if not ok:
        status = (False, f"no native ACL module: {reason}")
    elif not opencl.cl_available():
        status = (False, "this acl_bridge was built without ACL's CL backend")
    else:
        try:
            if os.environ.get(opencl.LAYER_ENV) != "0" and opencl.layer_path() is not None:
                opencl.use_software_opencl_layer()
            status = (True, str(opencl.cl_init()))
        except AclNdarrayError as e:
            status = (False, f"no OpenCL device ACL can use: {e}")
    _STATE["status"] = status
    return status


# ACL_NDARRAY_CL_TABLE=reduced: of the case table (test_cl_functions, test_cl_int8_functions) only
# the rows of function_cases.reduced_rows run, the others are deselected (the emulated OpenCL
# stage of docker/emulate.sh, where each kernel compiles under QEMU; the x86 stage runs all).
TABLE_ENV = "ACL_NDARRAY_CL_TABLE"


def _deselect_to_reduced_table(config, items):
    from function_cases import CASES, INT8_CASES, reduced_rows

    keep = reduced_rows(CASES + INT8_CASES, "cl")
    dropped = []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "case" in params and "variant" in params and item.get_closest_marker("cl") is not None \
                and (params["case"].name, params["variant"]) not in keep:
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = set(dropped)
        items[:] = [item for item in items if item not in gone]


def pytest_collection_modifyitems(config, items):
    table = os.environ.get(TABLE_ENV, "full")
    if table not in ("full", "reduced"):
        raise pytest.UsageError(f"{TABLE_ENV} is {table!r}, expected 'full' or 'reduced'")
    if table == "reduced":
        _deselect_to_reduced_table(config, items)
    cl_items = [item for item in items if item.get_closest_marker("cl") is not None]
    if not cl_items:
        return
    ok, reason = cl_status()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"needs ACL's CL backend and an OpenCL device: {reason}")
    for item in cl_items:
        item.add_marker(skip)


def pytest_report_header(config):
    # only when CL tests were asked for: the status starts OpenCL in this process
    if any("tests/cl" in str(a).replace(os.sep, "/") for a in config.args):
        ok, reason = cl_status()
        return [f"OpenCL: {reason}"]
    return []
