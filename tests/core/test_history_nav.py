"""Back/forward history: a reader's path through pages, with scroll positions."""

from wikitui.core.base.navigation import History


def test_back_and_forward_restore_the_scroll_the_reader_left():
    h = History()
    assert h.current is None and not h.can_go_back and not h.can_go_forward
    h.remember("wiki/index.md")
    h.remember("wiki/alice.md", leaving_scroll=40)
    h.remember("wiki/rabbit.md", leaving_scroll=7)

    loc = h.back(leaving_scroll=15)
    assert (loc.path, loc.scroll_y) == ("wiki/alice.md", 7)
    loc = h.back(leaving_scroll=8)
    assert (loc.path, loc.scroll_y) == ("wiki/index.md", 40)
    assert h.back() is None and not h.can_go_back

    loc = h.forward()
    assert (loc.path, loc.scroll_y) == ("wiki/alice.md", 8)
    loc = h.forward()
    assert (loc.path, loc.scroll_y) == ("wiki/rabbit.md", 15)
    assert h.forward() is None and not h.can_go_forward


def test_opening_a_page_after_going_back_drops_the_forward_entries():
    h = History()
    for p in ("a", "b", "c"):
        h.remember(p)
    h.back()
    h.back()
    h.remember("d")
    assert [e.path for e in h.entries()] == ["a", "d"]
    assert not h.can_go_forward and h.can_go_back


def test_reopening_the_current_page_adds_no_step_but_an_anchor_does():
    h = History()
    h.remember("a")
    h.remember("a", leaving_scroll=5)
    assert len(h) == 1 and h.current.scroll_y == 5
    h.remember("a", anchor="Heading")
    assert len(h) == 2 and h.current.anchor == "Heading"


def test_history_is_bounded_and_keeps_the_newest():
    h = History(max_entries=3)
    for p in "abcde":
        h.remember(p)
    assert [e.path for e in h.entries()] == ["c", "d", "e"]
    assert h.current.path == "e"
    assert h.back().path == "d"


def test_forgetting_a_deleted_page_keeps_a_usable_history():
    h = History()
    for p in ("a", "gone", "a", "b"):
        h.remember(p)
    h.back()  # on "a"
    h.forget("gone")
    assert [e.path for e in h.entries()] == ["a", "b"]
    assert h.current.path == "a"
    assert h.forward().path == "b"
    h.forget("b")
    assert h.current.path == "a" and not h.can_go_forward
