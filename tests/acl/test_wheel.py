"""The installed native module is the one the build recorded, and, under docker/emulate.sh,
the one cross-compiled on the x86 host: emulate.sh reads the GNU build-id of the module in
the wheel it built and passes it in ACL_NDARRAY_WHEEL_BUILD_ID; here it is compared with
the build-id of the file Python actually loaded. A wheel built for the other Debian
release (ACL_NDARRAY_DIST holds both) is refused with a clear message, never a crash."""

import glob
import os
import subprocess
import sys
import zipfile

import pytest

from acl_bridge import _build_info, native
from test_build_info import refused_import  # tests/ is on sys.path (rootdir conftest)

pytestmark = [pytest.mark.acl, pytest.mark.cpu]  # cpu: the cross-built module and its ACL load and run on each CPU of the matrix

WHEEL_BUILD_ID = os.environ.get("ACL_NDARRAY_WHEEL_BUILD_ID", "")
PY_TAG = "cp%d%d" % sys.version_info[:2]


def loaded_module_path():
    from acl_bridge import _acl_shim

    return _acl_shim.__file__


def test_build_record_matches_the_loaded_module_and_acl():
    info = native.BUILD_INFO
    assert info is not None, "an installed acl_bridge has acl_bridge/_build_info.json (written by setup.py)"
    facts = _build_info.elf_facts(loaded_module_path())
    assert facts["build_id"] == info["build_id"], (facts, info)
    assert info["acl_soname"] in facts["needed"], (facts, info)
    assert info["python_cache_tag"] == sys.implementation.cache_tag
    assert info["acl_version"].split(".")[0] == native.acl_version().split(".")[0], (info, native.acl_version())


@pytest.mark.skipif(not WHEEL_BUILD_ID, reason="not installed from a cross-built wheel "
                    "(ACL_NDARRAY_WHEEL_BUILD_ID is set by docker/emulate.sh)")
def test_module_under_test_is_the_cross_built_one():
    path = loaded_module_path()
    assert "site-packages" in path, f"{path}: not the installed module"
    assert _build_info.elf_facts(path)["build_id"] == WHEEL_BUILD_ID, path
    info = native.BUILD_INFO
    assert (info["build_id"], info["build_machine"], info["module_machine"], info["cross_compiled"]) == \
        (WHEEL_BUILD_ID, "x86_64", "aarch64", True), info
    assert info["compiler"].startswith("aarch64-linux-gnu-"), info


@pytest.mark.skipif(not WHEEL_BUILD_ID, reason="not installed from a cross-built wheel "
                    "(ACL_NDARRAY_WHEEL_BUILD_ID is set by docker/emulate.sh)")
def test_opencl_layer_is_the_cross_built_one_next_to_acl_bridge_where_the_build_has_cl():
    """The wheel of a release whose ACL has the CL backend (trixie) carries the OpenCL layer,
    found next to the installed acl_bridge as on x86: emulate.sh passes the build-id it read
    from the layer in the wheel (ACL_NDARRAY_CL_LAYER_BUILD_ID; empty: the wheel has none)."""
    from acl_bridge import cl_layer, opencl

    layer_id = os.environ.get("ACL_NDARRAY_CL_LAYER_BUILD_ID", "")
    path = cl_layer.layer_path()
    if not layer_id:  # the wheel has none: only where the module has no CL backend (bookworm's ACL 20.08)
        assert not opencl.cl_available(), "the module has ACL's CL backend but its wheel no OpenCL layer"
        assert path is None, path
        return
    assert path is not None, f"the wheel's OpenCL layer (build-id {layer_id}) is not next to acl_bridge"
    assert os.path.dirname(path) == os.path.dirname(os.path.abspath(loaded_module_path())), path
    facts = _build_info.elf_facts(path)
    assert (facts["machine"], facts["build_id"]) == ("aarch64", layer_id), (path, facts)


def other_release_wheels():
    dist = os.environ.get("ACL_NDARRAY_DIST", "")
    return sorted(w for w in glob.glob(os.path.join(dist, "acl_ndarray-*-linux_aarch64.whl"))
                  if f"-{PY_TAG}-{PY_TAG}-" not in os.path.basename(w)) if dist else []


@pytest.mark.skipif(not other_release_wheels(), reason="no wheel of another release in ACL_NDARRAY_DIST "
                    "(docker/emulate.sh test builds both)")
@pytest.mark.parametrize("wheel", other_release_wheels() or [None], ids=lambda w: "other-release")
def test_wheel_for_another_release_is_refused(wheel, tmp_path):
    # pip refuses it outright: its Python tag is the other release's
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
                          "--target", str(tmp_path / "pip"), wheel], capture_output=True, text=True, timeout=600)
    assert pip.returncode != 0 and "is not a supported wheel on this platform" in pip.stderr, pip.stderr
    # forced in anyway (unpacked onto sys.path): the import names both builds, no crash
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path / "site")
    out = refused_import(tmp_path / "site")
    assert out.returncode == 0, out.stderr
    other = _build_info.load(str(tmp_path / "site" / "acl_bridge"))
    assert f"REFUSED: acl_bridge's native module was built for {_build_info.built_for(other)}" in out.stdout
    assert f"this interpreter is {sys.implementation.cache_tag}" in out.stdout
    assert f"ACL {native.acl_version()}" in out.stdout, out.stdout  # what this machine has
