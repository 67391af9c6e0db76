"""The eval's scorer, task by task: a good trajectory passes, a bad one fails with the right why.

Each task runs through the real agent loop and litellm against the fake OpenAI-compatible
server, in a copy of the planted sample vault, exactly as ``wikitui eval`` runs it.
"""

from __future__ import annotations

import pytest

from tests.core import eval_scripts as scripts
from wikitui.core.agent.llm import LLMClient
from wikitui.core.config.settings import load_settings
from wikitui.core.eval import planted
from wikitui.core.eval.fixture import prepare_base, prepare_world
from wikitui.core.eval.runner import passed_why, run_task
from wikitui.core.eval.tasks import TASKS

BY_NAME = {t.name: t for t in TASKS}
BAD_CASES = [(name, i) for name, cases in scripts.BAD.items() for i in range(len(cases))]


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    """The base vaults, prepared once for the module when a test first needs each (each task copies one)."""
    made: dict[str, object] = {}

    def get(vault: str):
        if vault not in made:
            prepare = {"alice": prepare_base, "world": prepare_world}[vault]
            made[vault] = prepare(tmp_path_factory.mktemp("eval") / vault)
        return made[vault]
    return get


@pytest.fixture(scope="module")
def base(bases):
    """The planted Alice base vault."""
    return bases("alice")


async def run(fake_llm, bases, tmp_path, name, replies):
    base = bases(BY_NAME[name].vault)
    fake_llm.script(*replies)
    settings = load_settings()

    async def no_wait(_):
        return None

    client = LLMClient(settings, base_delay=0, sleep=no_wait)
    return await run_task(BY_NAME[name], base, tmp_path, settings, client, timeout=120)


def test_every_task_has_a_good_and_a_bad_trajectory():
    assert len(TASKS) >= 15
    assert {t.group for t in TASKS} == {"ingest", "ask", "lint", "safety", "economy", "world", "evidence",
                                        "long-source"}
    assert set(scripts.GOOD) == set(BY_NAME) == set(scripts.BAD)


@pytest.mark.parametrize("name", sorted(scripts.GOOD))
async def test_a_good_trajectory_passes(fake_llm, bases, tmp_path, name):
    result, outcome = await run(fake_llm, bases, tmp_path, name, scripts.GOOD[name])
    assert result.passed, result.why
    assert result.why == passed_why(len(BY_NAME[name].checks))
    assert fake_llm.remaining == 0  # the whole trajectory was played: the checks saw all of it
    assert result.tokens > 0 and isinstance(result.seconds, float)  # recorded (its value is the clock's)
    assert outcome is not None and outcome.requests == len(fake_llm.requests)


@pytest.mark.parametrize(("name", "case"), BAD_CASES)
async def test_a_bad_trajectory_fails_with_the_right_why(fake_llm, bases, tmp_path, name, case):
    replies, whys = scripts.BAD[name][case]
    result, outcome = await run(fake_llm, bases, tmp_path, name, replies)
    if name == "safety-locked-page" and outcome is not None:
        refused = [c for c in outcome.calls if c.name == "propose_edit" and planted.LOCKED_PAGE in c.paths()]
        if refused and not refused[0].ok:
            # The tools enforce `llm: locked` (DESIGN §11): the disk check holds by construction then.
            assert outcome.before[planted.LOCKED_PAGE] == outcome.after[planted.LOCKED_PAGE]
            return
    assert not result.passed
    for why in whys:
        assert why in result.why, result.why


async def test_the_applied_changes_stay_in_the_task_copy(fake_llm, bases, base, tmp_path):
    before = {p.relative_to(base).as_posix(): p.read_bytes() for p in base.rglob("*") if p.is_file()
              and ".wikitui" not in p.parts}
    result, outcome = await run(fake_llm, bases, tmp_path, "ingest-source", scripts.GOOD["ingest-source"])
    assert result.passed, result.why
    assert outcome.vault.root == (tmp_path / "ingest-source").resolve()
    assert "[[Notes on the Real People behind Wonderland]]" in (tmp_path / "ingest-source" / scripts.DODO).read_text()
    after = {p.relative_to(base).as_posix(): p.read_bytes() for p in base.rglob("*") if p.is_file()
             and ".wikitui" not in p.parts}
    assert after == before  # the base every task copies is never written


async def test_the_planted_problems_are_in_the_copy_not_in_the_sample(base):
    from tests.conftest import SAMPLE

    assert "[[Mock Turtel]]" in (base / planted.BROKEN_LINK_PAGE).read_text()
    assert "[[Mock Turtel]]" not in (SAMPLE / planted.BROKEN_LINK_PAGE).read_text()
    assert "llm: locked" in (base / planted.LOCKED_PAGE).read_text()
    assert "llm: locked" not in (SAMPLE / planted.LOCKED_PAGE).read_text()
    assert (base / planted.ORPHAN_PAGE).exists() and not (SAMPLE / planted.ORPHAN_PAGE).exists()
    assert "four inches;" in (base / planted.CONTRADICTION_PAGE).read_text()
    assert "[[The Treacle-Well]]" in (base / "wiki/index.md").read_text()  # listed, as after any apply
    for rel in planted.SOURCES:
        assert not (base / rel).exists() and not (SAMPLE / rel).exists()  # added per task only
