"""Every worked example of the five source documents (shared/seeds, indexed in its README).

One test per example, named after the document. The format modules have deeper tests of
their own (test_xla.py, test_directml.py, test_torch_format.py); this module is the index a
reader can check against the documents.
"""

import numpy as np
import pytest

from acl_bridge import PaddingSize, auto_padding, padded_descriptor, tensor_info
from ndarray import NdArray, ShapeDescriptor
from ndarray.formats import directml, torch, xla

# ----------------------------------------------------------------- 004: libnd4j ADR


def test_adr_strides_of_3_4_2_c_order():
    assert ShapeDescriptor.create((3, 4, 2)).strides == (8, 2, 1)


def test_adr_shape_info_of_2_2_5_5():
    d = ShapeDescriptor.create((2, 2, 5, 5), "float32")
    assert list(d.to_shape_info()) == [4, 2, 2, 5, 5, 50, 25, 5, 1, 8192, 1, 99]
    assert ShapeDescriptor.from_shape_info([4, 2, 2, 5, 5, 50, 25, 5, 1, 8192, 1, 99]) == d


def test_adr_acl_equivalent_of_2_2_5_5():
    info = tensor_info(ShapeDescriptor.create((2, 2, 5, 5)))
    assert info.tensor_shape == (5, 5, 2, 2)  # NdArray{n,z,y,x} -> TensorShape{x,y,z,n}
    assert info.strides_in_bytes == (4, 20, 100, 200)
    assert tuple(s // 4 for s in info.strides_in_bytes) == (1, 5, 25, 50)
    assert info.total_size_in_bytes == 400


def test_adr_acl_padding_right_1_bottom_1():
    d = padded_descriptor((2, 2, 5, 5), "float32", PaddingSize(top=0, right=1, bottom=1, left=0))
    info = tensor_info(d)
    assert info.strides_in_bytes == (4, 24, 144, 288)
    assert info.total_size_in_bytes == 576
    assert info.offset_first_element_in_bytes == 0
    assert d.has_padded_buffer
    info_flags = d.to_shape_info()[-3]
    assert info_flags & (1 << 25)  # ARRAY_HAS_PADDED_BUFFER
    # the shapeInfo alone gives the descriptor back (issue 39): no alloc_size needed
    assert d.to_shape_info() == (4, 2, 2, 5, 5, 72, 36, 6, 1, 33562624, 0, 99)  # the README prints it
    assert ShapeDescriptor.from_shape_info(d.to_shape_info()) == d


def test_adr_recovering_paddings_from_strides_and_alloc_size():
    # the strict rule: shapesAfterPadding[j] = strides[j-1] / strides[j], [0] = alloc / strides[0]
    d = ShapeDescriptor.create((2, 2, 5, 5), strides=(72, 36, 6, 1), alloc_size=144)
    assert d.paddings == (0, 0, 1, 1)
    f = ShapeDescriptor.create((5, 5, 2, 2), "float32", "f", strides=(1, 6, 36, 72), alloc_size=144)
    assert f.order == "f" and f.paddings == (1, 1, 0, 0)


def test_adr_auto_padding():
    # PaddingSize(pad_y, pad_x + extra_pad_x, pad_y, pad_x) = (4, 36, 4, 4)
    d = auto_padding((2, 2, 5, 5), "float32")
    info = tensor_info(d)
    assert info.padding == PaddingSize(top=4, right=36, bottom=4, left=4)
    # the layout rule, measured on ACL 24.11 (shared/notes/acl-facts.md)
    assert info.strides_in_bytes == (4, 180, 2340, 4680)
    assert info.offset_first_element_in_bytes == 736
    assert info.total_size_in_bytes == 9360


# ----------------------------------------------------------------- 000: DirectML strides


def test_directml_2d_row_and_column_major():
    letters = np.array(list("ABCDEF")).reshape(2, 3)
    row = directml.BufferTensorDesc("UINT8", (2, 3), (3, 1))
    col = directml.BufferTensorDesc("UINT8", (2, 3), (1, 2))
    for desc, memory in ((row, "ABCDEF"), (col, "ADBECF")):
        placed = [""] * 6
        for idx in np.ndindex(2, 3):
            placed[desc.element_offset(idx)] = letters[idx]
        assert "".join(placed) == memory


def test_directml_dhw_element_h_at_offset_7():
    desc = directml.BufferTensorDesc("UINT8", (2, 2, 3))
    assert desc.effective_strides == (6, 3, 1)
    assert desc.element_offset((1, 0, 1)) == 7


def test_directml_broadcast_with_stride_0():
    desc = directml.BufferTensorDesc("UINT8", (2, 3), (0, 1))
    assert desc.is_broadcast and directml.calc_buffer_tensor_size("UINT8", (2, 3), (0, 1)) == 4  # 3 bytes, rounded to 4
    d = desc.to_shape_descriptor()
    # physically 3 elements (A, B, C); the allocation is DirectML's 4-byte rounded size
    assert d.overlaps and d.alloc_size == 4
    assert len({d.element_offset(i) for i in np.ndindex(2, 3)}) == 3


def test_directml_padding_with_height_stride_5():
    buf = np.frombuffer(b"ABCxxDEFxx", np.uint8)
    desc = directml.BufferTensorDesc("UINT8", (2, 3), (5, 1))
    view = desc.wrap(buf.copy())
    view = view.numpy() if hasattr(view, "numpy") else view
    assert bytes(view.reshape(-1)) == b"ABCDEF"
    d = desc.to_shape_descriptor()
    assert d.strides == (5, 1) and d.shape == (2, 3)


@pytest.mark.parametrize(
    "strides, expected",
    [(None, (15, 15, 5, 1)), ((15, 15, 5, 1), (15, 15, 5, 1)), ((15, 1, 5, 1), (15, 1, 5, 1))],
    ids=["nchw-implicit", "nchw-explicit", "nhwc"],
)
def test_directml_1_1_3_5(strides, expected):
    desc = directml.BufferTensorDesc("FLOAT32", (1, 1, 3, 5), strides)
    assert desc.effective_strides == expected
    assert directml.calc_buffer_tensor_size("FLOAT32", (1, 1, 3, 5), strides) == 60


def test_directml_nhwc_strides_helper():
    assert directml.nhwc_strides((1, 1, 3, 5)) == (15, 1, 5, 1)


# ----------------------------------------------------------------- 003: PyTorch NCHW / NHWC


def test_torch_1_64_5_4_contiguous_and_channels_last():
    shape = (1, 64, 5, 4)
    assert torch.strides_for(shape) == (1280, 20, 4, 1)
    cl = torch.strides_for(shape, "channels_last")
    assert cl == (1280, 1, 256, 64)
    assert not torch.is_contiguous(shape, cl)
    assert torch.is_contiguous(shape, cl, "channels_last")


def test_torch_transpose_changes_only_shape_and_strides():
    x = NdArray.from_numpy(np.arange(12, dtype=np.int64).reshape(1, 3, 2, 2))
    t = x.transpose(2, 1, 0, 3)  # torch.transpose(x, 0, 2)
    assert t.shape == (2, 3, 1, 2) and t.descriptor.strides == (2, 4, 12, 1)
    assert not torch.is_contiguous(t.shape, t.descriptor.strides)
    assert t.base_ptr == x.base_ptr  # storage unchanged
    np.testing.assert_array_equal(t.buffer(), np.arange(12))


def test_torch_storage_after_channels_last():
    storage = np.array([14, 16, 20, 11, 8, 26, 15, 18, 29, 21, 10, 3])
    x = NdArray.from_numpy(storage.reshape(1, 3, 2, 2))
    y = x.contiguous("channels_last")
    np.testing.assert_array_equal(y.buffer(), [14, 8, 29, 16, 26, 21, 20, 15, 10, 11, 18, 3])
    np.testing.assert_array_equal(y.numpy(), x.numpy())


def test_torch_channels_last_offset_of_next_channel():
    # offset of [0,1,0,0] with strides (1280, 1, 256, 64) is 1
    d = ShapeDescriptor.create((1, 64, 5, 4), strides=(1280, 1, 256, 64))
    assert d.element_offset((0, 1, 0, 0)) == 1


# ----------------------------------------------------------------- 001 / 002: XLA


def test_xla_2x3_minor_to_major():
    for layout, memory in (("{0,1}", "adbecf"), ("{1,0}", "abcdef")):
        shape = xla.parse(f"F32[2,3]{layout}")
        letters = np.array(list("abcdef")).reshape(2, 3)
        placed = [""] * 6
        for idx in np.ndindex(2, 3):
            placed[shape.linear_index(idx)] = letters[idx]
        assert "".join(placed) == memory


def test_xla_f32_3_5_tiled_2_2_element_2_3_is_17():
    assert xla.parse("F32[3,5]{1,0:T(2,2)}").linear_index((2, 3)) == 17


def test_xla_padded_dimensions_3_5_buffer():
    shape = xla.parse("F32[2,3]{0,1:pad(3,5)}")
    placed = ["0"] * shape.buffer_size
    letters = np.array(list("abcdef")).reshape(2, 3)
    for idx in np.ndindex(2, 3):
        placed[shape.linear_index(idx)] = letters[idx]
    assert "".join(placed) == "ad0be0cf0000000"


def test_xla_figure_1_whole_buffer_of_f32_3_5_t_2_2():
    shape = xla.parse("F32[3,5]{1,0:T(2,2)}")
    assert shape.buffer_size == 2 * 3 * 2 * 2  # tiles (ceil(3/2), ceil(5/2)) of 2x2
    # pad-reshape-transpose in numpy, independently of the module
    padded = np.full((4, 6), -1)
    padded[:3, :5] = np.arange(15).reshape(3, 5)
    memory = padded.reshape(2, 2, 3, 2).transpose(0, 2, 1, 3).reshape(-1)
    for idx in np.ndindex(3, 5):
        assert memory[shape.linear_index(idx)] == idx[0] * 5 + idx[1]


def test_xla_figure_2_4x8_tiled_2_4_then_2_1():
    shape = xla.parse("F32[4,8]{1,0:T(2,4)(2,1)}")
    expected = [[0, 2, 4, 6, 8, 10, 12, 14], [1, 3, 5, 7, 9, 11, 13, 15],
                [16, 18, 20, 22, 24, 26, 28, 30], [17, 19, 21, 23, 25, 27, 29, 31]]
    assert [[shape.linear_index((r, c)) for c in range(8)] for r in range(4)] == expected


def test_xla_combined_dimensions_2_7_8_11_10_to_112_110_tiled_2_3():
    combined = xla.parse("F32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}")
    flat = xla.parse("F32[112,110]{1,0:T(2,3)}")
    for idx in [(0, 0, 0, 0, 0), (1, 6, 5, 9, 7), (1, 6, 7, 10, 9), (0, 3, 2, 1, 4)]:
        row = (idx[0] * 7 + idx[1]) * 8 + idx[2]
        col = idx[3] * 10 + idx[4]
        assert combined.linear_index(idx) == flat.linear_index((row, col))
