"""Sixel pictures in a real terminal: ``wikitui`` in a pseudo-terminal with ``WIKITUI_PICTURES=sixel``, raw bytes read back.

The same approach as :mod:`tests.e2e.test_pty_pictures` (not tmux, which does not pass
sixel through): what the program writes to its terminal, byte for byte.
"""

from __future__ import annotations

import re

from tests.e2e.test_pty_pictures import _env, search_typed_at_launch

#: An image written at a screen cell (cursor saved, moved; the sixel; cursor restored).
IMAGE = re.compile(rb'\x1b7\x1b\[(\d+);(\d+)H\x1bP[0-9;]*q"1;1;(\d+);(\d+)[^\x1b]*\x1b\\\x1b8')


def _sixel_env(home) -> dict[str, str]:
    env = _env(home)
    for name in ("KITTY_WINDOW_ID",):
        env.pop(name, None)
    env.update(TERM="xterm-256color", WIKITUI_PICTURES="sixel")
    return env


def test_under_sixel_an_opened_page_writes_its_picture_and_keys_typed_at_launch_survive(sample_vault, isolated_home):
    term, mark = search_typed_at_launch(sample_vault, _sixel_env(isolated_home))
    try:
        assert b"\x1bP" not in term.since(0)  # no picture before the page is opened
        term.type(b"\r")
        term.wait_for(b"\x1b\\\x1b8", mark)  # an image written, the cursor put back
        shown = term.since(mark)
        [(row, column, width, height)] = [tuple(map(int, m)) for m in IMAGE.findall(shown)[:1]]
        assert (width, height) == (320, 198)  # 320×200 pixels in 10×20-pixel cells, cut to whole bands of 6
        assert 1 <= row and row + 10 <= 40 and column > 1  # inside the screen, in the page pane
        text_after = shown.rsplit(b"\x1b8", 1)[0]
        assert b"Field Snaps" in text_after
    finally:
        term.close()
    everything = bytes(term.output)
    assert b"\x1b[c" not in everything and b"\x1b[16t" not in everything  # the terminal was never asked anything
