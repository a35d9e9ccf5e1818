"""A reshape view of one of the runner's own dense buffers is the bridge's memory too
(acl_bridge.executor.bridge_reshape, models/runtime/buffers): the fully connected layer that
reads the pooled features of Visual Wake Words and of the Alexa keyword model through a
reshape makes no probe, and gives the bits of a runner that treats the view as the caller's
memory and probes it (emulated arm64)."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from .conftest import model_file  # noqa: E402

pytestmark = pytest.mark.acl


@pytest.mark.parametrize("name", ["visual_wake_words", "keyword_spotting_alexa"])
def test_a_reshape_of_a_bridge_buffer_is_not_probed_and_gives_the_same_bits(name, monkeypatch):
    from acl_bridge import executor, native
    from acl_bridge.models.runtime import buffers
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    from acl_bridge.plan import Origin

    path = model_file(name)
    with TfliteRunner(path, facts_cache=False, model_cache=False) as adopted:
        reshapes = [v for v in adopted.plan.views if v.how[0] == "reshape"]
        assert reshapes, f"{name}: no reshape view"
        for v in reshapes:
            parent = adopted.arrays[adopted.plan.root(v.tensor)]
            if executor.origin_of(parent) is Origin.BRIDGE:
                assert executor.origin_of(adopted.arrays[v.tensor]) is Origin.BRIDGE, f"{name}: tensor {v.tensor}"
        probes = adopted._session.calls.get("probe", 0)
        monkeypatch.setattr(buffers, "bridge_reshape", lambda parent, view: False)  # the caller's memory, as before
        with TfliteRunner(path, facts_cache=False, model_cache=False) as probed:
            # (ACL 24.11 asks no padding: that probe was the load's only one; 20.08's padded
            # buffers make others, the same in both)
            assert probes < probed._session.calls.get("probe", 0)
            if not native.kernels_ask_padding("neon"):
                assert probes == 0
            rng = np.random.default_rng(5)
            for _ in range(2):
                x = rng.integers(-128, 128, adopted.input_shape).astype(adopted.input_dtype)
                a = {k: v.copy() for k, v in adopted.run(x).items()}
                b = probed.run(x)
                assert all(np.array_equal(a[k], b[k]) for k in a), f"{name}: the outputs differ"
