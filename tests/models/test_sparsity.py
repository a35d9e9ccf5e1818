"""Sparse constants: TFLite's sparsity format converter's own examples (block-sparse, CSR,
3-D, permuted traversal orders) densified by :mod:`acl_bridge.models.format.sparsity` and by the
reader, against the known dense tensors and against TFLite's interpreter running DENSIFY; a
sparse FULLY_CONNECTED through the planner; every malformed field refused naming it; 300
damaged copies of a sparse model ending in this library's errors or in a plan."""

import os
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acl_bridge.models.format import sparsity as sparse
from acl_bridge.models.format.sparsity import DimensionMetadata, SparsityParameters, densify, stored_count
from ndarray.errors import AclNdarrayError

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.format.tflite_reader import (  # noqa: E402
    ModelFormatError, UnsupportedModelError, fold_constant_dequantize, read_model,
)

from .conftest import host_only_under_emulation, tolerance  # noqa: E402
from .test_fuzz_reader import read_and_plan  # noqa: E402
from .sparse_tflite import (Op, Sparsity, Tensor, densify_add_model, graph_model,  # noqa: E402
                            sparse_fully_connected_model, values_bytes)

# TFLite's sparsity_format_converter_test.cc: (name, dense shape, dense values, traversal
# order, block map, levels in traversal order, stored values).
A34 = [6, 0, 9, 8, 0, 0, 0, 0, 5, 0, 0, 7]
B44 = [1, 0, 2, 3, 0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 6]
EXAMPLES = [
    ("D0D1", (3, 4), A34, (0, 1), (), [("DENSE", 3), ("DENSE", 4)], A34),
    ("S0D1", (3, 4), A34, (0, 1), (), [("CSR", [0, 2], [0, 2]), ("DENSE", 4)], [6, 0, 9, 8, 5, 0, 0, 7]),
    ("D0S1", (3, 4), A34, (0, 1), (), [("DENSE", 3), ("CSR", [0, 3, 3, 5], [0, 2, 3, 0, 3])], [6, 9, 8, 5, 7]),
    ("S0S1", (3, 4), A34, (0, 1), (), [("CSR", [0, 2], [0, 2]), ("CSR", [0, 3, 5], [0, 2, 3, 0, 3])],
     [6, 9, 8, 5, 7]),
    ("D1D0", (3, 4), A34, (1, 0), (), [("DENSE", 4), ("DENSE", 3)], [6, 0, 5, 0, 0, 0, 9, 0, 0, 8, 0, 7]),
    ("S1D0", (3, 4), A34, (1, 0), (), [("CSR", [0, 3], [0, 2, 3]), ("DENSE", 3)], [6, 0, 5, 9, 0, 0, 8, 0, 7]),
    ("D1S0", (3, 4), A34, (1, 0), (), [("DENSE", 4), ("CSR", [0, 2, 2, 3, 5], [0, 2, 0, 0, 2])], [6, 5, 9, 8, 7]),
    ("S1S0", (3, 4), A34, (1, 0), (), [("CSR", [0, 3], [0, 2, 3]), ("CSR", [0, 2, 3, 5], [0, 2, 0, 0, 2])],
     [6, 5, 9, 8, 7]),
    ("3D S0D1S2", (3, 2, 2), A34, (0, 1, 2), (),
     [("CSR", [0, 2], [0, 2]), ("DENSE", 2), ("CSR", [0, 1, 3, 4, 5], [0, 0, 1, 0, 1])], [6, 9, 8, 5, 7]),
    ("3D D0D1S2", (3, 2, 2), A34, (0, 1, 2), (),
     [("DENSE", 3), ("DENSE", 2), ("CSR", [0, 1, 3, 3, 3, 4, 5], [0, 0, 1, 0, 1])], [6, 9, 8, 5, 7]),
    ("3D S0S1S2", (3, 4, 2), [1, 7, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 4, 8, 3, 9], (0, 1, 2), (),
     [("CSR", [0, 2], [0, 2]), ("CSR", [0, 2, 5], [0, 2, 0, 2, 3]),
      ("CSR", [0, 2, 3, 4, 6, 8], [0, 1, 1, 1, 0, 1, 0, 1])], [1, 7, 5, 2, 4, 8, 3, 9]),
    ("3D S0S2S1", (3, 2, 4), [1, 0, 0, 0, 7, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 2, 0, 8, 9], (0, 2, 1), (),
     [("CSR", [0, 2], [0, 2]), ("CSR", [0, 2, 5], [0, 2, 0, 2, 3]),
      ("CSR", [0, 2, 3, 4, 6, 8], [0, 1, 1, 1, 0, 1, 0, 1])], [1, 7, 5, 2, 4, 8, 3, 9]),
    ("block D0D1", (4, 4), B44, (0, 1, 2, 3), (0, 1), [("DENSE", 2)] * 4,
     [1, 0, 0, 4, 2, 3, 0, 0, 0, 0, 0, 0, 5, 0, 0, 6]),
    ("BCSR 1-D block", (4, 4), B44, (0, 1, 2), (1,),
     [("DENSE", 4), ("CSR", [0, 2, 3, 4, 5], [0, 1, 0, 1, 1]), ("DENSE", 2)], [1, 0, 2, 3, 0, 4, 5, 0, 0, 6]),
    ("BCSR 2-D block", (4, 4), B44, (0, 1, 2, 3), (0, 1),
     [("DENSE", 2), ("CSR", [0, 2, 3], [0, 1, 1]), ("DENSE", 2), ("DENSE", 2)], [1, 0, 0, 4, 2, 3, 0, 0, 5, 0, 0, 6]),
    ("BCSC", (4, 4), B44, (1, 0, 3, 2), (0, 1),
     [("DENSE", 2), ("CSR", [0, 1, 3], [0, 0, 1]), ("DENSE", 2), ("DENSE", 2)], [1, 0, 0, 4, 2, 0, 3, 0, 5, 0, 0, 6]),
    ("BCSR last block empty", (4, 4), [1, 0, 2, 3, 0, 4, 0, 0] + [0] * 8, (0, 1, 2, 3), (0, 1),
     [("DENSE", 2), ("CSR", [0, 2, 2], [0, 1]), ("DENSE", 2), ("DENSE", 2)], [1, 0, 0, 4, 2, 3, 0, 0]),
    ("BCSR column-major block", (4, 8), [1, 0, 2, 3, 0, 4, 0, 0, 1, 0, 2, 3, 0, 4, 0, 0, 0, 0, 5] + [0] * 13,
     (0, 1, 3, 2), (0, 1), [("DENSE", 2), ("CSR", [0, 3, 4], [0, 1, 2, 1]), ("DENSE", 2), ("DENSE", 2)],
     [1, 1, 0, 0, 2, 2, 3, 3, 0, 0, 4, 4, 5, 0, 0, 0]),
]
IDS = [e[0] for e in EXAMPLES]


def parameters(order, block_map, levels) -> SparsityParameters:
    return SparsityParameters.of(order, block_map, [DimensionMetadata.dense(lv[1]) if lv[0] == "DENSE"
                                                    else DimensionMetadata.csr(lv[1], lv[2]) for lv in levels])


def model_of(example, dtype="float32", index_type="int32", quantization=None) -> bytes:
    _, shape, _, order, block_map, levels, stored = example
    return densify_add_model(shape, stored, Sparsity(order, block_map, levels, index_type), dtype, quantization)


def dense_of(example, dtype=np.float32):
    return np.asarray(example[2], dtype).reshape(example[1])


def litert(model: bytes, reference: bool = True):
    """TFLite's interpreter on ``model`` (reference kernels: no delegate takes DENSIFY)."""
    pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")
    from acl_bridge.models.oracles.tflite_oracle import InterpreterUnavailable, interpreter

    try:
        return interpreter(model, reference=reference)[0]
    except InterpreterUnavailable as e:
        pytest.skip(str(e))


# ---------------------------------------------------------------------------- the converter's examples
@pytest.mark.parametrize("example", EXAMPLES, ids=IDS)
def test_the_converters_examples_densify_to_their_dense_tensors(example):
    _, shape, dense, order, block_map, levels, stored = example
    sp = parameters(order, block_map, levels)
    assert stored_count(shape, sp) == len(stored)
    got = densify(np.asarray(stored, np.int32), shape, sp)
    assert got.dtype == np.int32 and got.shape == shape
    assert np.array_equal(got, dense_of(example, np.int32))


@pytest.mark.parametrize("index_type", ["int32", "uint16", "uint8"])
@pytest.mark.parametrize("example", EXAMPLES, ids=IDS)
def test_the_reader_densifies_and_folds_densify(example, index_type):
    m = read_model(model_of(example, index_type=index_type))
    assert m.opcode_counts() == {"ADD": 1}
    for i in (1, 2):  # the sparse constant and DENSIFY's output: both the dense value
        t = m.tensors[i]
        assert t.is_constant and t.dtype == np.float32 and t.shape == example[1]
        assert np.array_equal(t.data, dense_of(example)) and not t.data.flags.writeable


@host_only_under_emulation
@pytest.mark.parametrize("example", EXAMPLES, ids=IDS)
def test_densified_equals_tflites_interpreter(example):
    data = model_of(example)
    it = litert(data)
    it.set_tensor(0, np.zeros(example[1], np.float32))
    it.invoke()
    mine = read_model(data).tensors[2].data
    assert np.array_equal(it.get_tensor(2), mine)  # DENSIFY's output, element by element
    assert np.array_equal(it.get_tensor(3), mine)  # and the graph's output: 0 + it


@host_only_under_emulation
@pytest.mark.parametrize("dtype, quantization", [("float16", None), ("int8", (0.5, 3))])
@pytest.mark.parametrize("example", [EXAMPLES[3], EXAMPLES[11], EXAMPLES[15]], ids=[IDS[3], IDS[11], IDS[15]])
def test_float16_and_int8_sparse_constants_equal_tflites(example, dtype, quantization):
    """The types TFLite's DENSIFY takes besides float32, dequantized before the ADD."""
    data = model_of(example, dtype, quantization=quantization)
    m = fold_constant_dequantize(read_model(data))
    assert m.opcode_counts() == {"ADD": 1}
    assert np.array_equal(read_model(data).tensors[2].data, dense_of(example, np.dtype(dtype)))
    it = litert(data)
    x = np.arange(np.prod(example[1]), dtype=np.float32).reshape(example[1])
    it.set_tensor(0, x)
    it.invoke()
    assert np.array_equal(it.get_tensor(2), read_model(data).tensors[2].data)
    assert np.array_equal(it.get_tensor(3), x + m.tensors[4].data)


# ---------------------------------------------------------------------------- through the planner
def block_sparse_weights(out: int, n_in: int, block: int, seed: int):
    """(dense (out, n_in) float32, stored values, Sparsity): rows in 1 x ``block`` blocks, about
    half of them zero, in TFLite's BCSR layout (DENSE rows, SPARSE_CSR block columns, a DENSE
    block): the format TFLite's converter writes for sparse FULLY_CONNECTED weights."""
    rng = np.random.default_rng(seed)
    dense = rng.standard_normal((out, n_in)).astype(np.float32)
    keep = rng.random((out, n_in // block)) < 0.5
    dense *= np.repeat(keep, block, axis=1)
    segments, indices, stored = [0], [], []
    for r in range(out):
        for c in np.flatnonzero(keep[r]):
            indices.append(int(c))
            stored.extend(dense[r, c * block:(c + 1) * block])
        segments.append(len(indices))
    levels = [("DENSE", out), ("CSR", segments, indices), ("DENSE", block)]
    return dense, np.asarray(stored, np.float32), Sparsity((0, 1, 2), (1,), levels)


@host_only_under_emulation
@pytest.mark.parametrize("float16", [False, True], ids=["float32", "float16+DEQUANTIZE"])
def test_sparse_fully_connected_runs_through_the_planner_as_tflite_does(float16):
    from acl_bridge.models.planning.numpy_executor import run_plan
    from acl_bridge.models.planning.tflite_plan import plan_model

    dense, stored, sp = block_sparse_weights(24, 32, 4, seed=5)
    if float16:
        stored = stored.astype(np.float16)
        dense = dense.astype(np.float16)
    bias = np.linspace(-1, 1, 24).astype(np.float32)
    data = sparse_fully_connected_model(3, (24, 32), stored, sp, bias, float16=float16)
    m = fold_constant_dequantize(read_model(data))
    assert m.opcode_counts() == {"FULLY_CONNECTED": 1}
    weights = m.tensors[m.operators[0].inputs[1]]
    assert np.array_equal(weights.data, dense.astype(np.float32))
    plan = plan_model(m)
    x = np.random.default_rng(6).standard_normal((3, 32)).astype(np.float32)
    mine = run_plan(plan, x)["output"]
    assert np.allclose(mine, np.maximum(x @ dense.astype(np.float32).T + bias, 0), atol=1e-5)
    # TFLite's reference kernels, then (float32) its default ones, XNNPACK's delegate: on
    # ai-edge-litert 1.4 that delegate gives NaN for float16 sparse weights + DENSIFY +
    # DEQUANTIZE, where TFLite's own kernels, with or without the reference resolver, agree
    for reference in (True,) if float16 else (True, False):
        it = litert(data, reference=reference)
        it.set_tensor(0, x)
        it.invoke()
        ref = it.get_tensor(4)
        assert np.abs(mine - ref).max() <= tolerance(ref), reference


# ---------------------------------------------------------------------------- a property
def encode(dense: np.ndarray, formats, order) -> tuple:
    """The stored values and levels of ``dense`` traversed in ``order`` with these level
    formats ("DENSE" / "CSR"), level by level: a CSR level keeps, under each position, the
    indices with anything non-zero below them (as TFLite's converter drops zeros)."""
    t = np.transpose(dense, order)
    positions, levels = [t], []
    for level, f in enumerate(formats):
        if f == "DENSE":
            levels.append(("DENSE", t.shape[level]))
            positions = [p[i] for p in positions for i in range(p.shape[0])]
            continue
        segments, indices, kept = [0], [], []
        for p in positions:
            nonzero = [i for i in range(p.shape[0]) if np.any(p[i])]
            indices += nonzero
            kept += [p[i] for i in nonzero]
            segments.append(len(indices))
        levels.append(("CSR", segments, indices))
        positions = kept
    return np.asarray(positions, dense.dtype).reshape(-1), levels


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_traversal_of_any_tensor_densifies_back(data):
    rank = data.draw(st.integers(1, 3))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    dense = np.asarray(data.draw(st.lists(st.sampled_from([0, 0, 1, 2, -3]), min_size=int(np.prod(shape)),
                                          max_size=int(np.prod(shape)))), np.int32).reshape(shape)
    order = tuple(data.draw(st.permutations(range(rank))))
    formats = data.draw(st.lists(st.sampled_from(["DENSE", "CSR"]), min_size=rank, max_size=rank))
    stored, levels = encode(dense, formats, order)
    sp = parameters(order, (), levels)
    assert stored_count(shape, sp) == stored.size
    assert np.array_equal(densify(stored, shape, sp), dense)


# ---------------------------------------------------------------------------- malformed fields
GOOD = EXAMPLES[14]  # BCSR 2-D block: (4, 4), order (0, 1, 2, 3), block_map (0, 1)


def with_levels(levels=None, order=None, block_map=None):
    _, shape, _, o, b, lv, _ = GOOD
    return parameters(o if order is None else order, b if block_map is None else block_map,
                      lv if levels is None else levels)


def bcsr(segments, indices):
    return [("DENSE", 2), ("CSR", segments, indices), ("DENSE", 2), ("DENSE", 2)]


MALFORMED = [
    (with_levels(order=(0, 1)), r"sparsity.dim_metadata has 4 entries, expected one per traversal_order entry: 2"),
    (parameters((0,), (), [("DENSE", 4)]), r"traversal_order has 1 entries, expected at least the tensor's rank 2"),
    (with_levels(order=(0, 0, 2, 3)), r"traversal_order\[:2\] is \[0, 0\], expected a permutation of \[0, 1\]"),
    (with_levels(order=(0, 1, 2, 7)), r"traversal_order\[2:\] is \[2, 7\], expected a permutation of \[2, 3\]"),
    (with_levels(block_map=(0,)), r"block_map has 1 entries, expected 2"),
    (with_levels(block_map=(1, 0)), r"block_map is \[1, 0\], expected increasing tensor dimensions in \[0, 2\)"),
    (with_levels(block_map=(0, 5)), r"block_map is \[0, 5\], expected increasing"),
    (with_levels(bcsr([0, 2, 3], [0, 1, 1])[:3] + [("CSR", [0, 1], [0])]),
     r"dim_metadata\[3\] \(a block dimension\) is SPARSE_CSR.*expected DENSE with dense_size > 0"),
    (with_levels(bcsr([0, 2, 3], [0, 1, 1])[:3] + [("DENSE", 0)]),
     r"dim_metadata\[3\] .* expected DENSE with dense_size > 0"),
    (with_levels([("DENSE", 3)] + bcsr([0, 2, 3], [0, 1, 1])[1:]), r"dim_metadata\[0\].dense_size is 3, expected 2"),
    (with_levels(bcsr([0, 2], [0, 1])), r"array_segments has 2 entries, expected 3 \(one more than the 2 positions"),
    (with_levels(bcsr([1, 2, 3], [0, 1, 1])), r"array_segments\[0\] is 1, expected 0"),
    (with_levels(bcsr([0, 3, 2], [0, 1, 1])), r"array_segments\[2\] is 2, expected >= array_segments\[1\] = 3"),
    (with_levels(bcsr([0, 2, 4], [0, 1, 1])), r"array_segments\[2\] is 4, expected the number of array_indices, 3"),
    (with_levels(bcsr([0, 2, 3], [0, 2, 1])), r"array_indices\[1\] is 2, expected an index in \[0, 2\)"),
    (with_levels(bcsr([0, 2, 3], [0, -1, 1])), r"array_indices\[1\] is -1, expected an index in \[0, 2\)"),
    (with_levels(bcsr([0, 2, 3], [1, 1, 1])), r"array_indices\[0\] and \[1\] are both 1 in segment 0"),
    (with_levels(bcsr(None, [0, 1, 1])), r"dim_metadata\[1\] is SPARSE_CSR without array_segments, expected both"),
]


@pytest.mark.parametrize("sp, match", MALFORMED)
def test_malformed_fields_are_refused_naming_them(sp, match):
    with pytest.raises(sparse.SparsityFormatError, match=match):
        stored_count((4, 4), sp)
    with pytest.raises(sparse.SparsityFormatError, match=match):
        densify(np.zeros(12, np.float32), (4, 4), sp)


def test_permuted_blocks_of_different_sizes_are_refused():
    """TFLite's verifier and its converter read a block's size at different levels when the
    block's dimensions are traversed in another order; with different sizes they disagree."""
    sp = parameters((0, 1, 3, 2), (0, 1), [("DENSE", 2), ("DENSE", 1), ("DENSE", 4), ("DENSE", 2)])
    with pytest.raises(sparse.SparsityFormatError, match=r"TFLite reads block 0's size as 4 and 2, expected 2"):
        stored_count((4, 4), sp)


def test_unsorted_indices_are_valid_and_land_where_tflite_puts_them():
    sp = with_levels(bcsr([0, 2, 3], [1, 0, 1]))  # row block 0: block columns 1 then 0
    got = densify(np.arange(1, 13, dtype=np.float32), (4, 4), sp)
    assert got.tolist() == [[5, 6, 1, 2], [7, 8, 3, 4], [0, 0, 9, 10], [0, 0, 11, 12]]


def test_a_partial_block_is_not_stored_as_tflite_does():
    """Shape 5 in blocks of 2: TFLite's converter and verifier floor the division; the last
    row is zero."""
    sp = parameters((0, 1, 2), (0,), [("DENSE", 2), ("DENSE", 3), ("DENSE", 2)])
    got = densify(np.arange(1, 13, dtype=np.float32), (5, 3), sp)
    assert got.tolist() == [[1, 3, 5], [2, 4, 6], [7, 9, 11], [8, 10, 12], [0, 0, 0]]


def test_wrong_number_of_values_and_too_large_tensors():
    sp = with_levels()
    with pytest.raises(sparse.SparsityFormatError, match="the sparsity parameters keep 12 values, the buffer holds 11"):
        densify(np.zeros(11, np.float32), (4, 4), sp)
    with pytest.raises(sparse.SparseTooLargeError, match=r"shape \[4, 4\] float32 is 16 elements dense, more than "
                                                         r"max_dense_bytes=63"):
        densify(np.zeros(12, np.float32), (4, 4), sp, max_dense_bytes=63)
    assert issubclass(sparse.SparseTooLargeError, AclNdarrayError)


# ---------------------------------------------------------------------------- malformed models
def sparse_model(levels=None, stored=None, shape=(4, 4), order=(0, 1, 2, 3), block_map=(0, 1), index_type="int32"):
    _, _, _, _, _, lv, st_ = GOOD
    return densify_add_model(shape, st_ if stored is None else stored,
                             Sparsity(order, block_map, lv if levels is None else levels, index_type))


def test_the_byte_count_error_says_the_tensor_is_sparse():
    with pytest.raises(ModelFormatError, match=r"tensor #1 'sparse': constant data has 40 bytes, expected 12 x 4: "
                                               r"the tensor is sparse, its sparsity parameters keep 12 of the 16 "
                                               r"elements of shape \[4, 4\] float32"):
        read_model(sparse_model(stored=np.zeros(10)))


def test_the_byte_count_error_of_a_dense_tensor_says_it_is_dense():
    data = graph_model([Tensor("input", (4,), "float32"), Tensor("c", (4,), "float32", values_bytes([1, 2], "float32")),
                        Tensor("output", (4,), "float32")], [Op("ADD", (0, 1), (2,), ("AddOptions", {}))], (0,), (2,))
    with pytest.raises(ModelFormatError, match=r"constant data has 8 bytes, expected 4 x 4 for shape \[4\] float32 "
                                               r"\(a dense tensor: it has no sparsity parameters\)"):
        read_model(data)


@pytest.mark.parametrize("levels, match", [
    (bcsr([0, 2, 3], [0, 2, 1]), r"tensor #1 'sparse' \(sparse, shape \[4, 4\] float32\): sparsity.dim_metadata\[1\]"
                                 r".array_indices\[1\] is 2, expected an index in \[0, 2\)"),
    (bcsr([0, 3, 2], [0, 1, 1]), r"array_segments\[2\] is 2, expected >= array_segments\[1\] = 3"),
    ([("DENSE", 2), ("DENSE", 3), ("DENSE", 2), ("DENSE", 2)], r"dim_metadata\[1\].dense_size is 3, expected 2"),
])
def test_malformed_sparsity_in_a_model_is_a_model_format_error(levels, match):
    with pytest.raises(ModelFormatError, match=match):
        read_model(sparse_model(levels))


def test_uint8_indices_are_range_checked():
    with pytest.raises(ModelFormatError, match=r"array_indices\[0\] is 200, expected an index in \[0, 2\)"):
        read_model(sparse_model(bcsr([0, 2, 3], [200, 1, 1]), index_type="uint8"))


def test_a_huge_dense_shape_from_a_few_bytes_is_refused_before_allocating():
    shape = (1 << 15, 1 << 15)  # 4 GiB of float32 named by two indices
    levels = [("CSR", [0, 1], [7]), ("CSR", [0, 1], [9])]
    data = densify_add_model(shape, [1.0], Sparsity((0, 1), (), levels))
    with pytest.raises(UnsupportedModelError, match=r"tensor #1 'sparse': a sparse tensor of shape \[32768, 32768\] "
                                                    r"float32 is 1073741824 elements dense, more than max_dense_bytes"):
        read_model(data)


def test_sparsity_on_a_tensor_without_data_is_refused():
    sp = Sparsity((0,), (), [("DENSE", 4)])
    data = graph_model([Tensor("input", (4,), "float32", sparsity=sp), Tensor("output", (4,), "float32")],
                       [Op("RELU", (0,), (1,))], (0,), (1,))
    with pytest.raises(UnsupportedModelError, match=r"tensor #0 'input' has sparsity parameters but no constant data"):
        read_model(data)


def densify_graph(sparse_tensor: Tensor, dense_tensor: Tensor, densify_inputs=(1,)):
    tensors = [Tensor("input", (4,), "float32"), sparse_tensor, dense_tensor, Tensor("output", (4,), "float32")]
    return graph_model(tensors,
                       [Op("DENSIFY", densify_inputs, (2,)), Op("ADD", (0, 2), (3,), ("AddOptions", {}))], (0,), (3,))


SP4 = Sparsity((0,), (), [("CSR", [0, 2], [1, 3])])


@pytest.mark.parametrize("graph, error, match", [
    (lambda: densify_graph(Tensor("c", (4,), "float32", values_bytes([1, 2, 3, 4], "float32")),
                           Tensor("d", (4,), "float32")),
     ModelFormatError, r"operator #0 DENSIFY: input .*'c'.* has no sparsity parameters, expected a sparse constant"),
    (lambda: densify_graph(Tensor("s", (4,), "float32", values_bytes([1, 2], "float32"), SP4),
                           Tensor("d", (2, 2), "float32")),
     ModelFormatError, r"operator #0 DENSIFY: output .*'d' float32\[2, 2\].* differs from input .* expected the same"),
    (lambda: densify_graph(Tensor("s", (4,), "float32", values_bytes([1, 2], "float32"), SP4),
                           Tensor("d", (4,), "float32"), densify_inputs=(1, 0)),
     ModelFormatError, r"operator #0 DENSIFY has inputs \[1, 0\] and outputs \[2\], expected one each"),
])
def test_densify_operators_that_tflite_refuses_are_refused(graph, error, match):
    with pytest.raises(error, match=match):
        read_model(graph())


def test_the_densified_model_round_trips_through_the_parsed_model_cache(tmp_path):
    from acl_bridge.models.format.model_cache import read_model_cached

    dense, stored, sp = block_sparse_weights(8, 16, 4, seed=1)
    data = sparse_fully_connected_model(2, (8, 16), stored.astype(np.float16), sp, np.zeros(8, np.float32),
                                        float16=True)
    for dequantized in (False, True):
        cold, report = read_model_cached(data, tmp_path, dequantized=dequantized)
        warm, report2 = read_model_cached(data, tmp_path, dequantized=dequantized)
        assert (report.state, report2.state) == ("cold", "warm")
        assert "DENSIFY" not in warm.opcode_counts()
        assert [o.opcode for o in warm.operators] == [o.opcode for o in cold.operators]
        for a, b in zip(cold.tensors, warm.tensors):
            assert (a.shape, a.dtype, a.is_constant) == (b.shape, b.dtype, b.is_constant)
            if a.is_constant:
                assert np.array_equal(a.data, b.data), a
        w = next(t for t in warm.tensors if t.name == ("weights" if dequantized else "weights_dense"))
        assert w.dtype == (np.float32 if dequantized else np.float16)
        assert np.array_equal(w.data, dense.astype(np.float16).astype(w.dtype))


# ---------------------------------------------------------------------------- damaged copies
def sparsity_fields(data: bytes, tensor: int):
    """(name, byte offset, size) of every field of tensor ``tensor``'s sparsity: the vectors'
    length prefixes and entries, each level's format and dense_size, the union types and
    the index vectors; and the byte range of the tensor's buffer."""
    import tflite

    model = tflite.Model.GetRootAs(data, 0)
    t = model.Subgraphs(0).Tensors(tensor)
    sp = t.Sparsity()
    fields = []

    def vector(tab, slot, name, size):
        o = tab.Offset(slot)
        if o:
            start, n = tab.Vector(o), tab.VectorLen(o)
            fields.append((f"{name} length", start - 4, 4))
            fields.extend((f"{name}[{k}]", start + k * size, size) for k in range(n))

    def scalar(tab, slot, name, size):
        o = tab.Offset(slot)
        if o:
            fields.append((name, tab.Pos + o, size))

    vector(sp._tab, 4, "traversal_order", 4)
    vector(sp._tab, 6, "block_map", 4)
    vector(sp._tab, 8, "dim_metadata", 4)
    for k in range(sp.DimMetadataLength()):
        m = sp.DimMetadata(k)
        scalar(m._tab, 4, f"dim_metadata[{k}].format", 1)
        scalar(m._tab, 6, f"dim_metadata[{k}].dense_size", 4)
        for slot, name in ((8, "array_segments"), (12, "array_indices")):
            scalar(m._tab, slot, f"dim_metadata[{k}].{name}_type", 1)
            table = m.ArraySegments() if name == "array_segments" else m.ArrayIndices()
            if table is not None:
                vector(table, 4, f"dim_metadata[{k}].{name}.values", 4)
    buf = model.Buffers(t.Buffer())
    o = buf._tab.Offset(4)
    start, n = buf._tab.Vector(o), buf._tab.VectorLen(o)
    return fields, (start - 4, start + n)


def damaged_copies(data: bytes, count: int, seed: int = 41):
    """``count`` copies: a field of the sparsity set to an edge value (a third), random
    bytes over sparsity fields (a third), random bytes in the buffer or its length (a sixth),
    truncated inside the sparsity or the buffer (a sixth)."""
    rng = np.random.default_rng(seed)
    fields, (b0, b1) = sparsity_fields(data, 1)
    for k in range(count):
        b = bytearray(data)
        kind = k % 6
        if kind in (0, 1):
            name, at, size = fields[int(rng.integers(0, len(fields)))]
            fmt = {1: "<b", 4: "<i"}[size]
            value = int(rng.choice([-1, 0, 1, 2, 3, 5, 127, 1 << 16, (1 << 31) - 1] if size == 4 else [-1, 0, 1, 2, 5]))
            struct.pack_into(fmt, b, at, value)
            yield f"{name} (byte {at}) set to {value}", bytes(b)
        elif kind in (2, 3):
            for _ in range(int(rng.integers(1, 5))):
                _, at, size = fields[int(rng.integers(0, len(fields)))]
                b[at + int(rng.integers(0, size))] = int(rng.integers(0, 256))
            yield "random bytes over sparsity fields", bytes(b)
        elif kind == 4:
            where = rng.integers(b0, b1, size=int(rng.integers(1, 5)))
            for w in where:
                b[int(w)] = int(rng.integers(0, 256))
            yield f"buffer bytes {sorted(int(w) for w in where)} overwritten", bytes(b)
        else:
            lo = min(at for _, at, _ in fields + [("", b0, 0)])
            cut = int(rng.integers(lo, max(b1, max(at for _, at, _ in fields)) + 1))
            yield f"truncated to {cut}", bytes(data[:cut])


# 300 on the host; the emulated images, where Python runs 20-30x slower, the first 60 (as
# test_fuzz_reader.py)
COUNT = 60 if os.environ.get("HYPOTHESIS_PROFILE") == "emulated" else 300


def test_three_hundred_damaged_sparse_models_end_in_our_exception_or_a_plan():
    from acl_bridge.models.planning.tflite_plan import plan_model

    _, stored, sp = block_sparse_weights(16, 32, 4, seed=3)
    data = sparse_fully_connected_model(2, (16, 32), stored, sp, np.zeros(16, np.float32))
    plan_model(fold_constant_dequantize(read_model(data)))  # the intact model plans
    outcomes = {"plan": 0, "refused by the reader": 0, "sparsity named": 0, "refused by the plan": 0}
    for what, damaged in damaged_copies(data, COUNT):
        outcome, message = read_and_plan(what, damaged)
        outcomes[outcome] += 1
        outcomes["sparsity named"] += outcome == "refused by the reader" and "sparse" in message
    print(f"damaged sparse models: {outcomes}")
    assert outcomes["refused by the reader"] >= COUNT // 3
    assert outcomes["sparsity named"] >= COUNT // 6
    assert outcomes["plan"] >= COUNT // 12  # the buffer's values damaged: still a model
