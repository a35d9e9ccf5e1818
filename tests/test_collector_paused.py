"""The model runner's load pauses Python's garbage collector and restores it as it was
(acl_bridge.models.runtime.tflite_runner.collector_paused), also when the load raises."""

import gc

import pytest

from acl_bridge.models.runtime.tflite_runner import collector_paused


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_off_inside_and_as_it_was_after(enabled):
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(KeyError):
            with collector_paused():
                raise KeyError("a load that fails")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
