"""Constants handed to ACL in the model's own memory (emulated arm64): weights and biases of
the convolutions and fully connected layers that ACL takes as ``const ITensor *`` and asks no
padding for go to ACL in place, with no copy. The same model with copies gives the same bits,
the shared memory is unchanged after every run (ACL writes none of it), and sharing makes no
probe the copies did not (a dense const tensor needs none)."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from .conftest import model_file  # noqa: E402

pytestmark = pytest.mark.acl


def _shared(runner):
    """[(function kind, role, NdArray)] of the constants given to ACL in the model's memory."""
    from acl_bridge.executor import origin_of
    from acl_bridge.plan import Origin

    return [(f.kind, role, a) for f, consts in zip(runner.functions, runner.constants)
            for role, a in consts.items() if origin_of(a) is not Origin.BRIDGE]


def _input(runner, rng):
    dtype = runner.input_dtype
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-128, 128, runner.input_shape).astype(dtype)
    return rng.uniform(-1, 1, runner.input_shape).astype(dtype)


@pytest.mark.parametrize("name", ["face_detection_front", "face_landmark", "visual_wake_words",
                                  "keyword_spotting_alexa"])
def test_shared_constants_give_the_same_bits_and_stay_unchanged(name):
    from acl_bridge import native
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    from .test_int8_models_acl import REFUSED_ON_2008

    if native.acl_version().startswith("20.08") and name in REFUSED_ON_2008:
        pytest.skip(f"{name}: refused by ACL 20.08 at load (tests/models/test_int8_models_acl.py)")
    path = model_file(name)
    # ACL asked afresh by both (no answers kept from an earlier load), so their probes compare
    with TfliteRunner(path, facts_cache=False) as shared, \
            TfliteRunner(path, share_constants=False, facts_cache=False) as copied:
        from acl_bridge.mapping import _tensor_info_of

        assert _tensor_info_of.cache_info().currsize == 0, "the load left its descriptions cached"
        given = _shared(shared)
        assert given, f"{name}: no constant was shared"
        assert not _shared(copied)
        assert {kind for kind, _, _ in given} <= {"convolution", "depthwise", "fully_connected"}
        before = [a.numpy().copy() for _, _, a in given]
        # each shared array is a model tensor's own memory, whole: its bytes counted once
        in_file = {t.data.ctypes.data: t.data.nbytes for t in shared.plan.model.tensors if t.data is not None}
        found = {}
        for kind, role, a in given:
            at = a.allocation.ctypes.data
            assert in_file.get(at) == a.allocation.nbytes, f"{name}: the {role} of a {kind} is not a model tensor's memory"
            found[at] = a.allocation.nbytes
        report, alone = shared.memory_report(), copied.memory_report()
        assert report["constants_shared_bytes"] == sum(found.values())
        assert alone["constants_shared_bytes"] == 0
        # what is shared is no longer copied (a copy of a tensor asked no padding is as large)
        assert alone["constants_copied_bytes"] - report["constants_copied_bytes"] >= sum(found.values())
        assert report["constants_given_to_acl_bytes"] <= alone["constants_given_to_acl_bytes"]
        # no probe the copies did not need: a dense const tensor needs none
        probes = (shared._session.calls.get("probe", 0), copied._session.calls.get("probe", 0))
        assert probes[0] <= probes[1], f"{name}: probes shared/copied {probes}"
        assert shared.staged() == copied.staged()
        rng = np.random.default_rng(11)
        for _ in range(2):
            x = _input(shared, rng)
            a = {k: v.copy() for k, v in shared.run(x).items()}
            b = copied.run(x)
            for k in a:
                assert np.array_equal(a[k], b[k]), f"{name} {k}: shared and copied constants differ"
            for (kind, role, arr), old in zip(given, before):
                assert np.array_equal(arr.numpy().view(np.uint8), old.view(np.uint8)), \
                    f"{name}: ACL changed the {role} of a {kind} it was given in place"
