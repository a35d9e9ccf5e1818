"""``describe``'s output options against numpy (issue 41: ``--order``, ``--coords``,
``--columns``, ``--data-layout``, ``--cell``) and the one grammar of integer text on the
command line (issue 39: ``--shape ''`` is no 0-d layout, ``--shape 0x10`` no ``0,10``)."""

import json
import re

import numpy as np
import pytest

from acl_bridge import cli


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def describe(capsys, *argv):
    code, out, err = run(capsys, "describe", *argv)
    assert (code, err) == (0, ""), err
    return out


def map_rows(out: str):
    """The text memory map: one list of cell labels per row, element 0's brackets removed
    (a row is 'OFFSET | cells', a '|' between cells marks a plane boundary)."""
    rows = out[out.index("memory map ("):].splitlines()[1:]
    return [[c.strip("[]") for c in line.split("|", 1)[1].split() if c != "|"] for line in rows if "|" in line]


def cells(out: str):
    return [c for row in map_rows(out) for c in row]


def numpy_memory_order(shape, order, paddings=None):
    """Each cell of the allocation in memory order: the C-order linear index of the element
    it holds (as a string), '.' for padding; numpy's own layout of ``shape`` in ``order``,
    padded by slicing a bigger array (the ADR's padded buffer)."""
    padded = shape if paddings is None else tuple(n + p for n, p in zip(shape, paddings))
    big = np.full(padded, -1, np.int64, order=order)
    big[tuple(slice(0, n) for n in shape)] = np.arange(int(np.prod(shape))).reshape(shape)
    return ["." if v < 0 else str(v) for v in big.ravel(order="K")]


# ---------------------------------------------------------------------------- --order
@pytest.mark.parametrize("order", ["c", "f"])
@pytest.mark.parametrize("shape, paddings", [((2, 3), None), ((2, 3, 4), None), ((3, 4), (1, 2))])
def test_order_is_numpys_memory_order(capsys, order, shape, paddings):
    argv = ["--shape", ",".join(map(str, shape)), "--order", order]
    if paddings:
        argv += ["--paddings", ",".join(map(str, paddings))]
    facts = json.loads(describe(capsys, "--json", *argv))
    padded = shape if paddings is None else tuple(n + p for n, p in zip(shape, paddings))
    x = np.zeros(padded, np.float32, order=order)[tuple(slice(0, n) for n in shape)]
    assert facts["order"] == order and facts["strides_in_bytes"] == list(x.strides)
    assert (facts["contiguous_c"], facts["contiguous_f"]) == (x.flags.c_contiguous, x.flags.f_contiguous)
    assert cells(describe(capsys, *argv, "--columns", "1000")) == numpy_memory_order(shape, order, paddings)


# ---------------------------------------------------------------------------- --coords
@pytest.mark.parametrize("argv", [["--shape", "2,3", "--paddings", "0,1"], ["--shape", "2,3,2", "--order", "f"],
                                  ["--shape", "3,4", "--strides", "1,3"]])
def test_coords_name_the_element_each_cell_holds(capsys, argv):
    linear = cells(describe(capsys, *argv))
    coords = cells(describe(capsys, *argv, "--coords"))
    shape = tuple(int(v) for v in argv[1].split(","))
    assert len(linear) == len(coords) and linear
    for k, c in zip(linear, coords):
        if k == ".":
            assert c == "."
        else:
            index = tuple(int(v) for v in c.strip("()").split(","))
            assert int(np.ravel_multi_index(index, shape)) == int(k), (k, c)


# ---------------------------------------------------------------------------- --columns
@pytest.mark.parametrize("columns", [1, 4, 7, 144])
def test_columns_cut_the_same_cells_into_rows_of_that_many(capsys, columns):
    argv = ["--shape", "2,2,5,5", "--paddings", "0,0,1,1"]
    rows = map_rows(describe(capsys, *argv, "--columns", str(columns)))
    assert all(len(r) == columns for r in rows[:-1]) and 1 <= len(rows[-1]) <= columns
    assert [c for r in rows for c in r] == numpy_memory_order((2, 2, 5, 5), "c", (0, 0, 1, 1))
    facts = json.loads(describe(capsys, "--json", *argv, "--columns", str(columns)))
    assert facts["cells"]["columns"] == columns
    default = json.loads(describe(capsys, "--json", *argv))["cells"]["columns"]
    assert default == 6  # the innermost padded extent


# ---------------------------------------------------------------------------- --data-layout
@pytest.mark.parametrize("data_layout", ["NCHW", "NHWC"])
def test_data_layout_labels_the_acl_tensor_and_changes_nothing_else(capsys, data_layout):
    """ACL's TensorShape is the numpy shape reversed whatever the label (x first): for an NHWC
    array x is C, for NCHW x is W; the strides in bytes are numpy's, reversed."""
    facts = json.loads(describe(capsys, "--json", "--shape", "1,2,3,4", "--data-layout", data_layout))
    x = np.zeros((1, 2, 3, 4), np.float32)
    assert facts["acl"]["data_layout"] == data_layout
    assert facts["acl"]["tensor_shape"] == list(x.shape[::-1])
    assert facts["acl"]["strides_in_bytes"] == list(x.strides[::-1])
    out = describe(capsys, "--shape", "1,2,3,4", "--data-layout", data_layout, "--no-map")
    assert re.search(rf"^\s+data_layout\s+{data_layout}$", out, re.M)


# ---------------------------------------------------------------------------- --cell
def test_cell_is_the_side_of_a_cell_in_pixels(capsys, tmp_path):
    """Every grid row is ``cell`` pixels plus the gap, so a picture's height grows by
    rows * (difference of cells) between two cell sizes with the same gap (>= 8: 2 pixels)."""
    image = pytest.importorskip("PIL.Image", reason="Pillow draws the PNG")
    heights = {}
    for cell in (10, 20):
        path = tmp_path / f"c{cell}.png"
        describe(capsys, "--shape", "2,2,5,5", "--paddings", "0,0,1,1", "--no-map", "--cell", str(cell),
                 "--out", str(path))
        with image.open(path) as picture:
            heights[cell] = picture.size[1]
    rows = 144 // 6  # alloc_size / the innermost padded extent
    assert heights[20] - heights[10] == rows * 10


@pytest.mark.parametrize("cell", ["2", "65", "x"])
def test_cell_outside_3_to_64_pixels_is_refused(capsys, cell, tmp_path):
    code, out, err = run(capsys, "describe", "--shape", "2,3", "--cell", cell, "--out", str(tmp_path / "m.png"))
    assert (code, out) == (2, "") and re.search(r"--cell is .*expected (3..64 pixels|an integer)", err), err
    assert not (tmp_path / "m.png").exists()


# ---------------------------------------------------------------------------- integer text
BAD_LISTS = {  # one per class of text that is no list of integers
    "empty": "",
    "x as separator": "0x10",
    "brackets": "(2,3)",
    "trailing comma": "2,",
    "empty entry": "2,,3",
    "plus sign": "+2,3",
    "underscore": "1_0,3",
    "not ASCII digits": "\u0663,2",
    "a float": "2.0,3",
}
LIST_OPTIONS = [("--shape", []), ("--strides", ["--shape", "2,3"]), ("--paddings", ["--shape", "2,3"]),
                ("--index", ["--shape", "2,3"]), ("--sizes", ["--directml", "FLOAT32"])]


@pytest.mark.parametrize("text", BAD_LISTS.values(), ids=BAD_LISTS.keys())
@pytest.mark.parametrize("option, rest", LIST_OPTIONS, ids=[o for o, _ in LIST_OPTIONS])
def test_integer_lists_have_one_form(capsys, option, rest, text):
    code, out, err = run(capsys, "describe", *rest, f"{option}={text}", "--no-map")
    assert (code, out) == (2, ""), err
    assert err == (f"acl-ndarray: error: {option} is {text!r}, expected comma-separated integers such as 2,2,5,5 "
                   f"(or () for a 0-d layout)\n")


@pytest.mark.parametrize("text", ["", "+3", "1_0", "3.0", "\u0663", "x"])
@pytest.mark.parametrize("option, rest", [("--offset", ["--shape", "2", "--strides", "1"]),
                                          ("--alloc-size", ["--shape", "2", "--strides", "1"]),
                                          ("--columns", ["--shape", "2"])])
def test_integers_have_one_form(capsys, option, rest, text):
    code, out, err = run(capsys, "describe", *rest, f"{option}={text}", "--no-map")
    assert (code, out) == (2, "")
    assert err == f"acl-ndarray: error: {option} is {text!r}, expected an integer such as 12\n"


def test_a_0d_layout_is_said_explicitly(capsys):
    facts = json.loads(describe(capsys, "--json", "--shape", "()"))
    assert (facts["shape"], facts["strides"], facts["alloc_size"]) == ([], [], 1)
    assert facts["layout"] == "ShapeDescriptor(float32[]:() +0 /1 c)" and facts["cells"]["elements"] == 1


def test_spaces_around_entries_and_negative_strides_are_integers(capsys):
    facts = json.loads(describe(capsys, "--json", "--shape", "2, 3", "--strides", "-3,1", "--offset", "3"))
    x = np.zeros((2, 3), np.float32)[::-1]
    assert facts["shape"] == [2, 3] and facts["strides_in_bytes"] == list(x.strides)
