"""The compact tool set for small context windows: ``read``, ``search``, ``propose_edit``, ``propose_page``.

A 2,048-token local model cannot carry the ten full schemas (about 1,800 tokens). These
are the same four tools, with the same names, arguments and checks (a call runs the
registered function), described in a line each: the schemas the model sees shrink,
the contract does not. Optional arguments keep their type and default; only the
required ones keep a description.
"""

from __future__ import annotations

from wikitui.core.agent.toolschema import function_schema

#: The tools of the compact set, in the order the model sees them.
COMPACT_TOOLS = ("read", "search", "propose_edit", "propose_page")

#: Each tool's one-line description and the descriptions its required arguments keep.
_SHORT: dict[str, tuple[str, dict[str, str]]] = {
    "read": ("Read a page or raw source (numbered lines; read again with the offset it gives for more).",
             {"path": "Path, page title or alias."}),
    "search": ("Full-text search of pages and sources. Use a few keywords.", {"query": "Keywords."}),
    "propose_edit": ("Propose edits to a page: each old is exact current text occurring once; reason: one line.",
                     {}),
    "propose_page": ("Propose a new page (or a whole rewrite), YAML frontmatter included; reason: one line.",
                     {"path": "e.g. wiki/concepts/x.md."}),
}


def compact_schema(function) -> dict:
    """The schema of a registered tool with the compact set's short descriptions."""
    schema = function_schema(function)
    fn = schema["function"]
    description, arg_docs = _SHORT[fn["name"]]
    fn["description"] = description
    for name, prop in fn["parameters"]["properties"].items():
        prop.pop("description", None)
        if name in arg_docs:
            prop["description"] = arg_docs[name]
        if prop.get("type") == "array" and prop["items"].get("type") == "object":
            prop["items"].pop("additionalProperties", None)  # the checks refuse other keys all the same
    return schema
