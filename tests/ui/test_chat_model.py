"""``/model`` in the chat: with no name it lists the model in use, the configured one and those used lately."""

from __future__ import annotations

import json

from tests.fakeserver import text
from tests.ui.test_chat import ChatHost, notes, send, turn


async def test_model_lists_the_configured_model_and_the_ones_used_lately(fake_llm, sample_vault):
    fake_llm.script(text("Alice is the heroine [[Alice]]."), text("Still Alice."))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.pane
        await turn(pilot, "Who is Alice?")
        await send(pilot, "/model openai/other-model")
        await turn(pilot, "And now?")
        await send(pilot, "/model")
        await pilot.pause()
        listing = notes(pane, "note")[-1]
    assert listing.splitlines() == [
        "Model: openai/other-model (from /model)",
        "Configured: openai/fake-model (from WIKITUI_MODEL)",
        "Used lately in this vault:",
        "  openai/other-model",
        "  openai/fake-model",
        "/model provider/name switches for this session.",
    ]
    saved = json.loads((sample_vault / ".wikitui" / "models.json").read_text())  # the vault's state, not $HOME
    assert saved == {"recent": ["openai/other-model", "openai/fake-model"]}

    app = ChatHost(sample_vault)  # the next start remembers them
    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "/model")
        await pilot.pause()
        listing = notes(app.pane, "note")[-1]
    assert listing.splitlines()[0] == "Model: openai/fake-model (from WIKITUI_MODEL)"
    assert "Configured:" not in listing  # the model in use is the configured one
    assert "  openai/other-model\n  openai/fake-model" in listing


async def test_a_small_window_says_the_compact_prompt_in_a_quiet_line(fake_llm, sample_vault):
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui" / "config.toml").write_text("context_tokens = 2048\n")
    fake_llm.context_limit = 2048
    fake_llm.script(text("Alice is the heroine [[Alice]]."), text("Still Alice."))
    app = ChatHost(sample_vault)
    async with app.run_test(size=(100, 40)) as pilot:
        await turn(pilot, "Who is Alice?")
        await turn(pilot, "And now?")
        quiet = [n for n in notes(app.pane, "note") if n.startswith("compact prompt")]
    assert quiet == ["compact prompt for a 2,048-token window (tools: read, search, propose_edit, propose_page)"]
    assert len(fake_llm.requests) == 2  # both answered; said once
