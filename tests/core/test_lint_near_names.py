"""Near-duplicates that are not (issue 24.8): a plural made apart on purpose, short names a letter
apart, a page and its translation. The true ones stay: a plural whose body repeats the other's,
a spelling variant, two copies in one language."""

from __future__ import annotations

from pathlib import Path

from tests.core.test_lint_schema import lint, write
from wikitui.core.vault.duplicates import near_duplicates, page_language, same_subject
from wikitui.core.vault.text_facts import shingle_sample

def body(word: str) -> str:
    """A body long enough to compare (its 5-word shingles sampled), sharing nothing with another word's."""
    return " ".join(f"{word}{i} pane{i}" for i in range(150))


SHARED = body("layout")


def pairs(names: dict[str, str], bodies: dict[str, str] | None = None,
          languages: dict[str, str | None] | None = None) -> list[tuple[str, str]]:
    bodies = bodies or {}
    shingles = {p: shingle_sample(bodies.get(p, "")) for p in names}
    found = near_duplicates({p: [n] for p, n in names.items()}, shingles, languages=languages)
    return [(d.a, d.b) for d in found]


def test_a_plural_on_another_page_is_not_a_near_duplicate_unless_the_bodies_overlap():
    names = {"Workspace.md": "Workspace", "Workspaces.md": "Workspaces",
             "Local vault.md": "Local vault", "Local vaults.md": "Local vaults",
             "Category.md": "Category", "Categories.md": "Categories"}
    apart = {page: body(f"w{n}x") for n, page in enumerate(names)}
    assert pairs(names, apart) == []
    assert pairs(names) == []  # stubs: nothing to tell them apart by, nor together
    # The same text under the plural: the same subject, found.
    alike = dict(apart, **{"Workspaces.md": apart["Workspace.md"] + " one more line",
                           "Categories.md": apart["Category.md"]})
    found = near_duplicates({p: [n] for p, n in names.items()},
                            {p: shingle_sample(alike[p]) for p in names})
    assert [(d.a, d.b) for d in found] == [("Categories.md", "Category.md"), ("Workspace.md", "Workspaces.md")]
    assert "one word and its plural, and the bodies share about" in found[1].why


def test_short_names_a_letter_or_two_apart_are_two_names():
    assert pairs({"a.md": "SkillX", "b.md": "SKILL"}) == []
    assert pairs({"a.md": "systemd", "b.md": "System"}) == []
    assert pairs({"a.md": "Vim", "b.md": "Vimrc"}) == []
    # A spelling inside a word, or a long word's ending, is still near-equal.
    assert pairs({"a.md": "Colour Theory", "b.md": "Color Theory"}) == [("a.md", "b.md")]
    assert pairs({"a.md": "Arbeitslohn", "b.md": "Arbeitslöhne"}) == [("a.md", "b.md")]
    # The same name in another case is duplicate-title's, not this check's.
    assert pairs({"a.md": "SKILL", "b.md": "Skill"}) == []


def test_languages_by_field_or_folder():
    assert page_language("content/en/concepts/x.md", {}) == "en"
    assert page_language("docs/pt-BR/x.md", None) == "pt-br"
    assert page_language("notes/x.md", {"lang": "RU"}) == "ru"
    assert page_language("ru/x.md", {"language": "en"}) == "en"  # the page says best
    assert page_language("ai/x.md", {}) is None  # not a language's code: a folder
    assert page_language("en.md", {}) is None


def test_a_page_and_its_translation_are_not_near_duplicates():
    names = {"en/Workspace.md": "Workspace", "ru/Workspace.md": "Workspace layouts",
             "notes/a.md": "Transformer", "notes/b.md": "Transformers"}
    bodies = {"en/Workspace.md": SHARED, "ru/Workspace.md": SHARED, "notes/a.md": body("t"), "notes/b.md": body("t")}
    languages = {"en/Workspace.md": "en", "ru/Workspace.md": "ru", "notes/a.md": "en", "notes/b.md": "de"}
    assert pairs(names, bodies, languages) == []
    # Without the languages, the same bodies are near-duplicates.
    assert pairs(names, bodies) == [("en/Workspace.md", "ru/Workspace.md"), ("notes/a.md", "notes/b.md")]


def test_lint_on_a_bilingual_vault_keeps_the_translation_and_finds_the_copy(tmp_path: Path):
    page = "---\ntitle: {title}\n---\n" + SHARED + " [[{link}]]\n"
    root = write(tmp_path, {
        ".obsidian/app.json": "{}",
        # A page not translated yet: the RU copy holds the EN text, in its parallel folder.
        "en/Sync/Workspace.md": page.format(title="Workspace", link="Home"),
        "ru/Sync/Workspace.md": page.format(title="Рабочее пространство", link="Home"),
        "Home.md": "[[en/Sync/Workspace]] [[ru/Sync/Workspace]] [[en/Sync/Copy]]\n",
    })
    assert [p for p in lint(root).problems if p.check == "near-duplicate"] == []
    # A second English copy is a true near-duplicate of both the English page and, by text, nothing else.
    write(root, {"en/Sync/Copy.md": page.format(title="Workspace copy", link="Home")})
    found = sorted((p.path, p.target) for p in lint(root).problems if p.check == "near-duplicate")
    assert found == [("en/Sync/Copy.md", "en/Sync/Workspace.md"), ("en/Sync/Workspace.md", "en/Sync/Copy.md")]


def test_a_new_pages_plural_is_still_offered_the_existing_page_before_it_is_proposed():
    # Dedup as it goes: a new page has no body yet to tell it apart by, so its plural is worth a look.
    existing = {"wiki/workspace.md": ["Workspace"], "wiki/skill.md": ["SKILL"]}
    assert same_subject(["Workspaces"], existing) == [("wiki/workspace.md", "Workspace")]
    assert same_subject(["SkillX"], existing) == []
