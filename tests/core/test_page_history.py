"""A page's history (DESIGN §15, issue 27): versions from git or from wikitui's records, the page on a date,
the digest of what changed, restoring a version as a pending changeset, and search's ``since:``/``until:``."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest

from tests.core.changes_util import git, git_init, make_vault, page, read
from wikitui import cli
from wikitui.core.changes.builder import ChangesetBuilder
from wikitui.core.changes.undo import list_records
from wikitui.core.changes.versions import page_versions, propose_restore, version_at
from wikitui.core.base.errors import BadQuery
from wikitui.core.workspace import Workspace

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="the git CLI is not installed")

NOTES = page("Notes", "".join(f"Note {i}.\n" for i in range(1, 11)))
AFTER_CS1 = NOTES.replace("Note 5.", "Note five.")
AFTER_HUMAN = AFTER_CS1.replace("Note 9.", "Note nine, by hand.")
AFTER_CS2 = AFTER_HUMAN.replace("Note 7.", "Note seven.")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def apply_edit(ws: Workspace, old: str, new: str, *, model: str, title: str) -> str:
    """One agent changeset editing notes.md, applied through the workspace; its id."""
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.edit("notes.md", [{"old": old, "new": new}], "")
    cs = b.build("edit", title, model=model)
    ws.apply(cs)
    return cs.id


def at(monkeypatch, day: str, name: str = "Robin") -> None:
    """Git commits made from now on are dated ``day`` at noon (UTC) and authored by ``name``."""
    for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(var, f"{day}T12:00:00+00:00")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", name)
        monkeypatch.setenv(f"GIT_{role}_EMAIL", f"{name.split()[0].lower()}@example.com")


@pytest.fixture
def git_vault(tmp_path, monkeypatch):
    """notes.md committed on 2026-10-01; agent edits on 11-02 and 11-08, a person's own commit on 11-05."""
    at(monkeypatch, "2026-10-01", "Test")
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    git_init(root)
    ws = Workspace.open(root)
    at(monkeypatch, "2026-11-02")
    ids = [apply_edit(ws, "Note 5.", "Note five.", model="openai/first", title="Spell five")]
    at(monkeypatch, "2026-11-05", "Alice Human")
    (root / "wiki/notes.md").write_text(AFTER_HUMAN, encoding="utf-8")
    git(root, "commit", "-q", "-am", "my own fix")
    at(monkeypatch, "2026-11-08")
    ids.append(apply_edit(ws, "Note 7.", "Note seven.", model="openai/second", title="Spell seven"))
    for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.delenv(var)
    return root, ids


@needs_git
def test_history_from_git_lists_versions_newest_first_with_ids_authors_and_log_entries(git_vault, capsys):
    root, (cs1, cs2) = git_vault
    code, out, _ = run(capsys, "history", "Notes", "--vault", str(root), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["path"] == "wiki/notes.md"
    rows = data["versions"]
    assert [r["changeset"] for r in rows] == [cs2, None, cs1, None]
    assert [r["date"][:10] for r in rows] == ["2026-11-08", "2026-11-05", "2026-11-02", "2026-10-01"]
    assert [r["author"] for r in rows] == ["Robin", "Alice Human", "Robin", "Test"]
    assert [r["model"] for r in rows] == ["openai/second", None, "openai/first", None]
    assert rows[1]["title"] == "my own fix" and rows[1]["op"] is None
    assert rows[0]["log_entry"].endswith("edit | Spell seven") and rows[0]["log_entry"].startswith("## [")
    assert all(r["source"] == "git" for r in rows)
    code, out, _ = run(capsys, "history", "wiki/notes.md", "--vault", str(root))
    assert code == 0 and out.index("Spell seven") < out.index("my own fix") < out.index("Spell five")
    assert f"changeset {cs2}" in out and "Alice Human" in out


@needs_git
def test_show_at_a_date_gives_the_text_of_that_day_from_git(git_vault, capsys):
    root, _ids = git_vault
    for day, want in (("2026-10-15", NOTES), ("2026-11-02", AFTER_CS1), ("2026-11-06", AFTER_HUMAN),
                      ("2026-12-01", AFTER_CS2)):
        code, out, _ = run(capsys, "show", "Notes", "--at", day, "--vault", str(root))
        assert (code, out) == (0, want), day
    code, out, err = run(capsys, "show", "Notes", "--at", "2026-09-30", "--vault", str(root))
    assert code == 2 and out == ""
    assert err.strip() == "wikitui: error: wiki/notes.md did not exist on 2026-09-30"
    code, _, err = run(capsys, "show", "Notes", "--at", "someday", "--vault", str(root))
    assert code == 2 and "not a date" in err and len(err.strip().splitlines()) == 1


@needs_git
def test_uncommitted_edits_are_the_current_version(git_vault):
    root, _ids = git_vault
    (root / "wiki/notes.md").write_text(AFTER_CS2 + "Unsaved.\n", encoding="utf-8")
    versions = page_versions(Workspace.open(root).vault, "wiki/notes.md")
    assert versions[0].source == "disk" and versions[0].text.endswith("Unsaved.\n")
    assert versions[1].text == AFTER_CS2


@needs_git
def test_a_deleted_page_keeps_its_history_and_did_not_exist_after(git_vault, capsys, monkeypatch):
    root, _ids = git_vault
    at(monkeypatch, "2026-11-10")
    git(root, "rm", "-q", "wiki/notes.md")
    git(root, "commit", "-q", "-m", "drop the notes")
    code, out, _ = run(capsys, "history", "wiki/notes.md", "--vault", str(root), "--json")
    assert code == 0 and json.loads(out)["versions"][0]["deleted"] is True
    code, _, err = run(capsys, "show", "wiki/notes.md", "--at", "2026-11-11", "--vault", str(root))
    assert code == 2 and "did not exist on 2026-11-11" in err
    code, out, _ = run(capsys, "show", "wiki/notes.md", "--at", "2026-11-09", "--vault", str(root))
    assert (code, out) == (0, AFTER_CS2)


@needs_git
def test_restore_proposes_a_pending_changeset_that_brings_the_old_text_back(git_vault):
    root, (cs1, _cs2) = git_vault
    ws = Workspace.open(root)
    versions = page_versions(ws.vault, "wiki/notes.md")
    old = next(v for v in versions if v.changeset == cs1)
    restore = propose_restore(ws.vault, ws.require_graph(), ws.pending, "wiki/notes.md", old)
    assert read(root, "wiki/notes.md") == AFTER_CS2  # only proposed
    pending = ws.pending.load(restore.id)
    assert pending.op == "edit" and pending.title.startswith("restore version of 2026-11-02")
    (change,) = pending.files
    assert change.action == "edit" and change.reason == "restore version of 2026-11-02"
    assert change.new_text == AFTER_CS1
    patch = pending.to_patch()
    assert "-Note seven." in patch and "+Note 7." in patch and "-Note nine, by hand." in patch
    ws.apply(pending)
    assert read(root, "wiki/notes.md") == AFTER_CS1
    assert git(root, "log", "-1", "--format=%s") == f"wikitui: edit | {pending.title}\n"


# ----------------------------------------------------------------- without git
def date_records(root, days: list[str]) -> None:
    """Date the vault's apply records as if the applies happened on ``days`` (in order), at noon."""
    for (rel, data), day in zip(list_records(Workspace.open(root).vault), days):
        data["applied_at"] = f"{day}T12:00:00"
        if data.get("undone"):
            data["undone_at"] = f"{day}T18:00:00"
        (root / rel).write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def plain_vault(tmp_path):
    """No git: three agent edits of notes.md (11-02, 11-05, 11-08), the last undone the same day."""
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    ws = Workspace.open(root)
    ids = [apply_edit(ws, "Note 5.", "Note five.", model="openai/first", title="Spell five"),
           apply_edit(ws, "Note 9.", "Note nine, by hand.", model="openai/second", title="Nine"),
           apply_edit(ws, "Note 7.", "Note seven.", model="openai/third", title="Seven")]
    ws.undo()
    date_records(root, ["2026-11-02", "2026-11-05", "2026-11-08"])
    return root, ids


def test_history_without_git_comes_from_wikitui_records(plain_vault, capsys):
    root, (cs1, cs2, cs3) = plain_vault
    assert not (root / ".git").exists()
    code, out, _ = run(capsys, "history", "Notes", "--vault", str(root), "--json")
    assert code == 0
    rows = json.loads(out)["versions"]
    assert [(r["changeset"], r["op"]) for r in rows] == [(cs3, "undo"), (cs3, "edit"), (cs2, "edit"),
                                                         (cs1, "edit"), (None, None)]
    assert [r["date"] for r in rows] == ["2026-11-08T18:00:00", "2026-11-08T12:00:00", "2026-11-05T12:00:00",
                                         "2026-11-02T12:00:00", None]
    assert [r["model"] for r in rows[1:4]] == ["openai/third", "openai/second", "openai/first"]
    assert all(r["source"] == "records" for r in rows)
    assert rows[0]["log_entry"].endswith("undo | Seven") and rows[3]["log_entry"].endswith("edit | Spell five")
    versions = page_versions(Workspace.open(root).vault, "wiki/notes.md")
    assert [v.text for v in versions] == [AFTER_HUMAN, AFTER_CS2, AFTER_HUMAN, AFTER_CS1, NOTES]


def test_show_at_without_git_reads_the_records(plain_vault, capsys):
    root, _ids = plain_vault
    for day, want in (("2026-11-01", NOTES), ("2026-11-03", AFTER_CS1), ("2026-11-05", AFTER_HUMAN),
                      ("2026-11-08", AFTER_HUMAN)):
        code, out, _ = run(capsys, "show", "notes", "--at", day, "--vault", str(root))
        assert (code, out) == (0, want), day


def test_a_page_the_records_created_did_not_exist_before(tmp_path, capsys):
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    ws = Workspace.open(root)
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.new_page("fresh.md", page("Fresh", "New.\n"), "")
    ws.apply(b.build("edit", "Fresh page"))
    date_records(root, ["2026-11-04"])
    code, _, err = run(capsys, "show", "Fresh", "--at", "2026-11-03", "--vault", str(root))
    assert code == 2 and err.strip() == "wikitui: error: wiki/fresh.md did not exist on 2026-11-03"
    code, out, _ = run(capsys, "show", "Fresh", "--at", "2026-11-04", "--vault", str(root))
    assert code == 0 and out == page("Fresh", "New.\n")


def test_history_keep_prunes_the_oldest_records_and_undo_still_works(tmp_path):
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    (root / ".wikitui").mkdir(exist_ok=True)
    (root / ".wikitui/config.toml").write_text("history_keep = 2\n", encoding="utf-8")
    ws = Workspace.open(root)
    ids = [apply_edit(ws, f"Note {n}.", f"Note #{n}.", model="m", title=f"n{n}") for n in (1, 2, 3)]
    kept = [data["changeset"] for _rel, data in list_records(ws.vault)]
    assert kept == ids[1:]
    versions = page_versions(ws.vault, "wiki/notes.md")
    assert [v.changeset for v in versions] == [ids[2], ids[1], None]  # the earliest text kept: before ids[1]
    assert versions[-1].date is None and versions[-1].text == NOTES.replace("Note 1.", "Note #1.")
    ws.undo()
    assert read(root, "wiki/notes.md") == NOTES.replace("Note 1.", "Note #1.").replace("Note 2.", "Note #2.")


def test_records_are_kept_by_default(tmp_path):
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    ws = Workspace.open(root)
    for n in range(1, 6):
        apply_edit(ws, f"Note {n}.", f"Note #{n}.", model="m", title=f"n{n}")
    assert len(list_records(ws.vault)) == 5


def test_restore_without_git_goes_through_the_pending_store(plain_vault):
    root, (cs1, _cs2, _cs3) = plain_vault
    ws = Workspace.open(root)
    versions = page_versions(ws.vault, "wiki/notes.md")
    old = next(v for v in versions if v.changeset == cs1 and v.op == "edit")
    restore = propose_restore(ws.vault, ws.require_graph(), ws.pending, "wiki/notes.md", old)
    assert ws.pending.latest().id == restore.id
    assert restore.files[0].new_text == AFTER_CS1
    ws.apply(ws.pending.load(restore.id))
    assert read(root, "wiki/notes.md") == AFTER_CS1


def test_version_at_is_none_before_the_first_version():
    assert version_at([], dt.date(2026, 1, 1)) is None


# -------------------------------------------------------------------- changes
def test_changes_since_lists_log_entries_and_a_persons_commits(tmp_path, capsys, monkeypatch):
    root = make_vault(tmp_path / "v", {"notes.md": NOTES, "other.md": page("Other", "Other.\n")})
    if shutil.which("git"):
        git_init(root)
    ws = Workspace.open(root)
    cs = apply_edit(ws, "Note 5.", "Note five.", model="openai/first", title="Spell five")
    with (root / "wiki/log.md").open("a", encoding="utf-8") as fh:  # an old entry, out of range
        fh.write("\n## [2026-01-03] ingest | Ancient source\n\n- pages: [[wiki/other]]\n- changeset: cs-old\n")
    if shutil.which("git"):
        monkeypatch.setenv("GIT_AUTHOR_NAME", "Alice Human")
        monkeypatch.setenv("GIT_AUTHOR_EMAIL", "alice@example.com")
        (root / "wiki/other.md").write_text(page("Other", "Changed by hand.\n"), encoding="utf-8")
        (root / "raw/chapter-02.md").write_text("# Chapter 2\n", encoding="utf-8")
        git(root, "add", "-A")
        git(root, "-c", "user.name=Alice Human", "-c", "user.email=a@e", "commit", "-q", "-m", "my notes")
    code, out, _ = run(capsys, "changes", "--since", "7d", "--vault", str(root), "--json")
    assert code == 0
    data = json.loads(out)
    ours = next(c for c in data["changes"] if c["changeset"] == cs)
    assert ours["pages"] == ["wiki/notes.md"] and ours["model"] == "openai/first" and ours["op"] == "edit"
    assert "cs-old" not in out and "Ancient source" not in out
    if shutil.which("git"):
        assert ours["author"] == "wikitui"  # the repository has no identity: wikitui's own
        human = next(c for c in data["changes"] if c["op"] == "commit")
        assert human["author"] == "Alice Human" and human["pages"] == ["wiki/other.md"]
        assert human["sources"] == ["raw/chapter-02.md"]
        assert data["changes"][0] is not None and data["pages"] == ["wiki/notes.md", "wiki/other.md"]
        assert "Alice Human" in data["authors"]
    code, out, _ = run(capsys, "changes", "--since", "2026-01-01", "--vault", str(root), "--json")
    data = json.loads(out)
    assert "Ancient source" in data["sources"] and "wiki/other.md" in data["pages"]
    code, out, _ = run(capsys, "changes", "--since", "2026-01-01", "--vault", str(root))
    assert code == 0 and "Spell five" in out and "Ancient source" in out


# --------------------------------------------------------------------- search
def test_search_since_and_until_filter_by_the_pages_updated_date(tmp_path, capsys):
    root = make_vault(tmp_path / "v", {
        "old.md": page("Old rabbit", "A rabbit long ago.\n", updated="2026-10-01"),
        "mid.md": page("Mid rabbit", "A rabbit in November.\n", updated="2026-11-03"),
        "new.md": page("New rabbit", "A rabbit lately.\n", updated="2026-11-20"),
        "undated.md": page("Undated rabbit", "A rabbit with no date.\n"),
    })
    ws = Workspace.open(root)
    ws.update_index()

    def paths(query: str) -> list[str]:
        return sorted(h.path for h in ws.index.search(query, limit=10))

    assert paths("rabbit") == ["wiki/mid.md", "wiki/new.md", "wiki/old.md", "wiki/undated.md"]
    assert paths("rabbit since:2026-11-01") == ["wiki/mid.md", "wiki/new.md"]
    assert paths("rabbit until:2026-11-03") == ["wiki/mid.md", "wiki/old.md"]
    assert paths("since:2026-11-01 until:2026-11-10 rabbit") == ["wiki/mid.md"]
    assert [h.path for h in ws.index.search("since:2026-10-01")] == ["wiki/new.md", "wiki/mid.md", "wiki/old.md"]
    assert ws.index.search("rabbit since:2026-11-01", scope="raw") == []
    with pytest.raises(BadQuery, match="since:"):
        ws.index.search("rabbit since:yesteryear")
    code, out, _ = run(capsys, "search", "rabbit until:2026-10-31", "--vault", str(root), "--json")
    assert code == 0 and [h["path"] for h in json.loads(out)] == ["wiki/old.md"]


# ------------------------------------------------------------------ the agent's tool
@needs_git
def test_the_agents_history_tool_lists_versions_and_log_entries_read_only(git_vault):
    from wikitui.core.agent.tools import READ_TOOLS, PROPOSE_TOOLS, ToolBox

    root, (cs1, cs2) = git_vault
    assert "history" in READ_TOOLS and "history" not in PROPOSE_TOOLS
    ws = Workspace.open(root)
    box = ToolBox(ws.vault, ws.require_graph())
    before = read(root, "wiki/notes.md")
    out = box.call("history", json.dumps({"path": "Notes"}))
    assert out.ok, out.text
    lines = out.text.splitlines()
    assert lines[0] == "wiki/notes.md: 4 versions, newest first"
    assert f"changeset {cs2}" in lines[1] and "Robin · openai/second" in lines[1]
    assert "my own fix" in lines[2] and "Alice Human" in lines[2]
    assert f"changeset {cs1}" in lines[3]
    log_at = lines.index("Log entries naming it (2):")
    assert lines[log_at + 1].endswith(f"edit | Spell seven (changeset {cs2})")
    then = box.call("history", json.dumps({"path": "wiki/notes.md", "at": "2026-11-03"}))
    assert then.ok and "Note five." in then.text and "Note 7." in then.text and "by hand" not in then.text
    missing = box.call("history", json.dumps({"path": "Notes", "at": "2026-09-01"}))
    assert not missing.ok and "did not exist on 2026-09-01" in missing.text
    assert read(root, "wiki/notes.md") == before


def test_a_page_with_no_history_says_where_its_history_starts(tmp_path, capsys):
    root = make_vault(tmp_path / "v", {"notes.md": NOTES})
    code, _, err = run(capsys, "show", "Notes", "--at", "2000-01-01", "--vault", str(root))
    assert code == 2 and "no version of wiki/notes.md is known from 2000-01-01" in err
    code, out, _ = run(capsys, "show", "Notes", "--at", "today", "--vault", str(root))
    assert (code, out) == (0, NOTES)
    code, out, _ = run(capsys, "history", "Notes", "--vault", str(root), "--json")
    assert [v["source"] for v in json.loads(out)["versions"]] == ["disk"]


def test_date_terms_inside_a_phrase_are_words():
    from wikitui.core.search.date_filter import split_dates

    rest, dates = split_dates('"since: then" rabbit until:2026-11-02')
    assert rest == '"since: then" rabbit' and dates.since is None and dates.until == dt.date(2026, 11, 2)
    rest, dates = split_dates("since:7d")
    assert rest == "" and dates.since == dt.date.today() - dt.timedelta(days=7)


@needs_git
def test_odd_file_names_are_literal_paths_to_git(tmp_path, monkeypatch):
    at(monkeypatch, "2026-10-01", "Test")
    odd = {"odd [1].md": page("Odd", "Bracketed.\n"), "odd 1.md": page("Plain", "Not it.\n"),
           "line\nbreak.md": page("Broken", "A line break in the name.\n")}
    root = make_vault(tmp_path / "v", odd)
    git_init(root)
    at(monkeypatch, "2026-11-02")
    ws = Workspace.open(root)
    b = ChangesetBuilder(ws.vault, ws.require_graph())
    b.edit("odd [1].md", [{"old": "Bracketed.", "new": "Bracketed, edited."}], "")
    ws.apply(b.build("edit", "Odd names", model="m"))
    # The agent may not name or edit a page with a control character in its path (DESIGN §8); a person may.
    (root / "wiki/line\nbreak.md").write_text(page("Broken", "One line break in the name.\n"), encoding="utf-8")
    git(root, "commit", "-qam", "a person's edit")
    versions = page_versions(ws.vault, "wiki/odd [1].md")
    assert [v.text for v in versions] == [page("Odd", "Bracketed, edited.\n"), page("Odd", "Bracketed.\n")]
    versions = page_versions(ws.vault, "wiki/line\nbreak.md")
    assert [v.text for v in versions] == [page("Broken", "One line break in the name.\n"),
                                          page("Broken", "A line break in the name.\n")]
