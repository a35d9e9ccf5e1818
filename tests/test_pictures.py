"""acl_bridge.pictures: memory maps, the stdlib PNG encoder and the SVG writer.

The PNG is decoded here with zlib (it is our own writer: 8-bit RGB, filter 0 on every row)
and the pixels are counted: inside the grid, every pixel of a cell is that cell's color
(or a label digit), so color counts give cell counts.
"""

import struct
import xml.etree.ElementTree as ET
import zlib

import numpy as np
import pytest

from acl_bridge import PaddingSize, auto_padding, padded_descriptor
from ndarray import InvalidLayoutError, NotRepresentableError, ShapeDescriptor
from acl_bridge import pictures as pic
from ndarray.formats.directml import BufferTensorDesc


# ---------------------------------------------------------------------------- helpers
def decode_png(data: bytes) -> np.ndarray:
    """Decode the PNGs encode_png writes (RGB, 8 bits, filter 0); check every chunk's CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        pos += 12 + length
    assert [k for k, _ in chunks][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    width, height, depth, color, comp, flt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, color, comp, flt, interlace) == (8, 2, 0, 0, 0)
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(height, 1 + 3 * width)
    assert (rows[:, 0] == 0).all(), "every row uses filter 0"
    return rows[:, 1:].reshape(height, width, 3)


def grid(rgb: np.ndarray, m: pic.MemoryMap, g: pic.Geometry) -> np.ndarray:
    """The grid area of the picture (cells and the gaps between them, nothing else)."""
    return rgb[g.grid_y : g.grid_y + m.rows * g.pitch + g.gap, g.grid_x : g.grid_x + m.columns * g.pitch + g.gap]


def count(rgb: np.ndarray, *colors) -> int:
    return int(sum(np.count_nonzero((rgb == np.array(c, dtype=np.uint8)).all(axis=-1)) for c in colors))


def cell_pixels(rgb, g, k, columns):
    x, y = g.cell_origin(k // columns, k % columns)
    return rgb[y : y + g.cell, x : x + g.cell]


ADR_PADDED = ShapeDescriptor.create((2, 2, 5, 5), "float32", paddings=(0, 0, 1, 1))
ABC = BufferTensorDesc("UINT8", (2, 3), (5, 1), 10)  # DirectML "ABCxxDEFxx"


# ---------------------------------------------------------------------------- maps
def test_adr_padded_map_cells():
    m = pic.descriptor_map(ADR_PADDED)
    assert (m.alloc_size, m.columns, m.rows) == (144, 6, 24)
    assert (m.element_cells, m.padding_cells, m.shared_cells) == (100, 44, 0)
    assert m.element0 == 0
    # every 6th cell is the right padding column; the 6th row of each 6x6 plane is the bottom padding
    grid_ = m.cells.reshape(4, 6, 6)
    assert (grid_[:, :, 5] == -1).all() and (grid_[:, 5, :] == -1).all()
    assert (grid_[:, :5, :5].reshape(-1) == np.arange(100)).all()
    assert m.boundaries == ((36, "plane"),)


def test_directml_abcxxdefxx_map():
    m = pic.descriptor_map(ABC.to_shape_descriptor(), title=repr(ABC))
    assert (m.alloc_size, m.columns, m.rows) == (10, 5, 2)
    # offsets 0..9: A B C x x D E F x x
    assert list(m.cells) == [0, 1, 2, -1, -1, 3, 4, 5, -1, -1]
    assert pic.text_map(m).splitlines() == ["0 | [0]   1   2   .   .", "5 |   3   4   5   .   ."]


def test_acl_auto_padding_map_marks_element0_at_the_offset():
    m = pic.descriptor_map(auto_padding((2, 2, 5, 5)))
    assert (m.alloc_size, m.columns, m.element_cells) == (2340, 45, 100)
    assert m.element0 == 184 == 4 * 45 + 4  # 736 bytes / 4
    assert m.cells[184] == 0 and m.cells[183] == -1


def test_broadcast_cells_are_shared_and_text_marks_them():
    d = ShapeDescriptor.create((2, 3), "float32", strides=(0, 1), alloc_size=3)
    m = pic.descriptor_map(d)
    assert (m.element_cells, m.shared_cells, m.padding_cells) == (3, 3, 0)
    assert list(m.cells) == [0, 1, 2]  # the lowest linear index wins
    assert pic.text_map(m) == "0 | [0*]   1*   2*"
    assert pic.text_map(m, coordinates=True) == "0 | [(0,0)*]   (0,1)*   (0,2)*"


def test_transpose_rows_show_the_source_rows():
    d = ShapeDescriptor.create((3, 4), "float32", strides=(1, 3))
    m = pic.descriptor_map(d)
    assert m.columns == 3
    assert pic.text_map(m).splitlines()[1] == " 3 |   1   5   9"


def test_xla_tiled_map_and_boundaries():
    xla = pytest.importorskip("ndarray.formats.xla")
    m = pic.xla_map(xla.parse("F32[3,5]{1,0:T(2,2)}"))
    assert (m.alloc_size, m.element_cells, m.padding_cells, m.columns) == (24, 15, 9, 2)
    assert m.boundaries == ((4, "tile0"),)
    assert int(np.flatnonzero(m.cells == 2 * 5 + 3)[0]) == 17  # element (2,3) is at 17
    text = pic.text_map(m).split("\n\n")
    assert len(text) == 6  # six 2x2 tiles


def test_columns_override_and_errors():
    m = pic.descriptor_map(ADR_PADDED, columns=12)
    assert (m.columns, m.rows) == (12, 12)
    with pytest.raises(InvalidLayoutError, match="columns is 0"):
        pic.MemoryMap("t", (1,), np.zeros(1, np.int64), np.ones(1, np.int64), 0, 0)


def test_text_map_refuses_huge_maps():
    m = pic.descriptor_map(ShapeDescriptor.create((100, 100), "uint8"))
    assert "too many to print" in pic.text_map(m)


# ---------------------------------------------------------------------------- PNG
def test_png_round_trip():
    rgb = np.random.default_rng(0).integers(0, 256, size=(7, 5, 3), dtype=np.uint8)
    data = pic.encode_png(rgb)
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (5, 7)
    assert (decode_png(data) == rgb).all()
    with pytest.raises(InvalidLayoutError, match=r"image has shape \(4, 4\)"):
        pic.encode_png(np.zeros((4, 4), np.uint8))


@pytest.mark.parametrize(
    "m",
    [pic.descriptor_map(ADR_PADDED), pic.descriptor_map(ABC.to_shape_descriptor(), title=repr(ABC)),
     pic.descriptor_map(padded_descriptor((1, 3, 5), "float32", PaddingSize(1, 2, 1, 2)))],
    ids=["adr-padded", "directml-ABCxxDEFxx", "acl-padding-1-2-1-2"],
)
def test_png_pixels_count_cells(tmp_path, m):
    path = tmp_path / "map.png"
    pic.write_png(path, pic.render_rgb(m, labels=False))
    rgb = decode_png(path.read_bytes())
    g = pic.geometry(m, labels=False)
    assert rgb.shape == (g.height, g.width, 3)
    area = g.cell * g.cell
    inside = grid(rgb, m, g)
    assert count(inside, pic.PADDING_COLOR) == m.padding_cells * area
    assert count(inside, *pic.ELEMENT_COLORS) == m.element_cells * area
    # element 0: a ring in the gaps around its cell, nothing inside it
    ring = (g.cell + 2 * g.gap) ** 2 - area
    assert count(inside, pic.MARK_COLOR) == ring
    assert count(cell_pixels(rgb, g, m.element0, m.columns), *pic.ELEMENT_COLORS) == area
    # each padding cell is entirely padding-colored
    for k in np.flatnonzero(m.counts == 0):
        assert count(cell_pixels(rgb, g, k, m.columns), pic.PADDING_COLOR) == area


def test_png_labels_are_inside_element_cells_only():
    m = pic.descriptor_map(ADR_PADDED)
    rgb = pic.render_rgb(m)
    g = pic.geometry(m)
    assert g.label_scale == 2
    inside = grid(rgb, m, g)
    area = g.cell * g.cell
    ink = count(inside, pic.LABEL_COLOR)
    assert ink > 100  # every element has a number
    assert count(inside, *pic.ELEMENT_COLORS) + ink == m.element_cells * area
    assert count(inside, pic.PADDING_COLOR) == m.padding_cells * area


def test_png_planes_alternate_shades():
    m = pic.descriptor_map(ADR_PADDED)
    rgb = pic.render_rgb(m, labels=False)
    g = pic.geometry(m, labels=False)
    first, second = cell_pixels(rgb, g, 0, 6), cell_pixels(rgb, g, 36, 6)  # planes 0 and 1
    assert (first == pic.ELEMENT_COLORS[0]).all() and (second == pic.ELEMENT_COLORS[1]).all()


def test_png_xla_tile_boundaries():
    xla = pytest.importorskip("ndarray.formats.xla")
    m = pic.xla_map(xla.parse("F32[3,5]{1,0:T(2,2)}"))
    rgb = pic.render_rgb(m, labels=False)
    g = pic.geometry(m, labels=False)
    x, y1 = g.cell_origin(1, 1)  # column 1: column 0 has the element-0 ring above row 1
    _, y2 = g.cell_origin(2, 1)
    gap_inside_tile = rgb[y1 - g.gap : y1, x + g.cell // 2]  # between rows 0 and 1: same tile
    gap_between_tiles = rgb[y2 - g.gap : y2, x + g.cell // 2]  # between rows 1 and 2
    assert (gap_inside_tile == pic.GRID_COLOR).all()
    assert (gap_between_tiles == pic.TILE_COLORS[0]).all()
    inside = grid(rgb, m, g)
    area = g.cell * g.cell
    assert count(inside, pic.PADDING_COLOR) == 9 * area
    assert count(inside, *pic.ELEMENT_COLORS) == 15 * area


def test_picture_refuses_too_many_cells():
    m = pic.descriptor_map(ShapeDescriptor.create((pic.MAX_CELLS + 1,), "uint8"))
    with pytest.raises(NotRepresentableError, match=rf"the allocation has {pic.MAX_CELLS + 1} cells, expected at most "
                       rf"{pic.MAX_CELLS} to draw one pixel block per cell"):
        pic.geometry(m)


# ---------------------------------------------------------------------------- SVG
def test_svg_has_one_rect_per_cell(tmp_path):
    m = pic.descriptor_map(ADR_PADDED)
    path = tmp_path / "map.svg"
    assert pic.write_picture(str(path), m) == "svg"
    root = ET.parse(path).getroot()  # well-formed XML
    ns = "{http://www.w3.org/2000/svg}"
    rects = root.findall(f"{ns}rect")
    kinds = [r.get("class") for r in rects]
    assert kinds.count("element") == 100
    assert kinds.count("padding") == 44
    assert kinds.count("element0") == 1
    cells = [r for r in rects if r.get("class") in ("element", "padding", "shared")]
    assert len(cells) == m.alloc_size
    assert all(r.get("fill") == "#%02x%02x%02x" % pic.PADDING_COLOR for r in rects if r.get("class") == "padding")
    assert len([line for line in root.findall(f"{ns}line") if line.get("class") == "plane"]) > 0


def test_write_picture_needs_png_or_svg(tmp_path):
    with pytest.raises(InvalidLayoutError, match=r"expected a name ending in \.png or \.svg"):
        pic.write_picture(str(tmp_path / "x.jpg"), pic.descriptor_map(ADR_PADDED))
