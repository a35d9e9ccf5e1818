"""The model runner's load pauses Python's garbage collector and restores it as it was
(acl_bridge.models.runtime.tflite_runner.collector_paused), also when the load raises; the
objects still young after it are moved to the oldest generation, not collected or frozen."""

import gc

import pytest

from acl_bridge.models.runtime.tflite_runner import collector_paused


@pytest.fixture(autouse=True)
def _collector_as_it_was():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_off_inside_and_as_it_was_after(enabled):
    (gc.enable if enabled else gc.disable)()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled() is enabled
    with pytest.raises(KeyError):
        with collector_paused():
            raise KeyError("a load that fails")
    assert gc.isenabled() is enabled


def test_the_loads_objects_are_moved_to_the_oldest_generation_and_still_collected():
    gc.enable()
    gc.collect()
    with collector_paused():
        kept = [[i] for i in range(5000)]  # tracked containers, young
        cycle = [None]
        cycle[0] = cycle
        assert gc.get_count()[0] >= 5000
        del cycle
    assert gc.get_count()[0] < 50  # (nothing young left to walk at the next collection)
    assert gc.get_freeze_count() == 0
    assert gc.collect() >= 1  # the load's garbage cycle is still found by a full collection
    assert len(kept) == 5000


def test_objects_the_caller_froze_stay_frozen():
    gc.enable()
    held = [[i] for i in range(100)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collector_paused():
            made = [[i] for i in range(100)]
        assert gc.get_freeze_count() == frozen
        assert len(held) == len(made) == 100
    finally:
        gc.unfreeze()
