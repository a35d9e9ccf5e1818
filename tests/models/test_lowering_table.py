"""The lowering table itself (host, pure Python): it covers SUPPORTED exactly, every key is a
TFLite builtin operator, an opcode without a rule is refused naming the operator, its index
and why, and the type gate runs on every operator before any rule lowers."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from acl_bridge.models.planning import tflite_plan
from acl_bridge.models.lowering import RULES, SUPPORTED, rule, rule_for
from acl_bridge.models.lowering.rules import refuse_operator
from acl_bridge.models.format.tflite_reader import ModelFormatError, UnsupportedModelError, read_model
from ndarray.errors import UnsupportedOptionError

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("flatbuffers", reason="the 'flatbuffers' package is not installed")

from .tiny_tflite import X, one_operator_model  # noqa: E402


def test_the_table_covers_supported_exactly():
    assert SUPPORTED == tuple(sorted(RULES)) and tflite_plan.SUPPORTED is SUPPORTED
    # every opcode a family module registers, and nothing else; the families are every module
    # of the rules package but the table (found on disk, not listed)
    import pkgutil

    from acl_bridge.models.lowering import rules

    on_disk = sorted(m.name for m in pkgutil.iter_modules(rules.__path__) if m.name != "table")
    assert [f.__name__.rsplit(".", 1)[1] for f in rules.FAMILIES] == on_disk and "nn" in on_disk
    registered = {code for family in rules.FAMILIES
                  for code, r in RULES.items() if r.lower.__module__ == family.__name__}
    assert registered == set(SUPPORTED) and len(SUPPORTED) == len(RULES)
    for code, r in RULES.items():
        assert r.opcode == code and rule_for(code) is r
        assert callable(r.lower) and callable(r.tensors)


def test_every_key_is_a_tflite_builtin_operator():
    """... or a custom operator's ``CUSTOM:name`` (TFLite_Detection_PostProcess)."""
    import tflite

    assert [c for c in RULES if not c.startswith("CUSTOM:")
            and not isinstance(getattr(tflite.BuiltinOperator, c, None), int)] == []


def test_a_second_rule_for_an_opcode_is_refused_at_registration():
    before = dict(RULES)
    with pytest.raises(ValueError, match="opcode CONV_2D has two rules: conv_2d and again"):
        @rule("NOT_YET_AN_OPERATOR", "CONV_2D")
        def again(op, model):
            return ()
    assert RULES == before


def _relu(opcode="RELU"):
    m = read_model(one_operator_model("RELU", (1, 2, 2, 1), (1, 2, 2, 1)))
    return dataclasses.replace(m, operators=(dataclasses.replace(m.operators[0], opcode=opcode),))


@pytest.mark.parametrize("opcode", ["CUMSUM", "NOT_AN_OPERATOR"])
def test_an_opcode_without_a_rule_is_refused_naming_it(opcode):
    assert rule_for(opcode).lower is refuse_operator and opcode not in RULES
    with pytest.raises(UnsupportedModelError, match=rf"^operator #0 {opcode}: the operator \(supported operators: "
                                                    rf"{', '.join(SUPPORTED)}\) is not supported: "
                                                    rf"OperatorSpec\(#0 {opcode} \[0\]->\[1\]\)$") as e:
        tflite_plan.plan_model(_relu(opcode))
    assert isinstance(e.value, UnsupportedOptionError)


def test_a_known_refusal_says_why():
    """DEQUANTIZE of a live float32 tensor: the gate names the types it takes."""
    with pytest.raises(UnsupportedModelError, match=r"operator #0 DEQUANTIZE: types float32 -> float32 \(int8 / uint8 "
                                                    r"-> float32; float16 constants are folded at load time\)"):
        tflite_plan.plan_model(_relu("DEQUANTIZE"))


def test_a_real_cumsum_model_is_refused_at_load():
    m = read_model(one_operator_model("CUMSUM", (1, 3, 3, 2), (1, 3, 3, 2), (X, np.array(1, np.int32))))
    with pytest.raises(UnsupportedModelError, match=r"operator #0 CUMSUM: the operator \(supported operators"):
        tflite_plan.plan_model(m)


def test_the_type_gate_runs_on_every_operator_before_any_rule():
    """Operator 0 has a lowering error (paddings that do not fit), operator 1 an int8 output:
    the type of operator 1 is what is reported (the gate runs first, over the whole graph)."""
    pads = np.array([[0, 0], [1, 1], [1, 1], [0, 0], [0, 0]], np.int32)  # rank 5 for a rank-4 input
    m = read_model(one_operator_model("PAD", (1, 2, 2, 1), (1, 4, 4, 1), (X, pads)))
    with pytest.raises(ModelFormatError, match=r"operator #0 PAD: paddings .* do not fit input rank 4"):
        tflite_plan.plan_model(m)
    out = m.tensors[2]
    int8 = dataclasses.replace(out, index=3, name="int8", dtype=np.dtype("int8"))
    relu = dataclasses.replace(m.operators[0], index=1, opcode="RELU", inputs=(2,), outputs=(3,), options=())
    m2 = dataclasses.replace(m, tensors=m.tensors + (int8,), operators=m.operators + (relu,), outputs=(3,))
    with pytest.raises(UnsupportedModelError, match=r"operator #1 RELU: tensor types #2 float32, #3 int8 "
                                                    r"\(float32 only, or int8 only, or uint8 only\)"):
        tflite_plan.plan_model(m2)


def test_integer_tables_are_exempt_from_the_float32_gate_only_where_the_rule_reads_one():
    pads = np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32)
    assert [s.kind for s in tflite_plan.plan_model(read_model(
        one_operator_model("PAD", (1, 2, 2, 1), (1, 4, 4, 1), (X, pads)))).steps] == ["pad"]
    m = read_model(one_operator_model("PRELU", (1, 2, 2, 1), (1, 2, 2, 1), (X, np.ones((1, 1, 1), np.int32))))
    with pytest.raises(UnsupportedModelError, match=r"operator #0 PRELU: tensor #1 'const0' of type int32"):
        tflite_plan.plan_model(m)


@pytest.mark.parametrize("opcode,const,message", [
    ("MUL", np.ones(4, np.float32), r"operator #0 MUL: inputs \[1, 4, 5, 3\] and \[4\] do not broadcast"),
    ("DIV", np.ones((1, 4, 1, 1), np.float32), r"operator #0 DIV: inputs \[1, 4, 5, 3\] and \[1, 4, 1, 1\] broadcast "
                                               r"to \[1, 4, 5, 3\], the output says \[1, 4, 5, 1\]"),
])
def test_binary_inputs_that_do_not_give_the_output_are_malformed(opcode, const, message):
    y = (1, 4, 5, 3) if opcode == "MUL" else (1, 4, 5, 1)
    with pytest.raises(ModelFormatError, match=message):
        tflite_plan.plan_model(read_model(one_operator_model(opcode, (1, 4, 5, 3), y, (X, const))))


def test_two_constant_operands_are_refused_naming_them():
    m = read_model(one_operator_model("SUB", (2,), (2,), (np.ones(2, np.float32), np.ones(2, np.float32))))
    with pytest.raises(UnsupportedModelError, match=r"operator #0 SUB: two constant inputs is not supported"):
        tflite_plan.plan_model(m)
