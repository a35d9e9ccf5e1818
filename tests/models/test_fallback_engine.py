"""Fallback segments on TFLite's interpreter (acl_bridge.models.fallback.tflite_segments), host:
partitioned plans on the numpy runner whose fallback segments run on the segment cut from the
file, against TFLite's interpreter on the whole model (int8 bit for bit, float32 within the
stated tolerance); the boundary copies into padded buffers leave padding and guard bytes as
they were; without ai-edge-litert, or where it refuses the cut model, the numpy kernels run and
the summary says why."""

import gc
import sys
import tracemalloc
import weakref

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")
pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")

from acl_bridge.mapping import PaddingSize  # noqa: E402
from acl_bridge.models.fallback.tflite_segments import (DEFAULT, HEAVY, CutSegment, SegmentBinder,  # noqa: E402
                                                       SegmentRefused, _load, cut_segment,
                                                       read_after)
from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.runtime.numpy_backend import NumpyRunner, NumpySchedule  # noqa: E402
from acl_bridge.models.runtime.tflite_runner import TfliteRunner  # noqa: E402
from ndarray.errors import UnsupportedOptionError  # noqa: E402

from .conftest import host_only_under_emulation, interpreter, model_file, tolerance  # noqa: E402
from .graph_tflite import chain, graph_model  # noqa: E402
from .test_custom_operators import POOL, pool_params  # noqa: E402
from .test_partition import CHAINS, SHAPE, _fan_out, _padded, _two_inputs  # noqa: E402

pytestmark = host_only_under_emulation


def _whole(data: bytes, inputs, reference: bool = False):
    """TFLite's interpreter on the whole model: outputs by tensor name."""
    if reference:
        from acl_bridge.models.oracles.tflite_oracle import interpreter as make

        it, _ = make(data, 1, reference=True)
    else:
        it = interpreter(data)
    for d in it.get_input_details():
        it.set_tensor(d["index"], inputs[d["name"]])
    it.invoke()
    return {d["name"]: it.get_tensor(d["index"]).copy() for d in it.get_output_details()}


def _run(runner, inputs):
    for i, a in runner.input_arrays.items():
        a.numpy()[...] = inputs[runner.plan.model.tensors[i].name]
    runner.run()
    return {k: v.copy() for k, v in runner.outputs().items()}


def _engines(runner):
    return [r.engine for r in runner.schedule.fallback_engines]


@pytest.mark.parametrize("case", CHAINS, ids=[c[0] for c in CHAINS])
def test_chains_run_their_fallback_segments_on_the_interpreter(case):
    """An operator without a rule first, last, in the middle, alternating, alone: every
    fallback segment on the interpreter, the result TFLite's on the whole model, the inputs and
    the outputs read after it the interpreter's own memory (nothing copied)."""
    _, opcodes, sides = case
    data = chain(opcodes, SHAPE)
    runner = TfliteRunner(data, backend="numpy", fallback_engine="tflite")
    segments = sum(1 for side, _ in sides if side == "fallback")
    assert _engines(runner) == ["tflite"] * segments
    assert runner.schedule.copied_bytes_per_run == 0
    assert f"fallback segments: {segments} on TFLite's interpreter, 0 on numpy kernels" in runner.summary()
    x = {"x": np.random.default_rng(1).standard_normal(SHAPE).astype(np.float32)}
    ref = _whole(data, x)["y"]
    for _ in range(2):  # bound once, run twice
        np.testing.assert_allclose(_run(runner, x)["y"], ref, atol=tolerance(ref))


@pytest.mark.parametrize("make", [_fan_out, _two_inputs], ids=["fan-out", "graph-outputs-by-the-fallback"])
def test_fan_out_and_graph_outputs_made_by_the_fallback(make):
    data = make()
    runner = TfliteRunner(data, backend="numpy", fallback_engine="tflite")
    assert set(_engines(runner)) == {"tflite"}
    names = [t.name for t in (runner.plan.model.tensors[i] for i in runner.plan.model.inputs)]
    rng = np.random.default_rng(3)
    x = {n: rng.standard_normal(SHAPE).astype(np.float32) for n in names}
    ref, got = _whole(data, x), _run(runner, x)
    assert set(got) == set(ref)
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], atol=tolerance(ref[name]))


@pytest.mark.parametrize("parity", [0, 1], ids=["even-operators", "odd-operators"])
def test_int8_model_with_every_other_operator_on_the_interpreter_bit_for_bit(parity):
    """keyword_spotting (int8) with every other operator refused by "ACL" (so convolutions,
    depthwise convolutions, the pooling, FULLY_CONNECTED across a RESHAPE made a view, SOFTMAX,
    QUANTIZE and DEQUANTIZE run on the fallback): the interpreter's segments give TFLite's
    whole-model answer bit for bit, default and reference kernels alike, as the numpy kernels do."""
    path = model_file("keyword_spotting")
    with open(path, "rb") as fh:
        data = fh.read()
    spec = fold_constant_dequantize(read_model(data))
    refused = {op.index: "refused for the test" for op in spec.operators if op.index % 2 == parity}
    plan = plan_model(spec, fallback=True, acl_refused=refused)
    t = spec.tensors[spec.inputs[0]]
    x = {t.name: np.random.default_rng(parity).standard_normal(t.shape).astype(np.float32)}
    got = {}
    for engine in ("tflite", "numpy"):
        runner = NumpyRunner(plan)
        runner.schedule = NumpySchedule(plan, runner.arrays, SegmentBinder(engine, data))
        assert set(_engines(runner)) == {engine}
        got[engine] = _run(runner, x)
    for reference in (False, True):
        for name, want in _whole(data, x, reference).items():
            for engine in got:
                np.testing.assert_array_equal(got[engine][name], want, err_msg=f"{engine} reference={reference}")


def test_the_boundary_copies_leave_padding_and_guard_bytes_untouched():
    """A segment bound to padded buffers (as ACL's negotiation gives them): the input read from
    the elements, the output written into them, every padding cell and guard byte as it was."""
    data = chain(["COS", "CEIL"], SHAPE)
    model = read_model(data)
    x, x_raw = _padded(SHAPE, PaddingSize(top=1, right=2, bottom=1, left=3), 0x5A)
    y, y_raw = _padded(SHAPE, PaddingSize(top=2, right=1, bottom=0, left=1), 0xA5)
    value = np.random.default_rng(5).standard_normal(SHAPE).astype(np.float32)
    x.numpy()[...] = value
    before_x, before_y = x_raw.copy(), y_raw.copy()
    first, last = model.operators
    views = {first.inputs[0]: x.numpy(), last.outputs[0]: y.numpy(),
             first.outputs[0]: np.full(SHAPE, np.nan, np.float32)}
    segment = SegmentBinder("tflite", data).bind(model, [first.index, last.index], views)
    assert segment.report.engine == "tflite"
    assert segment.copied_bytes_per_run == 2 * value.nbytes  # the intermediate stays in the interpreter
    segment()
    np.testing.assert_allclose(y.numpy(), np.ceil(np.cos(value)), atol=1e-6)
    assert np.isnan(views[first.outputs[0]]).all()
    pad_y = y.padding_mask()
    assert pad_y.any()
    assert (y.buffer().view(np.uint8).reshape(-1, 4)[pad_y] == before_y[:y.allocation.nbytes].reshape(-1, 4)[pad_y]).all()
    assert (y_raw[y.allocation.nbytes:] == 0xA5).all()  # the guard
    np.testing.assert_array_equal(x_raw, before_x)  # the input: not a byte changed


def test_auto_takes_the_interpreter_for_heavy_operators_only():
    """auto: a segment holding an operator of HEAVY (its opcode with its input's dtype) on the
    interpreter (the whole segment), COS / CEIL alone on numpy."""
    assert "int8" in HEAVY["DEPTHWISE_CONV_2D"] and "COS" not in HEAVY and "float32" not in HEAVY["CONV_2D"]
    runner = TfliteRunner(chain(["COS", "RELU", "CEIL"], SHAPE), backend="numpy")
    assert runner.fallback_engine == "auto" and _engines(runner) == ["numpy", "numpy"]
    assert [r.reason for r in runner.schedule.fallback_engines] == ["auto: no operator of the heavy set"] * 2
    data = chain(["RELU", "HARD_SWISH", "COS"], SHAPE)
    plan = plan_model(read_model(data), fallback=True, acl_refused={1: "refused for the test"})
    runner = NumpyRunner(plan)
    runner.schedule = NumpySchedule(plan, runner.arrays, SegmentBinder("auto", data))
    assert _engines(runner) == ["tflite"]  # HARD_SWISH and COS: one segment
    assert runner.schedule.fallback_engines[0].reason == "auto: holds HARD_SWISH"
    x = {"x": np.random.default_rng(9).standard_normal(SHAPE).astype(np.float32)}
    ref = _whole(data, x)["y"]
    np.testing.assert_allclose(_run(runner, x)["y"], ref, atol=tolerance(ref))


def test_without_ai_edge_litert_the_numpy_kernels_run_and_the_summary_says_why(monkeypatch):
    for name in [m for m in sys.modules if m == "ai_edge_litert" or m.startswith("ai_edge_litert.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)  # import ai_edge_litert: ImportError
    data = chain(["COS", "RELU"], SHAPE)
    runner = TfliteRunner(data, backend="numpy", fallback_engine="tflite")
    assert _engines(runner) == ["numpy"]
    assert "ai-edge-litert is not installed" in runner.summary()
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
    runner.input_array.numpy()[...] = x
    runner.run()
    np.testing.assert_allclose(runner.outputs()["y"], np.maximum(np.cos(x), 0), atol=1e-6)


def test_a_segment_with_a_custom_operator_runs_on_numpy_saying_why():
    """MediaPipe's MaxPoolingWithArgmax2D: TFLite's interpreter runs it through XNNPACK, which
    writes the indices as int32 bits into the float32 index tensor (the fallback's kernel writes
    the operator's float indices): that segment runs on numpy, the summary says why."""
    t = [("x", (1, 4, 4, 2), "float32", None, None), ("y", (1, 2, 2, 2), "float32", None, None),
         ("i", (1, 2, 2, 2), "float32", None, None)]
    data = graph_model(t, [(POOL, ["x"], ["y", "i"], ("custom", pool_params(2, 2, 2, 2, 2)))], ["x"], ["y", "i"])
    runner = TfliteRunner(data, backend="numpy", fallback_engine="tflite")
    assert _engines(runner) == ["numpy"]
    assert "#0 CUSTOM:MaxPoolingWithArgmax2D is a custom operator" in runner.summary()
    assert runner.schedule.copied_bytes_per_run == 0


def test_a_model_the_interpreter_refuses_is_a_refusal_not_an_error():
    with pytest.raises(SegmentRefused, match="TFLite's interpreter refused the segment"):
        _load(CutSegment(b"\x00" * 64, (), ()))


def test_a_plan_given_without_its_file_runs_on_numpy():
    plan = plan_model(read_model(chain(["COS"], SHAPE)), fallback=True)
    runner = TfliteRunner(plan, backend="numpy", fallback_engine="tflite")
    assert _engines(runner) == ["numpy"] and "no model file" in runner.summary()


def test_an_unknown_engine_is_refused_naming_the_choices():
    with pytest.raises(UnsupportedOptionError, match=r"fallback_engine is 'fast', expected one of "
                                                     r"\['auto', 'numpy', 'tflite', 'tflite-default'\]"):
        TfliteRunner(chain(["COS"], SHAPE), backend="numpy", fallback_engine="fast")


def test_the_cut_model_holds_the_segment_alone():
    """The cut: the segment's operators, their tensors, the inputs read from outside and the
    outputs read after it (the intermediate between two operators is neither)."""
    from ai_edge_litert import schema_py_generated as schema

    data = chain(["RELU", "COS", "CEIL", "RELU"], SHAPE)
    model = read_model(data)
    cut = cut_segment(schema.ModelT.InitFromPackedBuf(bytearray(data), 0), model, model.operators[1:3], {3})
    assert (cut.inputs, cut.outputs) == ((1,), (3,))
    it = interpreter(cut.data)
    assert [d["name"] for d in it.get_input_details()] == [model.tensors[1].name]
    assert [d["name"] for d in it.get_output_details()] == [model.tensors[3].name]
    assert len(it.get_tensor_details()) == 3


@pytest.mark.parametrize("engine", ["tflite", "numpy"])
def test_run_tflite_fallback_engine_says_which_engine_ran(engine, tmp_path, capsys):
    """``run-tflite --fallback-engine``: stderr counts the segments per engine, ``--json``
    lists each segment's engine and why; the outputs TFLite's."""
    import json

    from acl_bridge.cli import main

    model = tmp_path / "chain.tflite"
    model.write_bytes(chain(["COS", "RELU", "CEIL"], SHAPE))
    x = np.random.default_rng(6).standard_normal(SHAPE).astype(np.float32)
    np.save(tmp_path / "in.npy", x)
    code = main(["run-tflite", str(model), str(tmp_path / "in.npy"), "--out", str(tmp_path / "o.npz"),
                 "--backend", "numpy", "--json", "--fallback-engine", engine])
    out, err = capsys.readouterr()
    assert code == 0, err
    tflite = 2 if engine == "tflite" else 0
    assert f"fallback segments: {tflite} on TFLite's interpreter, {2 - tflite} on numpy kernels" in err
    report = json.loads(out)["fallback"]["engines"]
    assert report == [{"operators": [i], "engine": engine, "reason": f"fallback_engine={engine!r}"} for i in (0, 2)]
    ref = _whole(model.read_bytes(), {"x": x})["y"]
    np.testing.assert_allclose(np.load(tmp_path / "o.npz")["y"], ref, atol=tolerance(ref))


def test_a_failure_cutting_the_segment_leaves_it_on_numpy(monkeypatch):
    """Whatever goes wrong in the schema classes or the interpreter, the model loads: that
    segment on numpy, the failure named."""
    from acl_bridge.models.fallback import tflite_segments

    def broken(*args, **kwargs):
        raise ValueError("an unforeseen file")

    monkeypatch.setattr(tflite_segments, "cut_segment", broken)
    runner = TfliteRunner(chain(["COS"], SHAPE), backend="numpy", fallback_engine="tflite")
    assert _engines(runner) == ["numpy"]
    assert "cutting or loading the segment failed (ValueError: an unforeseen file)" in runner.summary()


def _padding_and_guard_kept(array, raw, before) -> None:
    pad = array.padding_mask()
    assert pad.any()
    cells = array.buffer().view(np.uint8).reshape(-1, array.dtype.itemsize)
    assert (cells[pad] == before[:array.allocation.nbytes].reshape(-1, array.dtype.itemsize)[pad]).all()
    np.testing.assert_array_equal(raw[array.allocation.nbytes:], before[array.allocation.nbytes:])  # the guard


BIG = (1, 32, 32, 8)  # 32 KiB a tensor: any copy of it made per run shows in tracemalloc's peak


@pytest.mark.parametrize("padded", [False, True], ids=["dense-buffers", "padded-buffers"])
def test_views_bound_once_no_allocation_per_run_padding_and_guards_kept(padded):
    """The interpreter's input and output bound once as views (no set_tensor / tensor() per
    call): runs after a garbage collection (the segment holds the interpreter and the model
    bytes its constants live in) give TFLite's whole-model answer, numpy allocates nothing per
    run (tracemalloc's peak stays under one tensor's bytes), padding cells and guard bytes as
    they were."""
    data = chain(["COS", "CEIL"], BIG)
    model = read_model(data)
    first, last = model.operators
    if padded:
        x, x_raw = _padded(BIG, PaddingSize(top=1, right=2, bottom=1, left=3), 0x5A)
        y, y_raw = _padded(BIG, PaddingSize(top=2, right=1, bottom=0, left=1), 0xA5)
        xv, yv = x.numpy(), y.numpy()
    else:
        xv, yv = np.zeros(BIG, np.float32), np.zeros(BIG, np.float32)
    segment = SegmentBinder("tflite", data).bind(model, [first.index, last.index],
                                                 {first.inputs[0]: xv, last.outputs[0]: yv})
    assert segment.report.engine == "tflite" and segment.views_bound
    gc.collect()
    rng = np.random.default_rng(11)
    for _ in range(2):
        value = rng.standard_normal(BIG).astype(np.float32)
        xv[...] = value
        if padded:
            before_x, before_y = x_raw.copy(), y_raw.copy()
        segment()
        ref = _whole(data, {"x": value})["y"]
        np.testing.assert_allclose(yv, ref, atol=tolerance(ref))
        if padded:
            _padding_and_guard_kept(y, y_raw, before_y)
            np.testing.assert_array_equal(x_raw, before_x)  # the input: not a byte changed
    tracemalloc.start()
    try:
        segment()
        tracemalloc.reset_peak()
        current = tracemalloc.get_traced_memory()[0]
        for _ in range(5):
            segment()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak - current < xv.nbytes // 8


def _floor_mod_cos():
    """x, z -> s = FLOOR_MOD(x, z) -> y = COS(s); s and y both graph outputs."""
    t = [(n, SHAPE, "float32", None, None) for n in ("x", "z", "s", "y")]
    ops = [("FLOOR_MOD", ["x", "z"], ["s"], None), ("COS", ["s"], ["y"], None)]
    return graph_model(t, ops, ["x", "z"], ["s", "y"])


def test_two_inputs_and_two_outputs_on_padded_buffers():
    """A segment with two inputs and two outputs (the run's loop over its tensors) bound to
    padded buffers: TFLite's whole-model answer in each output's elements, padding cells and
    guard bytes as they were."""
    data = _floor_mod_cos()
    model = read_model(data)
    pads = [PaddingSize(top=1, right=2, bottom=1, left=3), PaddingSize(top=0, right=1, bottom=2, left=0),
            PaddingSize(top=2, right=1, bottom=0, left=1), PaddingSize(top=1, right=0, bottom=1, left=2)]
    arrays = [_padded(SHAPE, p, 0x5A + k) for k, p in enumerate(pads)]
    views = {k: a.numpy() for k, (a, _) in enumerate(arrays)}  # tensors 0..3: x, z, s, y
    rng = np.random.default_rng(12)
    x = rng.standard_normal(SHAPE).astype(np.float32)
    z = (rng.uniform(0.5, 2, SHAPE) * rng.choice([-1, 1], SHAPE)).astype(np.float32)
    views[0][...], views[1][...] = x, z
    segment = SegmentBinder("tflite", data).bind(model, [0, 1], views)
    assert segment.views_bound and segment.copied_bytes_per_run == 4 * x.nbytes
    before = [raw.copy() for _, raw in arrays]
    segment()
    ref = _whole(data, {"x": x, "z": z})
    for k, name in ((2, "s"), (3, "y")):
        np.testing.assert_allclose(views[k], ref[name], atol=tolerance(ref[name]))
        _padding_and_guard_kept(arrays[k][0], arrays[k][1], before[k])
    for k in (0, 1):
        np.testing.assert_array_equal(arrays[k][1], before[k])


def test_a_0d_tensor_is_copied_through_the_interpreter_api():
    """A 0-d input (numpy gives the interpreter's 0-d tensor as a scalar, not a view): the
    segment is not bound, it copies through set_tensor / tensor() per call, TFLite's answer."""
    t = [("x", SHAPE, "float32", None, None), ("k", (), "float32", None, None), ("y", SHAPE, "float32", None, None)]
    data = graph_model(t, [("MUL", ["x", "k"], ["y"], None)], ["x", "k"], ["y"])
    model = read_model(data)
    x, k, y = np.random.default_rng(13).standard_normal(SHAPE).astype(np.float32), np.array(-2.5, np.float32), \
        np.zeros(SHAPE, np.float32)
    segment = SegmentBinder("tflite", data).bind(model, [0], {0: x, 1: k, 2: y})
    assert segment.report.engine == "tflite" and not segment.views_bound
    for _ in range(2):
        segment()
        np.testing.assert_allclose(y, _whole(data, {"x": x, "k": k})["y"], atol=1e-6)
        k[...] = 3.0


def test_memory_that_moves_between_invokes_is_not_bound(monkeypatch):
    """Where a trial invoke finds a tensor's memory moved (an operator with a dynamic output:
    TFLite plans its arena anew during invoke), views are not held: copies through the API."""
    from acl_bridge.models.fallback import tflite_segments

    moves = iter(range(1 << 20))
    monkeypatch.setattr(tflite_segments, "_address", lambda a: next(moves))
    data = chain(["COS"], SHAPE)
    model = read_model(data)
    x, y = np.random.default_rng(14).standard_normal(SHAPE).astype(np.float32), np.zeros(SHAPE, np.float32)
    segment = SegmentBinder("tflite", data).bind(model, [0], {0: x, 1: y})
    assert not segment.views_bound
    segment()
    np.testing.assert_allclose(y, np.cos(x), atol=1e-6)


def test_float32_segments_run_on_xnnpack_within_the_tolerance_of_the_whole_model():
    """keyword_spotting_pacman_v3_float32 with every DEPTHWISE_CONV_2D on the fallback (20
    segments): each cut on TFLite's default kernels (XNNPACK), the model's outputs within the
    stated float32 tolerance of TFLite's whole model."""
    with open(model_file("keyword_spotting_pacman_v3_float32"), "rb") as fh:
        data = fh.read()
    spec = fold_constant_dequantize(read_model(data))
    plan = plan_model(spec, fallback=True, acl_refused={op.index: "refused for the test" for op in spec.operators
                                                        if op.opcode == "DEPTHWISE_CONV_2D"})
    from ai_edge_litert import schema_py_generated as schema

    source = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
    for side, ks in plan.segments():
        if side == "fallback":
            op = plan.model.operators[plan.fallbacks[ks[0]].op_index]
            assert cut_segment(source, plan.model, [op], read_after(plan.model, [op.index])).resolver == DEFAULT
    runner = NumpyRunner(plan)
    runner.schedule = NumpySchedule(plan, runner.arrays, SegmentBinder("tflite", data))
    assert _engines(runner) == ["tflite"] * 20
    t = spec.tensors[spec.inputs[0]]
    x = {t.name: np.random.default_rng(15).standard_normal(t.shape).astype(np.float32)}
    got, ref = _run(runner, x), _whole(data, x)
    for name in ref:
        np.testing.assert_allclose(got[name], ref[name], atol=tolerance(ref[name]))


def test_tflite_default_runs_int8_segments_on_xnnpack_by_request_only():
    """fallback_engine="tflite-default": int8 segments on XNNPACK too (faster, not bit for bit
    with the reference kernels); "tflite" keeps them exact. keyword_spotting_with_transfer_learning
    (int8 output) with every DEPTHWISE_CONV_2D on the fallback: "tflite" bit for bit with TFLite's
    whole model on its reference kernels; "tflite-default" within 16 output steps of it and of
    the whole model on TFLite's default kernels (measured over 6 noise inputs: 1-10 and 4-16
    steps; TFLite's own default kernels are 4-15 steps from its reference on them,
    docs/performance.md)."""
    with open(model_file("keyword_spotting_with_transfer_learning"), "rb") as fh:
        data = fh.read()
    spec = fold_constant_dequantize(read_model(data))
    plan = plan_model(spec, fallback=True, acl_refused={op.index: "refused for the test" for op in spec.operators
                                                        if op.opcode == "DEPTHWISE_CONV_2D"})
    t = spec.tensors[spec.inputs[0]]
    x = {t.name: np.random.default_rng(1).integers(-128, 128, t.shape).astype(np.int8)}  # an int8 input
    reference, default = _whole(data, x, reference=True), _whole(data, x)
    for engine in ("tflite", "tflite-default"):
        runner = NumpyRunner(plan)
        runner.schedule = NumpySchedule(plan, runner.arrays, SegmentBinder(engine, data))
        assert set(_engines(runner)) == {"tflite"}
        assert {r.reason for r in runner.schedule.fallback_engines} == {f"fallback_engine={engine!r}"}
        got = _run(runner, x)
        for name in reference:
            assert got[name].dtype == np.int8
            if engine == "tflite":
                np.testing.assert_array_equal(got[name], reference[name])
            for want in (reference[name], default[name]):
                assert np.abs(got[name].astype(np.int32) - want).max() <= 16, engine


@pytest.mark.parametrize("make", [_fan_out, _two_inputs, lambda: chain(["COS", "RELU", "CEIL"], SHAPE)],
                         ids=["fan-out", "two-inputs", "first-and-last"])
def test_boundary_buffers_are_the_interpreters_memory_nothing_copied(make):
    """The runner's buffer for every boundary tensor of a segment on the interpreter is that
    interpreter's tensor (graph inputs and outputs included): 0 bytes copied per run, TFLite's
    whole-model answer run after run with garbage collections between, and the outputs handed
    back still right after the runner itself is gone (the buffers hold the interpreter)."""
    from acl_bridge.models.runtime.boundary_memory import interpreter_owned

    data = make()
    runner = TfliteRunner(data, backend="numpy", fallback_engine="tflite")
    assert set(_engines(runner)) == {"tflite"}
    assert runner.schedule.copied_bytes_per_run == 0
    boundary = {runner.plan.root(t) for f in runner.plan.fallbacks for t in f.inputs + f.outputs
                if t >= 0 and not runner.plan.model.tensors[t].is_constant}
    assert boundary and all(interpreter_owned(runner.arrays[t]) for t in boundary)
    rng = np.random.default_rng(21)
    names = [runner.plan.model.tensors[i].name for i in runner.plan.model.inputs]
    for _ in range(3):
        x = {n: rng.standard_normal(SHAPE).astype(np.float32) for n in names}
        gc.collect()
        got = _run(runner, x)
        for name, want in _whole(data, x).items():
            np.testing.assert_allclose(got[name], want, atol=tolerance(want), err_msg=name)
    held = runner.outputs()
    outputs = [runner.arrays[i] for i in runner.plan.model.outputs]
    by_outputs = [weakref.ref(a.allocation.base.interpreter) for a in outputs if interpreter_owned(a)]
    interpreters = [weakref.ref(a.allocation.base.interpreter) for a in runner.arrays.values() if interpreter_owned(a)]
    del runner, outputs
    gc.collect()
    want = _whole(data, x)
    for k in held:
        np.testing.assert_allclose(held[k], want[k], atol=tolerance(want[k]), err_msg=k)
    assert all(r() is not None for r in by_outputs)  # an output's interpreter, held by the output
    del held
    gc.collect()
    assert all(r() is None for r in interpreters)  # and let go with it


def test_the_acl_runners_buffers_take_the_interpreters_memory_where_no_padding_is_asked():
    """The ACL runner's allocation (host: its arena and buffers need no ACL): a boundary tensor
    asked for no padding is the interpreter's tensor and leaves the arena; one ACL asked padding
    for keeps the bridge's padded buffer in the arena, its boundary copied and counted, its
    padding cells and slack as they were; TFLite's whole-model answer."""
    from acl_bridge.executor import BRIDGE_SLACK_IN_BYTES
    from acl_bridge.models.runtime.boundary_memory import interpreter_memory, interpreter_owned
    from acl_bridge.models.runtime.buffers import allocate

    data = chain(["COS", "RELU", "CEIL"], SHAPE)
    plan = plan_model(read_model(data), fallback=True)
    binder = SegmentBinder("tflite", data)
    memory = interpreter_memory(plan, binder)
    x, y = plan.model.inputs[0], plan.model.outputs[0]
    t1, t2 = plan.fallbacks[0].outputs[0], plan.fallbacks[1].inputs[0]
    assert set(memory) == {x, t1, t2, y}
    assert all(m.ctypes.data % 64 == 0 for m in memory.values())
    pad = PaddingSize(top=1, right=2, bottom=1, left=3)
    b = allocate(plan, {t1: [(1, "input", pad)]}, set(), True, None, memory)
    assert {t for t, a in b.arrays.items() if interpreter_owned(a)} == {x, t2, y}
    assert {s.tensor for s in b.memory.slots} == {t1}  # t2 left the arena; t1, padded, in it
    assert b.buffer_plans[t1].padding == pad.for_rank(4)
    padded = b.arrays[t1]
    raw = padded.allocation.view(np.uint8)
    raw[...] = 0xA5  # padding cells and the slack after the buffer
    schedule = NumpySchedule(plan, b.arrays, binder)
    assert schedule.copied_bytes_per_run == 4 * int(np.prod(SHAPE))  # t1 out of the first segment
    mask = padded.padding_mask()
    assert mask.any() and raw.nbytes >= BRIDGE_SLACK_IN_BYTES
    for seed in range(2):
        value = np.random.default_rng(seed).standard_normal(SHAPE).astype(np.float32)
        b.arrays[x].numpy()[...] = value
        gc.collect()
        schedule.run()
        want = _whole(data, {"x": value})["y"]
        np.testing.assert_allclose(b.arrays[y].numpy(), want, atol=tolerance(want))
        assert (padded.buffer().view(np.uint8).reshape(-1, 4)[mask] == 0xA5).all()
        assert (raw[padded.descriptor.alloc_size_in_bytes:] == 0xA5).all()  # the slack


def test_tensors_sharing_bytes_in_the_interpreter_stay_the_bridges(monkeypatch):
    """Where an input and an output of a segment share bytes in the interpreter (an in-place
    operator), neither is offered as a buffer: the bridge keeps its own for both."""
    from acl_bridge.models.fallback import tflite_segments

    real = tflite_segments._bound_views

    def overlapping(it, ins, outs):
        views_in, views_out, invoke = real(it, ins, outs)
        return views_in, [views_in[0].reshape(v.shape) for v in views_out], invoke

    data = chain(["COS"], SHAPE)
    model = read_model(data)
    assert set(SegmentBinder("tflite", data).memory(model, [0])) == {0, 1}
    monkeypatch.setattr(tflite_segments, "_bound_views", overlapping)
    assert SegmentBinder("tflite", data).memory(model, [0]) == {}
