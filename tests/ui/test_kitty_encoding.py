"""kitty's escape sequences and placeholder sizes, without an app: chunking, odd shapes, hostile files."""

from __future__ import annotations

import base64
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikitui.ui.markdown.kitty_pictures import (
    CHUNK,
    PLACEHOLDER,
    KittyPicture,
    deletion,
    diacritics,
    encode_picture,
    placeholder_row,
    transmission,
)

APC = re.compile(r"\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\")


@settings(max_examples=200, deadline=None)
@given(size=st.integers(min_value=0, max_value=3 * CHUNK + 7), image_id=st.integers(min_value=1, max_value=2**24 - 1))
def test_a_transmission_is_chunked_as_the_protocol_says_and_carries_the_data_whole(size, image_id):
    data = base64.standard_b64encode(bytes(range(256)) * (size // 256 + 1))[:size].decode()
    chunks = APC.findall(transmission(image_id, data))
    assert chunks[0][0] == f"a=t,f=100,i={image_id},q=2,m={1 if len(chunks) > 1 else 0}"
    assert all(keys in ("q=2,m=1", "q=2,m=0") for keys, _ in chunks[1:])  # later chunks: only m (and q)
    assert [keys.endswith("m=0") for keys, _ in chunks] == [False] * (len(chunks) - 1) + [True]
    assert all(len(payload) <= CHUNK for _, payload in chunks)
    assert "".join(payload for _, payload in chunks) == data


def test_a_deletion_frees_the_data_of_that_id_only():
    assert deletion(77) == "\x1b_Ga=d,d=I,i=77,q=2\x1b\\"


def test_placeholder_cells_number_their_row_and_column():
    table = diacritics()
    row = placeholder_row(2, 3, 0x0A0B0C)
    assert row == "".join(PLACEHOLDER + chr(table[2]) + chr(table[c]) + chr(table[0]) for c in range(3))


@pytest.mark.parametrize(
    ("pixels", "width", "expected"),
    [
        ((320, 200), 120, (32, 10)),  # its size in 10×20 cells
        ((320, 200), 16, (16, 5)),  # a narrow page: smaller, same shape
        ((4000, 3000), 200, (64, 24)),  # never taller than 24 rows (then 64 columns keep the shape)
        ((8000, 1200), 200, (72, 5)),  # never wider than 72 columns
        ((1, 10000), 80, (1, 24)),  # a needle: one column, at most 24 rows
        ((10000, 1), 80, (72, 1)),  # a thread: one row
        ((5, 5), 80, (1, 1)),  # smaller than a cell: still one cell, never enlarged
    ],
)
def test_a_picture_keeps_its_shape_within_72_by_24_cells(pixels, width, expected):
    picture = KittyPicture("", pixels, (10, 20), lambda _s: None)
    assert picture.cells(width) == expected


def test_the_data_goes_once_a_new_size_only_replaces_the_placement_and_release_frees_it():
    sent: list[str] = []
    picture = KittyPicture("QUJD", (320, 200), (10, 20), sent.append)
    first = picture.lines(120, 5)
    again = picture.lines(120, 5)
    assert [line.text for line in first] == [line.text for line in again]
    i = picture.image_id
    assert sent == [f"\x1b_Ga=t,f=100,i={i},q=2,m=0;QUJD\x1b\\", f"\x1b_Ga=p,U=1,i={i},c=32,r=10,q=2\x1b\\"]
    assert len(picture.lines(16, 5)) == 5
    assert sent[2:] == [f"\x1b_Ga=d,d=i,i={i},q=2\x1b\\", f"\x1b_Ga=p,U=1,i={i},c=16,r=5,q=2\x1b\\"]
    picture.release()
    picture.release()
    assert sent[4:] == [f"\x1b_Ga=d,d=I,i={i},q=2\x1b\\"]


def test_the_cells_colour_is_the_id():
    picture = KittyPicture("", (10, 10), (10, 20), lambda _s: None)
    assert int(picture.colour()[1:], 16) == picture.image_id and 0 < picture.image_id < 2**24


def test_a_decompression_bomb_is_refused_before_it_is_encoded(tmp_path):
    from PIL import Image

    from tests.core.test_sources_read import bomb_png

    bomb_png(tmp_path / "bomb.png")
    with pytest.raises((Image.DecompressionBombError, OSError, ValueError)):
        encode_picture(tmp_path / "bomb.png", (72, 24), (10, 20))


def test_a_huge_photo_is_encoded_at_the_size_it_is_drawn(tmp_path):
    from PIL import Image

    Image.new("RGB", (6000, 4000), (10, 200, 30)).save(tmp_path / "poster.jpg", quality=60)
    data, size = encode_picture(tmp_path / "poster.jpg", (45, 24), (10, 20))
    assert size[0] <= 450 and size[1] <= 480
    with Image.open(__import__("io").BytesIO(base64.b64decode(data))) as sent:
        assert sent.format == "PNG" and sent.size == size
