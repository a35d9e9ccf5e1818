"""Issue 16, part 5: every shape string in the HLO text of real JAX programs parses and prints
back byte-identical (XLA's own notation is the oracle). Needs jax (pip install jax jaxlib,
CPU); skipped with the reason where it is absent."""

import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest

from ndarray.formats.xla import XlaShape, XlaTuple, parse

HERE = os.path.dirname(os.path.abspath(__file__))
ARRAY_RE = re.compile(r"(?<![\w.%])((?:pred|token|opaque|bf16|[sufc]\d+\w*|f8\w+|f4\w+)\[[^\]]*\](?:\{[^{}]*\})?)")
TUPLE_START_RE = re.compile(r"\((?=(?:pred|token|opaque|bf16|[sufc]\d+\w*|f8\w+|f4\w+)\[|\()")


def _tuples(text):
    """Every parenthesised list of shapes (entry layouts, tuple results), brackets matched."""
    found = set()
    for m in TUPLE_START_RE.finditer(text):
        depth = 0
        for end in range(m.start(), len(text)):
            depth += text[end] in "([{"
            depth -= text[end] in ")]}"
            if depth == 0:
                break
        candidate = text[m.start() : end + 1]
        if ARRAY_RE.sub("", candidate).replace("(", "").replace(")", "").replace(", ", "") == "":
            found.add(candidate)
    return found


@pytest.fixture(scope="module")
def hlo_texts():
    if importlib.util.find_spec("jax") is None:
        pytest.skip("jax is not installed (pip install jax jaxlib): no real HLO text to compare with")
    out = subprocess.run([sys.executable, os.path.join(HERE, "xla_hlo_programs.py")], capture_output=True,
                         text=True, timeout=300, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_every_hlo_shape_string_round_trips_byte_identical(hlo_texts):
    text = "\n".join(hlo_texts)
    arrays = set(ARRAY_RE.findall(text))
    tuples = _tuples(text)
    assert len(arrays) >= 40 and tuples, (len(arrays), tuples)
    bad = {s: repr(parse(s)) for s in sorted(arrays | tuples) if repr(parse(s)) != s}
    assert not bad, bad
    for s in arrays:
        shape = parse(s)
        assert isinstance(shape, XlaShape) and shape.has_layout == s.endswith("}") or s.endswith("[]")
    assert all(isinstance(parse(t), XlaTuple) for t in tuples)
    print(f"{len(arrays)} array and {len(tuples)} tuple shape strings round-tripped byte-identical")


def test_real_programs_cover_the_new_element_types_and_fields(hlo_texts):
    text = "\n".join(hlo_texts)
    arrays = set(ARRAY_RE.findall(text))
    types = {parse(s).element_type for s in arrays}
    assert {"f8e4m3fn", "f8e5m2", "bf16", "s4", "pred", "c64"} <= types, types
    assert any(parse(s).element_size_in_bits == 4 for s in arrays)  # s4[...]{0:E(4)}
