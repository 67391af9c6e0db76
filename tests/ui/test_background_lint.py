"""Background lint (DESIGN §11): after the configured idle time the workspace runs the semantic lint,
leaves its proposals pending with a notice, never applies, and runs once per idle period.

Time is the idle watcher's clock, moved by the test (no sleeping for minutes)."""

from __future__ import annotations

from tests.fakeserver import text, tool_call
from tests.ui.workspace_helpers import notices, wait_for, wait_ready, workspace
from wikitui.core.changes.pending import PendingStore
from wikitui.core.vault.layout import Vault


def content(root) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)}


def lint_script():
    return [
        tool_call("propose_edit", path="wiki/characters/dodo.md", reason="cross-reference",
                  edits=[{"old": "Its remedy is the Caucus-race.",
                          "new": "Its remedy is the [[nonsense-and-logic|Caucus-race]]."}]),
        text("Findings: the Dodo page should link the Caucus-race."),
    ]


async def test_a_background_lint_turn_leaves_a_pending_changeset_without_applying_it(fake_llm, sample_vault):
    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui/config.toml").write_text("[background]\nlint_after_idle_minutes = 5\n")
    before = content(sample_vault)
    fake_llm.script(*lint_script())
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_ready(pilot)
        idle = app.idle_lint
        now = [1000.0]
        idle.clock = lambda: now[0]
        idle.activity()
        now[0] += 299
        assert not idle.check()  # 4'59": not yet
        await pilot.press("down")  # a key: the idle period starts again
        now[0] += 299
        assert not idle.check()
        now[0] += 2
        assert idle.check()  # 5'01" since the last key
        await wait_for(pilot, lambda: idle.last is not None, "the background lint", timeout=30)

        (pending,) = PendingStore(Vault.open(sample_vault)).list()
        assert pending.op == "lint" and [f.path for f in pending.files] == ["wiki/characters/dodo.md"]
        assert content(sample_vault) == before  # never applied
        # A notice is a message the app handles after this frame: wait for it, do not race it.
        await wait_for(pilot, lambda: any(f"pending as {pending.id}" in n and "Nothing was applied" in n
                                          for n in notices(app)), "the notice")
        asked = fake_llm.prompt_texts()[0].lower()
        assert "lint" in asked or "health-check the wiki" in asked  # the lint task (full or compact prompt)
        assert not (sample_vault / ".wikitui/sessions").exists()  # the chat's sessions stay the person's

        requests = len(fake_llm.requests)
        now[0] += 3600
        assert not idle.check()  # at most once per idle period
        await pilot.press("down")
        now[0] += 301
        fake_llm.script(text("Nothing new."))
        assert idle.check()  # a new idle period, a new lint
        await wait_for(pilot, lambda: len(fake_llm.requests) > requests and not idle.running, "the second lint")


async def test_background_lint_is_off_by_default(fake_llm, sample_vault):
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_ready(pilot)
        idle = app.idle_lint
        idle.clock = lambda: 10.0 ** 9
        assert idle.seconds is None and not idle.check()
        assert fake_llm.requests == []


async def test_no_background_lint_while_a_turn_runs(fake_llm, sample_vault):
    from tests.fakeserver import hang

    (sample_vault / ".wikitui").mkdir(exist_ok=True)
    (sample_vault / ".wikitui/config.toml").write_text("[background]\nlint_after_idle_minutes = 5\n")
    fake_llm.script(hang(30, text("late answer")))
    app = workspace(sample_vault, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_ready(pilot)
        idle = app.idle_lint
        now = [1000.0]
        idle.clock = lambda: now[0]
        idle.activity()
        chat = app.chat
        chat.chat_input.focus()
        chat.chat_input.set_text("Who is always late?")
        await pilot.press("enter")
        await wait_for(pilot, lambda: chat.busy and fake_llm.requests, "the question to reach the model", 30)
        now[0] += 3600
        assert not idle.check()  # a turn is running: that is not idle
        assert idle.last_activity == now[0]  # and the idle period starts again from now
        chat.action_cancel()
        await wait_for(pilot, lambda: not chat.busy, "the cancelled turn to end", 30)
