"""The memory plan on ACL (emulated arm64): a model whose intermediates share one arena and
whose functions share one ACL workspace gives the same bits as the same model with one
buffer per tensor and a workspace per function (a slot or a pool reused too early would
change them), copies nothing more, and no function writes arena bytes outside the slots of
the buffers alive (gaps between slots stay zero)."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from .conftest import model_file  # noqa: E402

pytestmark = pytest.mark.acl


def _gap_mask(runner):
    """True for the arena's bytes that belong to no slot."""
    mask = np.ones(runner.arena.allocation.nbytes, bool)
    for s in runner.memory.slots:
        mask[s.offset_in_bytes:s.end_in_bytes] = False
    return mask


@pytest.mark.parametrize("name", ["face_detection_front", "face_landmark", "face_detection_full_range",
                                  "image_classification", "visual_wake_words", "keyword_spotting_alexa"])
def test_arena_gives_the_same_bits_as_one_buffer_per_tensor(name):
    from acl_bridge.models.planning.memory_plan import check_disjoint
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    path = model_file(name)
    from acl_bridge import native

    from .test_int8_models_acl import REFUSED_ON_2008

    if native.acl_version().startswith("20.08") and name in REFUSED_ON_2008:
        pytest.skip(f"{name}: refused by ACL 20.08 at load (its {REFUSED_ON_2008[name]}; "
                    "tests/models/test_int8_models_acl.py asserts the refusal)")
    with TfliteRunner(path) as shared, TfliteRunner(path, arena=False, share_workspaces=False) as separate:
        assert shared.use_arena and not separate.use_arena
        assert shared.share_workspaces and not separate.share_workspaces
        assert check_disjoint(shared.memory) is None
        gaps = _gap_mask(shared)
        rng = np.random.default_rng(7)
        for _ in range(2):
            dtype = shared.input_dtype
            if np.issubdtype(dtype, np.integer):
                x = rng.integers(-128, 128, shared.input_shape).astype(dtype)
            else:
                x = rng.uniform(-1, 1, shared.input_shape).astype(dtype)
            a = {k: v.copy() for k, v in shared.run(x).items()}
            b = separate.run(x)
            for k in a:
                assert np.array_equal(a[k], b[k]), f"{name} {k}: arena and one buffer each differ"
            assert not shared.arena.allocation[gaps].any(), "a function wrote arena bytes outside the live slots"
        # the plan stages nothing the runner without it does not (20.08 stages some of
        # keyword_spotting_alexa's buffers either way: docs/models.md, its int8 table)
        assert shared.staged() == separate.staged()
        assert shared.copied_bytes_per_inference == separate.copied_bytes_per_inference
        report, alone = shared.memory_report(), separate.memory_report()
        print(f"{name}: arena {report['activations_bytes']} B, lower bound {report['activations_lower_bound_bytes']} B,"
              f" one buffer each {alone['activations_bytes']} B")
        assert report["activations_bytes"] <= 1.10 * report["activations_lower_bound_bytes"]
        # the face models' activations: 5-8x less (issue 24's figures); ResNet-8's: 2.4x
        assert report["activations_bytes"] < alone["activations_bytes"] / (3 if name.startswith("face") else 2)
        assert report["activations_one_buffer_each_bytes"] == alone["activations_bytes"]
        # the workspaces: one pool, on NEON as large as the largest function's own (the pools
        # of the one-per-function runner are each function's need alone)
        print(f"{name}: ACL workspaces shared {report['workspaces_bytes']} B, a pool per function "
              f"{alone['workspaces_bytes']} B ({alone['functions_in_workspaces']} functions)")
        assert report["functions_in_workspaces"] == alone["functions_in_workspaces"] == len(shared.functions)
        pools = [w.size_in_bytes for w in separate.workspaces]
        assert report["workspaces_bytes"] == max(pools) and alone["workspaces_bytes"] == sum(pools)
        unused = report["constants_marked_unused_by_kind"]
        print(f"{name}: constants ACL marked unused after prepare, by kind: {unused}")
        assert report["constants_marked_unused_bytes"] == sum(unused.values())
        assert 0 <= report["constants_marked_unused_bytes"] <= report["constants_given_to_acl_bytes"]
        assert unused == alone["constants_marked_unused_by_kind"], "the memory plan changed what ACL prepares"
