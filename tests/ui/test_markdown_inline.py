"""Inline markdown turned into styled runs: one handler per token kind (no app).

Each test feeds one line of markdown through the shared parser and
:func:`~wikitui.ui.markdown.inline.inline_runs`, and reads the runs a reader would see:
``(text, roles, link index)``.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from wikitui.ui.markdown.inline import HANDLERS, ObsidianComments, inline_runs
from wikitui.ui.markdown.parser import markdown_parser


def runs(src: str, roles: str = "", comments: ObsidianComments | None = None, take=None) -> list[tuple]:
    tok = markdown_parser().parseInline(src)[0]
    take = take or (lambda kind, key, embed, last_line: None)
    return inline_runs(tok, roles, 1, take, comments or ObsidianComments(), True)


def test_emphasis_nests_and_the_last_opened_of_a_name_closes():
    assert runs("a ***b*** c *d **e** f*") == [
        ("a ", "", None),
        ("b", "em strong", None),
        (" c ", "", None),
        ("d ", "em", None),
        ("e", "em strong", None),
        (" f", "em", None),
    ]
    # The inner *c* closes the em opened last: the text after it keeps the order of what is open.
    assert runs("*a **b *c* d** e*")[3] == (" d", "em strong", None)
    assert runs("~~gone~~ `code`", roles="quote") == [
        ("gone", "quote s", None),
        (" ", "quote", None),
        ("code", "quote code", None),
    ]


def test_links_take_their_tab_stop_or_look_like_links_that_are_none():
    asked = []

    def take(kind, key, embed, last_line):
        asked.append((kind, key, embed))
        return 7 if key == ("White Rabbit", "") else None

    line = "[[White Rabbit|the rabbit]] [[Hatter#Tea]] [site](https://e.com/a%20b) [rel](notes.md)"
    assert runs(line, take=take) == [
        ("the rabbit", "", 7),
        (" ", "", None),
        ("Hatter > Tea", "link-plain", None),
        (" ", "", None),
        ("site", "link-external", None),
        (" ", "", None),
        ("rel", "link-plain", None),
    ]
    # Targets are asked for unquoted: the core's links are written as the reader typed them.
    assert asked == [("wiki", ("White Rabbit", ""), False), ("wiki", ("Hatter", "Tea"), False),
                     ("md", "https://e.com/a b", False), ("md", "notes.md", False)]


def test_a_link_with_no_text_shows_its_target():
    assert runs("[](https://example.com/x)") == [("https://example.com/x", "link-external", None)]


def test_embeds_stand_on_their_own_line_and_a_size_is_no_label():
    assert runs("see ![[pic.png|300]] and ![[Page#Part|the part]]") == [
        ("see ", "", None), ("\n", "", None), ("⧉ pic.png", "link-plain", None), ("\n", "", None),
        (" and ", "", None), ("\n", "", None), ("⧉ the part", "link-plain", None), ("\n", "", None),
    ]


def test_a_linked_image_is_one_link():
    def take(kind, key, embed, last_line):
        return 3 if (key, embed) == ("Target.md", False) else None

    shown = runs("[![alt](img.png)](Target.md)", take=take)
    assert ("⧉ alt", "", 3) in shown


def test_breaks_are_line_breaks_and_other_html_shows_nothing():
    assert runs("a<br>b<span>c</span>\nd") == [
        ("a", "", None), ("\n", "", None), ("b", "", None), ("c", "", None), ("\n", "", None), ("d", "", None),
    ]


def test_a_comment_hides_everything_up_to_its_end_across_blocks():
    comments = ObsidianComments()
    assert runs("shown %% hidden [[Secret]] *em*", comments=comments) == [("shown ", "", None)]
    assert comments.inside
    assert runs("still **hidden** %% back", comments=comments) == [(" back", "", None)]
    assert not comments.inside


@settings(max_examples=200, deadline=None)
@example("<b>bold</b> a<br>b ![i](p.png) `c` ~~s~~ **x** *y*  \nz\\\nw [l](u) ![[E]] [[P]]")
@given(st.text(alphabet="ab *_~`[]()!#%<>/:\\\n|^-", max_size=60).map(lambda s: s + " https://e.com/x [[P]]"))
def test_every_kind_of_inline_token_the_parser_makes_has_a_handler(src):
    tok = markdown_parser().parseInline(src)[0]
    kinds = {child.type for child in tok.children or ()}
    assert kinds <= set(HANDLERS), kinds - set(HANDLERS)
    assert all(isinstance(text, str) for text, _roles, _link in runs(src))


MARKED = st.text(alphabet=st.sampled_from(list("ab c*_`")), min_size=1, max_size=20).filter(
    lambda s: s.strip() == s and s.count("`") % 2 == 0 and "**" not in s)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("xy .")), max_size=8), MARKED)
@example("", "a b")
def test_a_highlight_marks_exactly_its_text_and_the_marks_never_show(before, inner):
    shown = runs(f"{before}=={inner}== after")
    marked = "".join(t for t, roles, _ in shown if "mark" in roles.split())
    assert "==" not in "".join(t for t, _, _ in shown)
    # The inner text as it renders between two punctuation marks, as `==` are: emphasis delimiters at its edges
    # (`__*_`) flank the same way there (CommonMark's flanking rules), and differently at a line's start.
    plain_inner = "".join(t for t, _, _ in runs(f"!{inner}!"))[1:-1]
    assert marked == plain_inner


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("$\\&_ ab{}=#1")), max_size=24))
def test_math_is_shown_exactly_as_written(tex):
    tex = tex.strip()
    if not tex or "$" in tex or tex[0].isdigit() or tex[-1].isdigit() or tex.endswith("\\"):  # \$ is a dollar
        return
    shown = runs(f"see ${tex}$ now")
    assert [t for t, roles, _ in shown if "math" in roles.split()] == [tex]
