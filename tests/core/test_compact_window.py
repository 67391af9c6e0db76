"""Small windows (DESIGN §8): the compact instructions and four tools let a 2k model answer and a 4k one ingest.

Headless ``ask`` and ``ingest`` run against the fake server, which enforces the window as
llama.cpp does; each request's tools and size are read from what the server received.
"""

from __future__ import annotations

import io

from tests.core.test_headless import ingest_script
from tests.fakeserver import text, tool_call
from wikitui.core.agent.headless import run_ask, run_ingest
from wikitui.core.agent.llm import LLMClient
from wikitui.core.agent.session import AgentSession
from wikitui.core.agent.tools.compact import COMPACT_TOOLS
from wikitui.core.config.settings import load_settings
from wikitui.core.vault.graph import LinkGraph
from wikitui.core.vault.layout import Vault
from wikitui.core.workspace import Workspace


def configure(root, *lines: str) -> None:
    (root / ".wikitui").mkdir(exist_ok=True)
    (root / ".wikitui" / "config.toml").write_text("".join(line + "\n" for line in lines))


def run(fn, root, *args) -> tuple[int, str, str]:
    async def no_wait(_):
        return None

    out, err = io.StringIO(), io.StringIO()
    code = fn(Workspace.open(root), *args, out=out, err=err,
              client=LLMClient(load_settings(Vault.open(root)), base_delay=0, sleep=no_wait))
    return code, out.getvalue(), err.getvalue()


def tool_names(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def test_ask_works_in_a_2048_token_window(fake_llm, sample_vault):
    configure(sample_vault, "context_tokens = 2048")
    fake_llm.context_limit = 2048  # a longer request gets llama.cpp's refusal
    fake_llm.script(tool_call("search", query="Alice"), tool_call("read", path="wiki/characters/alice.md"),
                    text("Alice is the heroine [[Alice]]."))
    code, out, err = run(run_ask, sample_vault, "Who is Alice?")
    assert code == 0, err
    assert out.startswith("Alice is the heroine [[Alice]].")
    assert err.count("compact prompt for a 2,048-token window") == 1  # said once, on stderr
    first = fake_llm.requests[0]
    assert tool_names(first) == list(COMPACT_TOOLS) == ["read", "search", "propose_edit", "propose_page"]
    assert fake_llm.count_tokens(first) <= 2048 - 2048 // 8  # an eighth kept for the answer
    system = first["messages"][0]["content"]
    assert "## WIKI.md" in system and "is cut here" in system  # the schema and index trimmed to fit
    assert all(fake_llm.count_tokens(r) <= 2048 for r in fake_llm.requests)
    assert all(tool_names(r) == list(COMPACT_TOOLS) for r in fake_llm.requests)


def test_ingest_works_in_a_4096_token_window(fake_llm, sample_vault):
    configure(sample_vault, "context_tokens = 4096")
    fake_llm.context_limit = 4096
    fake_llm.script(*ingest_script())
    code, out, err = run(run_ingest, sample_vault, "raw/chapter-03.md")
    assert code == 0, err
    assert "+++ b/wiki/themes/caucus-race.md" in out and "is pending" in err
    assert err.count("compact prompt for a 4,096-token window") == 1  # once for both phases
    assert len(fake_llm.requests) == 4
    assert all(tool_names(r) == list(COMPACT_TOOLS) for r in fake_llm.requests)
    assert fake_llm.count_tokens(fake_llm.requests[0]) <= 4096 - 512
    assert all(fake_llm.count_tokens(r) <= 4096 for r in fake_llm.requests)
    plan, write = fake_llm.requests[0]["messages"][0]["content"], fake_llm.requests[2]["messages"][0]["content"]
    assert "PLAN phase" in plan and "WRITE phase" in write


def test_a_window_too_small_even_for_the_compact_set_is_refused_clearly(fake_llm, sample_vault):
    configure(sample_vault, "context_tokens = 800")
    code, out, err = run(run_ask, sample_vault, "Who is Alice?")
    assert (code, out, fake_llm.requests) == (3, "", [])
    assert ("\nwikitui: openai/fake-model's context window of 800 tokens (context_tokens in the config) cannot "
            "hold this request: wikitui's compact instructions take ") in err
    assert "the tool schemas" in err and "set context_tokens in .wikitui/config.toml" in err


def test_a_large_window_keeps_the_full_set(fake_llm, sample_vault):
    configure(sample_vault, "context_tokens = 32768")
    fake_llm.script(text("Alice is the heroine [[Alice]]."))
    code, _out, err = run(run_ask, sample_vault, "Who is Alice?")
    assert code == 0, err
    assert "compact prompt" not in err
    names = tool_names(fake_llm.requests[0])
    assert len(names) == 11 and "list_pages" in names and "history" in names and "propose_merge" in names


def test_compact_can_be_forced_either_way(fake_llm, sample_vault):
    configure(sample_vault, "context_tokens = 32768", "compact = true")
    fake_llm.script(text("Alice is the heroine [[Alice]]."))
    code, _out, err = run(run_ask, sample_vault, "Who is Alice?")
    assert code == 0 and "compact prompt for a 32,768-token window" in err
    assert tool_names(fake_llm.requests[0]) == list(COMPACT_TOOLS)
    configure(sample_vault, "context_tokens = 2048", "compact = false")
    code, _out, err = run(run_ask, sample_vault, "Who is Alice?")
    assert code == 3 and "cannot hold this request: wikitui's instructions take" in err
    assert len(fake_llm.requests) == 1  # the refusal came before any request


def test_the_compact_key_is_read_and_checked(sample_vault):
    for value, expected in (('"auto"', None), ("true", True), ("false", False)):
        configure(sample_vault, f"compact = {value}")
        settings = load_settings(Vault.open(sample_vault))
        assert settings.compact is expected and not settings.warnings
    configure(sample_vault, 'compact = "sometimes"')
    settings = load_settings(Vault.open(sample_vault))
    assert settings.compact is None and 'compact must be true, false or "auto"' in settings.warnings[0]


async def test_lint_has_a_compact_pass_too(fake_llm, sample_vault):
    configure(sample_vault, "context_tokens = 2048")
    fake_llm.context_limit = 2048
    fake_llm.script(text("Findings: [[Lobster Quadrille]] is a broken link."))
    vault = Vault.open(sample_vault)
    settings = load_settings(vault)
    session = AgentSession(vault, LinkGraph.load(vault), None, settings, client=LLMClient(settings))
    done = await session.lint()
    assert not done.failed
    (request,) = fake_llm.requests
    assert tool_names(request) == list(COMPACT_TOOLS) and fake_llm.count_tokens(request) <= 2048 - 256
    system = request["messages"][0]["content"]
    assert "Task: a health check" in system and "broken-link wiki/characters/mock-turtle.md:18" in system
