"""The models section of the benchmark (benchmarks/model_speed.py) without ACL: the paired-ratio
statistics, the rotating rounds, the table, and refusals carried on while the other
contenders run (here the bridge and Arm NN refuse: no native layer, no pyarmnn; TFLite's
interpreter runs). The measurements themselves need ACL: ``./docker/emulate.sh run --
python3 benchmarks/bench.py --sections models --rounds 3``."""

import json
import os
import statistics
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import bench  # noqa: E402
import model_speed as ms  # noqa: E402

from acl_bridge import native_available  # noqa: E402
from acl_bridge.models.apps import fetch  # noqa: E402
from acl_bridge.models.format.tflite_reader import ModelFormatError  # noqa: E402

needs_host = pytest.mark.skipif(bool(native_available()[0]),
                                reason="with ACL the bridge configures the model (seconds under emulation): "
                                       "the emulated bench.py run measures that")


def model_file(name):
    try:
        return fetch.model_path(name)
    except fetch.FetchError as e:
        pytest.skip(str(e))


def test_paired_ratios_are_taken_round_by_round():
    samples = {"bridge": [10.0, 30.0, 20.0], "armnn": [20.0, 30.0, 10.0]}
    assert ms.paired_ratios(samples, "bridge", "armnn") == [0.5, 1.0, 2.0]
    # the ratio of medians would be 20/20 = 1.0 too, but not in general: drift cancels per pair
    drift = {"bridge": [1.0, 10.0, 100.0], "armnn": [2.0, 20.0, 200.0]}
    assert ms.summarize(ms.paired_ratios(drift, "bridge", "armnn")).median == 0.5


def test_paired_ratios_need_the_same_rounds():
    with pytest.raises(ValueError, match="bridge has 2 rounds and armnn 1"):
        ms.paired_ratios({"bridge": [1.0, 2.0], "armnn": [1.0]}, "bridge", "armnn")


def test_summary_median_spread_and_quartiles():
    r = ms.summarize([1.3, 0.9, 1.0, 1.1, 0.7])
    assert (r.median, r.minimum, r.maximum, r.rounds) == (1.0, 0.7, 1.3, 5)
    assert (r.q1, r.q3) == pytest.approx((0.9, 1.1))
    assert str(r) == "1.00 (0.70-1.30)"
    assert r.as_dict() == dict(median=1.0, min=0.7, max=1.3, q1=r.q1, q3=r.q3, rounds=5)
    one = ms.summarize([0.8])
    assert (one.median, one.minimum, one.maximum, one.q1, one.q3) == (0.8, 0.8, 0.8, 0.8, 0.8)
    with pytest.raises(ValueError, match="no rounds"):
        ms.summarize([])


def test_rounds_rotate_and_time_every_contender_each_round():
    calls = []
    ticks = iter(range(0, 10_000, 5))  # a clock that advances 5 ns per reading
    runs = {name: (lambda name=name: calls.append(name)) for name in ("bridge", "armnn", "tflite")}
    samples, orders = ms.rotating_rounds(runs, 4, clock=lambda: next(ticks))
    assert orders == [["bridge", "armnn", "tflite"], ["armnn", "tflite", "bridge"],
                      ["tflite", "bridge", "armnn"], ["bridge", "armnn", "tflite"]]
    assert calls == [n for order in orders for n in order]
    assert samples == {n: [5.0] * 4 for n in runs}


def test_seeded_inputs_in_the_models_dtype_and_the_float_twin_gets_the_same_values():
    inp = ms.ModelInput((1, 118, 1, 108), "int8", scale=0.1, zero_point=-3)
    x = ms.seeded_input(inp)
    assert x.dtype == np.int8 and x.shape == inp.shape
    assert np.array_equal(x, ms.seeded_input(inp))  # seeded
    assert x.min() < -100 and x.max() > 100  # spread over the type's range
    xf = ms.dequantized(x, inp)
    assert xf.dtype == np.float32
    np.testing.assert_allclose(xf, (x.astype(np.float64) + 3) * 0.1, rtol=1e-6)
    f = ms.seeded_input(ms.ModelInput((2, 3), "float32"))
    assert f.dtype == np.float32 and -1 <= f.min() and f.max() <= 1
    with pytest.raises(ValueError, match="no quantization"):
        ms.dequantized(f, ms.ModelInput((2, 3), "float32"))


def test_the_twin_pair_is_int8_and_float32_over_the_same_input_shape():
    a = ms.model_input(model_file(ms.INT8_PAIR[0]))
    b = ms.model_input(model_file(ms.INT8_PAIR[1]))
    assert (a.dtype, b.dtype) == ("int8", "float32") and a.shape == b.shape
    assert a.scale is not None and a.scale > 0


def test_refusals_name_the_library_errors_and_mark_other_failures():
    e = ModelFormatError("the file is 3 bytes, expected a TFLite flatbuffer")
    r = ms.refusal("bridge", e)
    assert r.expected and str(r) == "refused: the file is 3 bytes, expected a TFLite flatbuffer"
    assert ms.refusal("tflite", ValueError("Model provided has model identifier 'abc'")).expected
    other = ms.refusal("bridge", KeyError("input"))
    assert not other.expected and str(other).startswith("failed: ") and other.error == "KeyError"


def _started(name, configure_s, first_s):
    return ms.Started(name, run=tuple, configure_s=configure_s, first_result_s=first_s, threads={})


def test_table_rows_times_ratios_and_refusals():
    r = ms.ModelResult("face_detection_front", 1, ms.ModelInput((1, 128, 128, 3), "float32"))
    r.contenders = {"bridge": _started("bridge", 11.1, 11.4), "armnn": _started("armnn", 0.5, 0.6),
                    "tflite": ms.Refused("tflite", "x" * 300, "ValueError")}
    r.samples_ns = {"bridge": [2e6, 4e6, 3e6], "armnn": [4e6, 4e6, 2e6]}
    r.ratios = {"armnn": ms.summarize(ms.paired_ratios(r.samples_ns, "bridge", "armnn"))}
    table = ms.render_table([r], width=120).splitlines()
    assert table[0] == "-- threads 1" and table[1] == ms.TABLE_HEAD
    assert table[2].split() == ["face_detection_front", "bridge", "(ACL", "NEON)", "11.100", "s", "11.400", "s",
                                "3.00", "ms"]
    assert table[3].split()[-4:] == ["4.00", "ms", "1.00", "(0.50-1.50)"]  # rounds' ratios 0.5, 1.0, 1.5
    assert table[4] == " " * 33 + f"{'TFLite interpreter':<20} " + ("refused: " + "x" * 300)[:63] + "..."
    assert len(table[4]) == 120  # cut at the width; the JSON and "refusals, in full" keep all of it
    d = r.as_dict()
    assert d["contenders"]["tflite"] == {"refused": "x" * 300, "error": "ValueError"}
    assert d["contenders"]["bridge"]["per_inference_ms"] == 3.0
    assert d["bridge_over"]["armnn"]["median"] == 1.0
    json.dumps(d)  # the JSON holds it as is


@needs_host  # the interpreter is the contender that runs here; in the trixie image it is refused too
def test_a_refused_contender_leaves_the_others_running(tmp_path):
    """Real refusals: a damaged file for the bridge (the reader's own error), pyarmnn or the
    native layer missing; the interpreter runs its rounds on the real model."""
    pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")
    path = model_file("face_detection_front")
    damaged = tmp_path / "damaged.tflite"
    damaged.write_bytes(path.read_bytes()[:64])
    inp = ms.model_input(path)
    x = ms.seeded_input(inp)
    r = ms.measure("face_detection_front", 1, inp, {
        "bridge": lambda: ms.start_bridge(damaged, x, 1),
        "armnn": lambda: ms.start_armnn(damaged, x, 1),  # pyarmnn missing, or its parser refuses the file
        "tflite": lambda: ms.start_tflite(path, x, 1)}, rounds=3)
    assert isinstance(r.contenders["bridge"], ms.Refused) and r.contenders["bridge"].expected
    assert isinstance(r.contenders["armnn"], ms.Refused) and r.contenders["armnn"].expected
    t = r.contenders["tflite"]
    assert isinstance(t, ms.Started) and 0 < t.configure_s <= t.first_result_s
    assert t.threads["num_threads"] == 1
    assert len(r.samples_ns["tflite"]) == 3 and min(r.samples_ns["tflite"]) > 0
    assert r.ratios == {}  # no bridge: no ratio
    lines = ms.render_rows(r)
    assert lines[0].split()[:5] == ["face_detection_front", "bridge", "(ACL", "NEON)", "refused:"]
    assert "TFLite interpreter" in lines[2] and "ms" in lines[2]


@needs_host
def test_the_section_end_to_end_without_acl(tmp_path, capsys):
    pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")
    model_file("face_detection_front")
    model_file(ms.INT8_PAIR[0])
    out = tmp_path / "models.json"
    assert bench.main(["--sections", "models", "--models", f"face_detection_front,no_such_model,{ms.INT8_PAIR[0]}",
                       "--rounds", "2", "--threads", "1", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "-- threads 1" in printed and "refusals, in full:" in printed
    data = json.loads(out.read_text())["models"]
    front, missing, kws = data["models"]
    assert front["contenders"]["bridge"]["error"] == "AclUnavailableError"
    assert len(front["contenders"]["tflite"]["rounds_ms"]) == 2
    tflite = front["contenders"]["tflite"]
    assert tflite["per_inference_ms"] == pytest.approx(statistics.median(tflite["rounds_ms"]))
    assert all("no_such_model" in c["refused"] for c in missing["contenders"].values())
    assert kws["contenders"]["tflite"]["threads"]["num_threads"] == 1
    pair = data["int8_vs_float32"][0]
    for runtime in ("bridge", "armnn"):  # no ACL, no pyarmnn: refused, no ratio
        assert all("refused" in pair[runtime][m] for m in ms.INT8_PAIR)
        assert "int8_over_float32" not in pair[runtime]
    assert pair["tflite"]["int8_over_float32"]["rounds"] == 2  # the interpreter's pair still runs
    assert f"threads 1, {ms.TITLES['bridge']}: {ms.INT8_PAIR[0]} refused: " in printed


def test_thread_report_names_models_where_acl_was_not_at_the_setting():
    def result(model, acl):
        r = ms.ModelResult(model, 1, None)
        r.contenders = {"bridge": ms.Started("bridge", tuple, 1.0, 1.1, {"acl_scheduler": acl, "asked": 1,
                                                                          "as_asked": acl == 1})}
        return r

    text = ms.render_threads([result("a", 1), result("b", 2), result("c", 2)])
    assert text == "threads 1, bridge (ACL NEON): acl_scheduler 1, asked 1; NOT at 1 thread(s) on b, c"
    assert ms.render_threads([result("a", 1)]) == "threads 1, bridge (ACL NEON): acl_scheduler 1, asked 1"
