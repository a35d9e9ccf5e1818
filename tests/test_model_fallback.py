"""benchmarks/model_fallback.py without ACL: the fallback operators grouped, the fallback's
share from a segment profile, the table and the full reasons, TFLite's interpreter tried in
a child process, and a model row where the bridge and Arm NN refuse (no native layer, no
pyarmnn) while the interpreter runs. The measurements need ACL: ``./docker/emulate.sh run
bookworm -- python3 benchmarks/model_fallback.py --rounds 3``."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import model_fallback as mf  # noqa: E402
import model_speed as ms  # noqa: E402

from acl_bridge import native_available  # noqa: E402
from acl_bridge.models.apps import fetch  # noqa: E402

needs_host = pytest.mark.skipif(bool(native_available()[0]),
                                reason="with ACL the bridge configures the model: the emulated run measures that")
needs_interpreter = pytest.mark.skipif(ms.tflite_available() is not None, reason=str(ms.tflite_available()))


def model_file(name):
    try:
        return fetch.model_path(name)
    except fetch.FetchError as e:
        pytest.skip(str(e))


FALLBACKS = [dict(operator=2, opcode="DEPTHWISE_CONV_2D", kind="refused by ACL", reason="Insufficient Padding!"),
             dict(operator=4, opcode="DEPTHWISE_CONV_2D", kind="refused by ACL", reason="Insufficient Padding!"),
             dict(operator=9, opcode="SHAPE", kind="no rule", reason="no lowering rule")]


def test_fallback_operators_counted_by_opcode_and_kind():
    assert mf.grouped(FALLBACKS) == "2x DEPTHWISE_CONV_2D (refused by ACL), 1x SHAPE (no rule)"
    assert mf.grouped([]) == "-"


def test_fallback_share_is_the_fallback_segments_over_all_segments():
    probe = mf.BridgeProbe(3)
    assert probe.fallback_share() is None  # no profile taken
    probe.segments = [dict(side="acl", seconds=0.010), dict(side="fallback", seconds=0.030),
                      dict(side="acl", seconds=0.020), dict(side="fallback", seconds=0.020)]
    assert probe.fallback_share() == pytest.approx(0.625)


def test_table_row_and_reasons_in_full():
    pair = ms.summarize([2.0, 2.5, 3.0]).as_dict()
    row = {"model": "m", "note": "", "operators": 10, "fallback": FALLBACKS, "acl_segments": 2,
           "fallback_share": 0.5, "bridge_over": {"tflite": pair},
           "contenders": {"bridge": {"per_inference_ms": 12.0}, "tflite": {"per_inference_ms": 5.0},
                          "armnn": {"refused": "Operator not supported: SHAPE", "error": "ArmnnError"}}}
    refused = {"model": "r", "note": "", "contenders": {"bridge": {"refused": "no ACL", "error": "X"},
                                                        "armnn": {"failed": "boom", "error": "Y"},
                                                        "tflite": {"failed": "crashed in a child process "
                                                                   "(killed by signal 11): ", "error": "crash"}}}
    lines = mf.markdown_rows([row, refused])
    assert lines[2] == ("| m | 7 / 3 | 2 | 2x DEPTHWISE_CONV_2D (refused by ACL), 1x SHAPE (no rule) | 50.0 % | 12.00 ms "
                        "| 5.00 ms | 2.50 (2.00-3.00) | refused | - |")
    assert lines[3] == "| r | bridge refused | - | - | - | refused | crashed | - | failed | - |"
    text = mf.problems([row, refused])
    assert "m: fallback #9 SHAPE (no rule): no lowering rule" in text
    assert "m: Arm NN CpuAcc refused: Operator not supported: SHAPE" in text
    assert "r: TFLite interpreter failed: crashed in a child process (killed by signal 11): " in text


@needs_host  # two Python starts: seconds under emulation
@needs_interpreter
def test_the_interpreter_tried_in_a_child(tmp_path):
    assert mf.tflite_in_a_child(model_file("tflite_micro_speech"), 1) is None
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"not a flatbuffer" * 8)
    said = mf.tflite_in_a_child(bad, 1)
    assert said is not None and said.startswith("failed in a child process (exit status 1): ")


@needs_host
@needs_interpreter
def test_a_model_row_without_acl():
    row = mf.measure_one("tflite_micro_speech", 1, rounds=2, profile_rounds=2)
    c = row["contenders"]
    assert "refused" in c["bridge"] and "refused" in c["armnn"]
    assert len(c["tflite"]["rounds_ms"]) == 2
    assert "operators" not in row and row["bridge_over"] == {}
    assert mf.markdown_rows([row])[2].startswith("| tflite_micro_speech | bridge refused | - | - | - | refused | ")
