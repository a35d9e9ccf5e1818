"""ACL's answers kept between processes (acl_bridge.facts_cache), without ACL: the codec of
each category, a session that starts with known answers asks nothing it knows, and every way
a facts file can be wrong is a warning and a start that asks ACL again."""

import json
import warnings

import pytest

from acl_bridge.configure_session import ConfigureSession, decode, decode_all, encode, question_id
from acl_bridge.decisions import KeptValueError
from acl_bridge.facts_cache import FactsCache, FactsCacheWarning
from acl_bridge.layout import PaddingSize

IDENT = {"acl_version": "24.11", "libraries": [["/usr/lib/libarm_compute.so", 1, 2]], "cpu": ["features : fp asimd"]}
ANSWERS = {
    "negotiate": (PaddingSize(1, 2, 3, 4), PaddingSize()),
    "check_layouts": None,
    "auto_padding": PaddingSize(4, 36, 4, 4),
    "probe": ((0, 1, 2), True),
}


@pytest.mark.parametrize("category", sorted(ANSWERS))
def test_every_category_round_trips(category):
    import json

    value = json.loads(json.dumps(encode(category, ANSWERS[category])))
    assert decode(category, value) == ANSWERS[category]


@pytest.mark.parametrize("category, value", [
    ("negotiate", [[1, 2, 3]]), ("auto_padding", "x"), ("check_layouts", 3), ("probe", [[0, 7], True]),
    ("probe", [[0], "yes"]), ("unknown", 1)])
def test_a_malformed_answer_does_not_decode(category, value):
    with pytest.raises(KeptValueError, match=rf"a kept {category} answer does not decode: \w+: |category is 'unknown'"):
        decode(category, value)


def _ask_all(session, calls):
    out = {}
    for category, answer in ANSWERS.items():
        def call(category=category, answer=answer):
            calls.append(category)
            return answer
        out[category] = session.ask(category, lambda category=category: ("kind", b"\x01", category), call)
    return out


def test_a_session_with_known_answers_asks_nothing_it_knows():
    first, calls = ConfigureSession(), []
    assert _ask_all(first, calls) == ANSWERS and len(calls) == 4
    kept = first.answers()
    second, calls2 = ConfigureSession(known=decode_all(kept)), []
    assert _ask_all(second, calls2) == ANSWERS
    assert calls2 == [] and sum(second.remembered.values()) == 4 and sum(second.calls.values()) == 0
    assert second.answers() == kept  # what it remembered is kept again
    third, calls3 = ConfigureSession(reuse=False, known=decode_all(kept)), []
    _ask_all(third, calls3)
    assert len(calls3) == 4  # reuse off: ACL is asked


def test_question_ids_are_content():
    assert question_id("negotiate", ("conv", b"\x00\x01", ((1, 2), "NHWC"))) == \
        question_id("negotiate", ("conv", b"\x00\x01", ((1, 2), "NHWC")))
    assert question_id("negotiate", ("conv", b"\x00\x01", None)) != question_id("probe", ("conv", b"\x00\x01", None))


def _kept():
    s = ConfigureSession()
    _ask_all(s, [])
    return s.answers()


def test_save_then_load(tmp_path):
    f = FactsCache("ab" * 32, IDENT, tmp_path)
    assert f.load().state == "cold"
    saved, why = f.save(_kept())
    assert saved == 4 and why == "saved"
    g = FactsCache("ab" * 32, IDENT, tmp_path)
    r = g.load()
    assert r.state == "warm" and r.answers == 4 and g.known == _kept()
    assert g.decoded == decode_all(_kept())  # what a session is given: decoded once, at load
    assert g.save(_kept()) == (0, "nothing new")  # nothing rewritten when nothing is new


def test_a_load_with_other_options_adds_to_the_file(tmp_path):
    """Loads of one model with other options ask other questions: the file keeps both sets,
    so neither load finds the other's answers gone."""
    first = _kept()
    f = FactsCache("ab" * 32, IDENT, tmp_path)
    f.load()
    f.save(first)
    other = {c: {q + "-other": v for q, v in a.items()} for c, a in first.items()}
    g = FactsCache("ab" * 32, IDENT, tmp_path)
    g.load()
    saved, why = g.save(other)
    assert (saved, why) == (8, "saved")
    h = FactsCache("ab" * 32, IDENT, tmp_path)
    assert h.load().answers == 8
    for c in first:
        assert h.known[c] == {**first[c], **other[c]}


def test_another_identity_or_model_is_another_file(tmp_path):
    FactsCache("ab" * 32, IDENT, tmp_path).save(_kept())
    other = dict(IDENT, acl_version="20.08")
    assert FactsCache("ab" * 32, other, tmp_path).load().state == "cold"
    assert FactsCache("cd" * 32, IDENT, tmp_path).load().state == "cold"


def test_a_file_of_another_identity_copied_over_is_refused(tmp_path):
    a, b = FactsCache("ab" * 32, IDENT, tmp_path), FactsCache("ab" * 32, dict(IDENT, cpus=8), tmp_path)
    a.save(_kept())
    b.path.write_bytes(a.path.read_bytes())
    with pytest.warns(FactsCacheWarning, match="another identity"):
        assert b.load().state == "cold"
    assert b.known == {}


@pytest.mark.parametrize("damage, match", [
    (lambda d: d[:-1] + bytes([d[-1] ^ 1]), "checksum"),
    (lambda d: d[:20], "no header|the header says"),
    (lambda d: b"x" * len(d), "no header"),
])
def test_a_damaged_file_is_a_warning(tmp_path, damage, match):
    f = FactsCache("ab" * 32, IDENT, tmp_path)
    f.save(_kept())
    f.path.write_bytes(damage(f.path.read_bytes()))
    g = FactsCache("ab" * 32, IDENT, tmp_path)
    with pytest.warns(FactsCacheWarning, match=match):
        assert g.load().state == "cold"
    assert g.known == {}


def test_an_answer_that_does_not_decode_is_a_warning_when_asked_for_and_acl_is_asked_again(tmp_path):
    """Answers are decoded when a load asks for them (a second start reads a few): a bad one
    is a warning then and absent, the file's others still used."""
    f = FactsCache("ab" * 32, IDENT, tmp_path)
    bad = _kept()
    bad["probe"] = {k: [[9], True] for k in bad["probe"]}
    f.save(bad)
    g = FactsCache("ab" * 32, IDENT, tmp_path)
    assert g.load().state == "warm"
    (qid,) = list(g.known["probe"])
    with pytest.warns(FactsCacheWarning, match="probe answer"):
        assert g.decoded["probe"].get(qid) is None
    assert g.decoded["probe"].get(qid) is None  # absent from then on (warned once)
    assert list(g.decoded["probe"]) == [] and dict(g.decoded["probe"]) == {}  # and from iteration
    assert len(g.decoded["negotiate"]) == len(g.known["negotiate"])
    s, calls = ConfigureSession(known=g.decoded), []
    _ask_all(s, calls)
    assert "probe" in calls and "negotiate" not in calls  # the bad answer asked again, the good ones not
    with pytest.raises(KeptValueError, match="probe answer"):  # without a warning to give: the codec's error
        decode_all(bad)["probe"][qid]


@pytest.mark.parametrize("encoded", [{"teleport": {}}, {"probe": [1, 2]}])
def test_an_unknown_category_or_a_malformed_map_makes_the_whole_file_unused(tmp_path, encoded):
    with pytest.raises(KeptValueError, match=r"category is 'teleport', expected one of|the probe answers are list"):
        decode_all(encoded)


def test_an_unusable_directory_is_a_warning(tmp_path):
    (tmp_path / "file").write_bytes(b"x")
    f = FactsCache("ab" * 32, IDENT, tmp_path / "file")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FactsCacheWarning):
            f.load()
    with pytest.warns(FactsCacheWarning, match="cannot write"):
        assert f.save(_kept())[0] == 0


def test_question_ids_name_every_value():
    """Not repr: PerChannelQuantization's repr lists no scales, numpy spells one dtype two ways."""
    import numpy as np

    from acl_bridge.mapping import PerChannelQuantization

    a = PerChannelQuantization((0.25, 0.5, 1.0), 0)
    b = PerChannelQuantization((0.25, 0.75, 1.0), 0)
    assert repr(a) == repr(b)  # the reason for the canonical text
    assert question_id("negotiate", (a,)) != question_id("negotiate", (b,))
    assert question_id("negotiate", (np.dtype("int32"),)) == question_id("negotiate", (np.dtype("<i4"),))
    assert question_id("negotiate", (np.float32(0.5), np.int64(3))) == question_id("negotiate", (0.5, 3))
    with pytest.raises(TypeError, match="no canonical text"):
        question_id("negotiate", (object(),))


def test_a_question_without_canonical_text_is_kept_for_the_load_only():
    s, calls = ConfigureSession(), []
    key = ("kind", object())
    for _ in range(2):
        s.ask("negotiate", lambda: key, lambda: calls.append(1) or (PaddingSize(),))
    assert len(calls) == 1 and s.answers() == {}


def test_a_negotiated_plan_round_trips_and_damage_is_refused():
    from acl_bridge.configure_session import NEGOTIATED_PLAN, decode, encode

    asked = {7: [(3, "src", PaddingSize(1, 2, 1, 2)), (4, "dst", PaddingSize())], 12: [(5, "src", PaddingSize(0, 3, 0, 0))]}
    const_pad = [{"weights": PaddingSize(), "bias": PaddingSize(0, 1, 0, 0)}, {}]
    value = encode(NEGOTIATED_PLAN, (asked, const_pad))
    assert json.loads(json.dumps(value)) == value
    assert decode(NEGOTIATED_PLAN, json.loads(json.dumps(value))) == (asked, const_pad)
    for bad in ([[[7, [[3, 5, [0, 0, 0, 0]]]]], []], [[[7, [[3, "src", [0, 0, 0]]]]], []], "nope"):
        with pytest.raises(KeptValueError, match="a kept negotiated_plan answer does not decode"):
            decode(NEGOTIATED_PLAN, bad)


def test_a_kept_arena_round_trips_and_damage_is_refused():
    from acl_bridge.configure_session import MEMORY_PLAN, decode, encode

    kept = ((4, 0), (7, 4096), (2, 64))
    assert decode(MEMORY_PLAN, json.loads(json.dumps(encode(MEMORY_PLAN, kept)))) == kept
    for bad in ({"4": 0}, [[4]], [[4, -64]], [[4, 1.5]], [[4, True]], [["4", 0]], [4, 0]):
        with pytest.raises(KeptValueError, match="a kept arena is .*, expected \\[\\[tensor, offset\\], ...\\] of ints >= 0"):
            decode(MEMORY_PLAN, bad)


def test_question_ids_name_bytes_by_their_content():
    """Bytes (native parameters, descriptions) are spelled by length and sha256: equal bytes
    give one id, any other bytes (one bit, one more zero) or a string of the same text another."""
    from acl_bridge.configure_session import _canonical

    base = bytes(400) + b"\x01"
    assert question_id("check_layouts", ("conv", base)) == question_id("check_layouts", ("conv", bytes(base)))
    others = [bytes(400) + b"\x02", bytes(401) + b"\x01", bytes(400), b"\x01" + bytes(400), repr(base)]
    ids = {question_id("check_layouts", ("conv", o)) for o in others}
    assert question_id("check_layouts", ("conv", base)) not in ids and len(ids) == len(others)
    assert _canonical(b"") != _canonical("") and _canonical(b"ab") != _canonical((97, 98))


def _identity_from(monkeypatch, text: str, threads: int = 1) -> dict:
    """facts_cache._identity("neon") where the native module says ``text`` (identity_text)."""
    from acl_bridge import facts_cache, native

    monkeypatch.setattr(native, "identity_text", lambda: text)
    monkeypatch.setattr(native, "acl_version", lambda: "24.11")
    monkeypatch.setattr(native, "num_threads", lambda: threads)
    return facts_cache._identity("neon")


CPU_LINE = "hwcap=efff hwcap2=2 cpus=4 models=1,1,5,5 fp16=1 dotprod=1 sve=0 sve2=0 bf16=0 i8mm=0"
LIB = "library\t/usr/lib/libarm_compute.so.38\t1000\t17"
SHIM = "shim\t/site/acl_bridge/_acl_shim.so\t300\t5"


def test_the_identity_is_the_native_text_read_as_it_is():
    """The CPU line as it is; each library [real path, size, mtime ns] once per path, sorted;
    the shim's the same; no shim line: None; a line of another form refused."""
    from acl_bridge.facts_cache import _split_native

    text = "\n".join([CPU_LINE, "library\t/b/libarm_compute_core.so\t5\t6", LIB, LIB, SHIM])
    assert _split_native(text) == (CPU_LINE, [["/b/libarm_compute_core.so", 5, 6], ["/usr/lib/libarm_compute.so.38", 1000, 17]],
                                   ["/site/acl_bridge/_acl_shim.so", 300, 5])
    assert _split_native(CPU_LINE) == (CPU_LINE, [], None)
    for bad in ("other\t/x\t1\t2", "library\t/x\t1", "library\t/x\tone\t2", ""):
        with pytest.raises(ValueError):
            _split_native(CPU_LINE + "\n" + bad)


def test_whatever_acl_chooses_by_changes_the_identity(monkeypatch, tmp_path):
    """Another capability word, core count, CPU model of one core, ACL feature flag, thread
    count, library (another file, none, or the same file rebuilt: size or mtime) or shim file is
    another identity, so another facts file."""
    base = _identity_from(monkeypatch, "\n".join([CPU_LINE, LIB, SHIM]))
    changes = [(old, new) for old, new in (
        ("hwcap=efff", "hwcap=efef"), ("hwcap2=2", "hwcap2=3"), ("cpus=4", "cpus=2"), ("models=1,1,5,5", "models=1,1,5,6"),
        ("fp16=1", "fp16=0"), ("dotprod=1", "dotprod=0"), ("sve=0", "sve=1"), ("i8mm=0", "i8mm=1"),
        ("libarm_compute.so.38", "libarm_compute.so.39"), ("\t1000\t", "\t1001\t"), ("\t17\n", "\t18\n"),
        ("_acl_shim.so\t300", "_acl_shim.so\t301"), ("\t5", "\t6"))]
    text = "\n".join([CPU_LINE, LIB, SHIM])
    others = []
    for old, new in changes:
        assert old in text, old
        others.append(_identity_from(monkeypatch, text.replace(old, new)))
    others.append(_identity_from(monkeypatch, text, threads=2))
    others.append(_identity_from(monkeypatch, "\n".join([CPU_LINE, SHIM])))
    paths = {FactsCache("ab" * 16, ident, tmp_path).path for ident in [base] + others}
    assert len(paths) == len(others) + 1


def test_kept_decisions_under_a_key_spelled_by_the_writer():
    """A first start leaves its decisions' key to be spelled where the file is encoded (the
    writer: TfliteRunner._recall_decisions gives a function): the same entry as under the key
    given as text; a function that finds nothing to key them by (None) keeps none."""
    from acl_bridge.configure_session import CONFIGURED_PLAN, ConfigureSession
    from acl_bridge.models.runtime.kept_answers import AnswersToKeep, encode_kept

    session = ConfigureSession(reuse=True).kept()
    given = encode_kept(AnswersToKeep(session, None, None, ("key", ())))
    assert set(given[CONFIGURED_PLAN]) == {"key"}
    assert encode_kept(AnswersToKeep(session, None, None, (lambda: "key", ()))) == given
    assert CONFIGURED_PLAN not in encode_kept(AnswersToKeep(session, None, None, (lambda: None, ())))
