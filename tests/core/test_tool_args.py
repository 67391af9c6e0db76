"""Hostile tool arguments are data (DESIGN §8): an error result to the model, the turn going on, nothing written.

The cases the issue found (100,000 nested brackets, a lone surrogate in ``content`` or
``path``, NUL bytes, huge strings) first through the tools, then through a whole
headless ingest; then property tests: no text the model sends makes the argument
decoding or a tool call raise, and whatever a tool accepts is valid UTF-8 without NUL.
"""

from __future__ import annotations

import io
import json
import shutil

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import SAMPLE
from tests.fakeserver import ToolCalls, text, tool_calls
from wikitui.core.agent.argcheck import MAX_DEPTH, ToolArgError, decode_arguments
from wikitui.core.agent.context import safe_arguments
from wikitui.core.agent.headless import run_ingest
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.tools import PROPOSE_TOOLS, READ_TOOLS, ToolBox, describe_call
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.pending import PendingStore
from wikitui.core.config.settings import load_settings
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace

PAGE = "---\ntitle: Grin\ntype: concept\nsummary: A grin without a cat.\n---\n\n# Grin\n\nSee [[Cheshire Cat]].\n"


@pytest.fixture(scope="module")
def vault(tmp_path_factory):
    root = tmp_path_factory.mktemp("args") / "sample"
    shutil.copytree(SAMPLE, root, ignore=shutil.ignore_patterns(".wikitui"))
    v = Vault.open(root)
    return v, LinkGraph.load(v)


def box(vault) -> ToolBox:
    v, graph = vault
    return ToolBox(v, graph, None, ChangesetBuilder(v, graph))


HOSTILE = {
    "nested brackets": ("propose_page", "[" * 100_000),
    "nested inside an object": ("propose_page", '{"path": "wiki/x.md", "content": ' + "[" * 100_000 + "}"),
    "nested edits string": ("propose_edit", json.dumps({"path": "wiki/characters/alice.md", "reason": "r",
                                                        "edits": "[" * 50_000})),
    "surrogate in content": ("propose_page", '{"path": "wiki/grin.md", "content": "a \\ud800 b", "reason": "r"}'),
    "raw surrogate in content": ("propose_page", '{"path": "wiki/grin.md", "content": "a \ud800 b", "reason": "r"}'),
    "surrogate in path": ("propose_page", '{"path": "wiki/gr\\udfffin.md", "content": "x", "reason": "r"}'),
    "surrogate in a search": ("search", '{"query": "grin \\ud83d"}'),
    "NUL in content": ("propose_page", '{"path": "wiki/grin.md", "content": "a\\u0000b", "reason": "r"}'),
    "NUL in an edit": ("propose_edit", json.dumps({"path": "wiki/characters/alice.md", "reason": "r",
                                                   "edits": [{"old": "The heroine of the book",
                                                              "new": "The\x00heroine"}]})),
    "NUL in a path": ("read", '{"path": "wiki/index.md\\u0000.png"}'),
    "huge content": ("propose_page", json.dumps({"path": "wiki/grin.md", "content": "x" * 1_500_000, "reason": "r"})),
    "huge query": ("search", json.dumps({"query": "grin " * 50_000})),
    "huge arguments": ("read", json.dumps({"path": "wiki/index.md", "pad": "y" * 5_000_000})),
    "huge number": ("read", '{"path": "wiki/index.md", "offset": ' + "9" * 5000 + "}"),
    "huge quoted number": ("read", json.dumps({"path": "wiki/index.md", "offset": "9" * 5000})),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_each_hostile_argument_is_an_error_result_and_nothing_is_proposed(vault, name):
    tool, args = HOSTILE[name]
    b = box(vault)
    outcome = b.call(tool, args)
    assert not outcome.ok and outcome.text.startswith("error: "), outcome.text[:200]
    assert len(outcome.text) < 3000
    for line in (outcome.text, outcome.summary, outcome.description):
        line.encode("utf-8")  # shown in the chat, written in the transcript: always encodable
        assert "\x00" not in line
    assert b.builder.build("query", "t") is None


def test_the_messages_say_what_is_wrong(vault):
    b = box(vault)
    assert "more than 32 levels deep" in b.call(*HOSTILE["nested brackets"]).text
    assert "lone surrogate (U+D800) at character 2" in b.call(*HOSTILE["surrogate in content"]).text
    assert "path holds a lone surrogate (U+DFFF)" in b.call(*HOSTILE["surrogate in path"]).text
    assert "content holds a NUL character at character 1" in b.call(*HOSTILE["NUL in content"]).text
    assert "content is 1,500,000 characters long; at most 1,000,000" in b.call(*HOSTILE["huge content"]).text
    assert "the arguments are 5,000," in b.call(*HOSTILE["huge arguments"]).text


def test_history_never_resends_hostile_arguments():
    for name, (tool, args) in HOSTILE.items():
        if name != "huge quoted number":  # refused by the tool, but plain text: harmless to resend
            assert safe_arguments(args) == "{}", name
    good = json.dumps({"path": "wiki/grin.md", "content": PAGE, "reason": "r"})
    assert safe_arguments(good) == good


def test_descriptions_of_hostile_calls_are_one_short_safe_line():
    line = describe_call("read", {"path": "a\nb\x00c\ud800" + "x" * 5000})
    assert "\n" not in line and "\x00" not in line and len(line) < 200
    line.encode("utf-8")
    assert describe_call("propose_page", {"path": ["not", "a", "string"]}) == "proposed the page "


def fast_client() -> LLMClient:
    async def no_wait(_):
        return None

    return LLMClient(load_settings(), base_delay=0, sleep=no_wait)


def test_a_headless_ingest_fed_every_hostile_call_goes_on_and_writes_only_the_good_page(fake_llm, sample_vault):
    hostile = ToolCalls([(tool, args) for tool, args in HOSTILE.values()], chunk=50_000)
    good = ("propose_page", {"path": "wiki/themes/grin.md", "content": PAGE, "reason": "a good page"})
    fake_llm.script(text("Plan: one page."), hostile, tool_calls(good), text("Proposed one page."))
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui" / "config.toml").write_text("context_tokens = 100000\n")  # no result condensed
    out, err = io.StringIO(), io.StringIO()
    code = run_ingest(Workspace.open(sample_vault), "raw/chapter-06.md", out=out, err=err, client=fast_client())
    assert code == 0, err.getvalue()[-2000:]
    assert "Traceback" not in err.getvalue()
    results = [m for m in fake_llm.requests[2]["messages"] if m["role"] == "tool"]
    assert len(results) == len(HOSTILE) and all(m["content"].startswith("error: ") for m in results)
    (pending,) = PendingStore(Vault.open(sample_vault)).list()
    assert [f.path for f in pending.files] == ["wiki/themes/grin.md"]
    assert not (sample_vault / "wiki/themes/grin.md").exists()
    state = sample_vault / ".wikitui"
    written = [*state.glob("sessions/*.jsonl"), *state.glob("pending/*")]
    assert len(written) >= 2
    for path in written:  # the transcript and the pending changeset: valid UTF-8, valid JSON
        data = path.read_bytes().decode("utf-8")
        for line in data.splitlines() if path.suffix == ".jsonl" else [data]:
            json.loads(line)


# ------------------------------------------------------------------ property tests
#: Text with what breaks things mixed in: NUL, lone surrogates (hypothesis leaves these out by default), brackets.
HOSTILE_CHARS = st.sampled_from(["\x00", "\ud800", "\udfff", "\ud83d", "[", "{", '"', "\\"])
TEXT = st.text(alphabet=st.one_of(st.characters(), HOSTILE_CHARS))
NAMES = st.from_regex(r"[a-z0-9][a-z0-9-]{0,11}", fullmatch=True)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
KEYS = st.sampled_from(["path", "content", "reason", "query", "edits", "old", "new", "offset", "limit", "scope",
                        "new_path", "folder", "type"])
ARGS = st.dictionaries(KEYS | st.text(max_size=8), JSON | TEXT, max_size=5)
TOOLS = st.sampled_from(list(READ_TOOLS + PROPOSE_TOOLS) + ["no_such_tool"])
RELAXED = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                          HealthCheck.too_slow])


@RELAXED
@given(TEXT)
def test_decoding_any_text_returns_a_dict_or_a_tool_error(raw):
    try:
        assert isinstance(decode_arguments(raw), dict)
    except ToolArgError as exc:
        str(exc).encode("utf-8")


@RELAXED
@given(st.integers(min_value=0, max_value=3000), st.sampled_from(["[", "{\"a\":", "[{\"a\":"]))
def test_any_nesting_is_decoded_or_refused_never_raised(depth, opener):
    raw = opener * depth
    try:
        decode_arguments(raw)
    except ToolArgError:
        pass
    if depth > MAX_DEPTH:
        with pytest.raises(ToolArgError):
            decode_arguments(raw + "1" + "]" * depth)


def _accepted_text_is_clean(b: ToolBox) -> None:
    changeset = b.builder.build("query", "t")
    if changeset is None:
        return
    for change in changeset.files:
        for value in (change.path, change.new_text or ""):
            value.encode("utf-8")
            assert "\x00" not in value
    json.dumps(changeset.to_dict(), ensure_ascii=False).encode("utf-8")  # what the pending save writes


@RELAXED
@given(TOOLS, ARGS)
def test_no_arguments_make_a_tool_call_raise_and_accepted_text_is_clean(vault, name, args):
    b = box(vault)
    outcome = b.call(name, json.dumps(args))
    outcome.text.encode("utf-8")
    outcome.description.encode("utf-8")
    _accepted_text_is_clean(b)


@RELAXED
@given(TOOLS, TEXT)
def test_no_raw_text_makes_a_tool_call_raise(vault, name, raw):
    b = box(vault)
    outcome = b.call(name, raw)
    assert outcome.ok in (True, False)
    _accepted_text_is_clean(b)


@RELAXED
@given(TEXT, NAMES | TEXT, st.booleans())
def test_pages_proposed_with_any_text_are_refused_or_clean(vault, content, name, escaped):
    b = box(vault)
    args = {"path": f"wiki/prop/{name}.md", "content": content, "reason": "r"}
    # Both ways a model can send a lone surrogate: escaped (\ud800 in the JSON) or raw in the decoded stream.
    b.call("propose_page", json.dumps(args, ensure_ascii=escaped))
    _accepted_text_is_clean(b)


@RELAXED
@given(TEXT, TEXT)
def test_edits_with_any_text_are_refused_or_clean(vault, old, new):
    b = box(vault)
    b.call("propose_edit", json.dumps({"path": "wiki/characters/alice.md", "reason": "r",
                                       "edits": [{"old": "The heroine of the book" + old[:0], "new": new},
                                                 {"old": old, "new": "x"}]}))
    b.call("propose_edit", json.dumps({"path": "wiki/characters/alice.md", "reason": "r",
                                       "edits": [{"old": "The heroine of the book", "new": new}]}))
    _accepted_text_is_clean(b)


def test_a_tool_name_and_id_with_lone_surrogates_do_not_break_the_next_request(fake_llm, sample_vault):
    raw = ToolCalls([("se\ud800arch", {"query": "grin"}), ("read", {"path": "wiki/index.md"})])
    fake_llm.script(raw, text("Done."))
    out, err = io.StringIO(), io.StringIO()
    from wikitui.core.agent.headless import run_ask

    code = run_ask(Workspace.open(sample_vault), "Who grins?", out=out, err=err, client=fast_client())
    assert code == 0 and out.getvalue().startswith("Done."), err.getvalue()[-500:]
    results = [m for m in fake_llm.requests[1]["messages"] if m["role"] == "tool"]
    assert results[0]["content"].startswith("error: there is no tool 'se\ufffdarch'")
    assert results[1]["content"].startswith("wiki/index.md")


async def test_an_ingest_path_with_a_nul_is_one_clear_error(fake_llm, sample_vault):
    from wikitui.core.agent.events import AgentError
    from wikitui.core.agent.session import AgentSession

    v = Vault.open(sample_vault)
    events: list = []
    session = AgentSession(v, LinkGraph.load(v), None, load_settings(v), on_event=events.append)
    done = await session.ingest("raw/chapter-01\x00.md")
    assert done.failed and fake_llm.requests == []
    (err,) = [e for e in events if isinstance(e, AgentError)]
    assert err.exit_code == 2 and "\x00" not in err.message and "null byte" in err.message
