"""What the agent is told about answering with a table, a chart or a slide deck (DESIGN §9, issue 12 point 6)."""

from __future__ import annotations

from tests.core.test_session import Chat, sent
from tests.fakeserver import text
from wikitui.core.vault.create import init_vault


async def test_an_ask_turn_tells_the_model_when_and_how_to_make_charts_and_decks(fake_llm, sample_vault):
    fake_llm.script(text("Alice is the heroine."))
    chat = Chat(sample_vault)
    await chat.session.ask("Who is Alice?")
    prompt = "\n".join(m["content"] for m in sent(fake_llm, 0) if m["role"] == "system")
    assert "propose_chart" in prompt and "never write a script" in prompt
    assert "matplotlib script" not in prompt  # the old advice: a chart was a script
    assert "![[assets/NAME.png]]" in prompt  # how a page embeds it
    assert "marp: true" in prompt and "`---`" in prompt  # how a deck is written
    assert "A table when" in prompt
    tools = {t["function"]["name"] for t in fake_llm.requests[0]["tools"]}
    assert "propose_chart" in tools


def test_the_default_wiki_md_says_charts_go_through_propose_chart(tmp_path):
    init_vault(tmp_path / "v")
    schema = (tmp_path / "v" / "WIKI.md").read_text(encoding="utf-8")
    assert "## Tables, charts and slide decks" in schema
    assert "propose_chart(path, spec, reason)" in schema and "never write a script" in schema
    assert "matplotlib script" not in schema
    assert "`![[assets/<name>.png]]`" in schema and "`marp: true`" in schema
