"""JSON schemas from plain documented functions, and argument checking against them.

simonw/llm's pattern: a tool is an ordinary method whose signature gives the
parameters and whose Google-style docstring gives the descriptions, so the schema
the model sees can never drift from the code that runs. :func:`check_arguments`
validates what the model sent against the same signature and returns a message the
model can act on instead of raising into the agent loop.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from typing import Any, Callable, Literal, get_args, get_origin

from wikitui.core.agent.argcheck import ToolArgError, check_strings, decode_arguments, decode_value, display

__all__ = ["ToolArgError", "check_arguments", "function_schema", "parse_arguments", "type_schema"]

_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__annotations__") and hasattr(tp, "__total__")


def type_schema(tp: Any, *, nested: bool = False) -> dict:
    """The JSON schema of a Python annotation (str, int, float, bool, their unions, Literal, list[X], TypedDict).

    A TypedDict says ``additionalProperties: false``; one nested in another (an edit's evidence items) leaves it
    out, as the compact schemas do: the checks refuse other keys all the same, and each says it in tokens the
    window has to hold.
    """
    if tp in _SIMPLE:
        return {"type": _SIMPLE[tp]}
    origin = get_origin(tp)
    if origin in (typing.Union, types.UnionType) and all(a in _SIMPLE for a in get_args(tp)):
        # e.g. str | float: any of those JSON types; the tool checks the values itself
        return {"type": [_SIMPLE[a] for a in get_args(tp)]}
    if origin is Literal:
        values = list(get_args(tp))
        return {"type": _SIMPLE[type(values[0])], "enum": values}
    if origin is list:
        (item,) = get_args(tp) or (str,)
        return {"type": "array", "items": type_schema(item, nested=nested)}
    if _is_typeddict(tp):
        hints = typing.get_type_hints(tp)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {k: type_schema(v, nested=True) for k, v in hints.items()},
            "required": sorted(tp.__required_keys__),
        }
        if not nested:
            schema["additionalProperties"] = False
        return schema
    raise TypeError(f"no JSON schema for {tp!r}")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """(description, {arg: description}) from a Google-style docstring."""
    desc_lines: list[str] = []
    args: dict[str, str] = {}
    section = None
    current = None
    for line in doc.splitlines():
        stripped = line.strip()
        if re.fullmatch(r"(Args|Arguments|Returns|Raises|Yields|Examples?):", stripped):
            section = stripped[:-1]
            current = None
            continue
        if section is None:
            desc_lines.append(line)
        elif section in ("Args", "Arguments") and stripped:
            m = re.match(r"(\w+)(?:\s*\([^)]*\))?:\s*(.*)", stripped)
            if m and line.startswith(" " * 4) and not line.startswith(" " * 8):
                current = m.group(1)
                args[current] = m.group(2)
            elif current:
                args[current] += " " + stripped
    description = re.sub(r"\s*\n\s*", " ", "\n".join(desc_lines).strip())
    return description, args


def function_schema(fn: Callable) -> dict:
    """The OpenAI ``tools`` entry for a documented function, a bound method or a registered tool (``box`` first)."""
    sig = inspect.signature(fn)
    hints = typing.get_type_hints(fn)
    description, arg_docs = parse_docstring(inspect.getdoc(fn) or "")
    properties: dict[str, dict] = {}
    required: list[str] = []
    for name, param in sig.parameters.items():
        if name in ("self", "box"):  # a method's instance, a registered tool's tool box: not the model's
            continue
        hint = hints[name]
        optional = _without_none(hint)
        if optional is not None and param.default is None:  # `X | None = None`: an optional X, no default shown
            hint = optional
        schema = dict(type_schema(hint))
        if name in arg_docs:
            schema["description"] = arg_docs[name]
        if param.default is inspect.Parameter.empty:
            required.append(name)
        elif param.default is not None:
            schema["default"] = param.default
        properties[name] = schema
    return {
        "type": "function",
        "function": {
            "name": fn.__name__,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def _without_none(tp: Any) -> Any:
    """``X`` of an annotation ``X | None`` (None for any other annotation)."""
    if get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if len(args) == 1 and len(get_args(tp)) == 2:
            return args[0]
    return None


def _coerce(value: Any, schema: dict, where: str) -> Any:
    kind = schema.get("type")
    if "enum" in schema:
        if isinstance(value, str):
            for option in schema["enum"]:
                if value.strip().lower() == str(option).lower():
                    return option
        raise ToolArgError(f"{where} must be one of {', '.join(map(repr, schema['enum']))}, not {_shown(value)}")
    if kind == "string":
        if isinstance(value, str):
            return value
        raise ToolArgError(f"{where} must be a string, not {type(value).__name__}")
    if kind == "integer":
        if isinstance(value, bool):
            raise ToolArgError(f"{where} must be an integer, not a boolean")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,18}\s*", value):
            return int(value)  # models often quote numbers; harmless to accept
        raise ToolArgError(f"{where} must be an integer, not {_shown(value)}")
    if kind == "number":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise ToolArgError(f"{where} must be a number, not {_shown(value)}")
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        raise ToolArgError(f"{where} must be true or false, not {_shown(value)}")
    if kind == "array":
        if isinstance(value, str) and value.lstrip().startswith("["):
            # A list sent as a JSON string (double-encoded) is still the list meant; it gets
            # the same bounds and string checks as the arguments themselves.
            value = decode_value(value, where)
        if not isinstance(value, list):
            raise ToolArgError(f"{where} must be a list, not {type(value).__name__}")
        return [_coerce(v, schema["items"], f"{where}[{i}]") for i, v in enumerate(value)]
    if kind == "object":
        if not isinstance(value, dict):
            raise ToolArgError(f"{where} must be an object like {{{', '.join(repr(k) + ': ...' for k in schema['properties'])}}}")
        out = {}
        for key in schema.get("required", []):
            if key not in value:
                raise ToolArgError(f"{where} is missing {key!r}")
        for key, v in value.items():
            if key not in schema["properties"]:
                raise ToolArgError(f"{where} has an unknown key {_shown(key)} (expected {', '.join(schema['properties'])})")
            out[key] = _coerce(v, schema["properties"][key], f"{where}.{key}")
        return out
    return value


def _shown(value: Any) -> str:
    """A value quoted in an error message: short, one line, no unencodable characters."""
    return display(repr(value) if not isinstance(value, (list, dict)) else type(value).__name__, 80)


def parse_arguments(arguments_json: str) -> dict:
    """The arguments of a tool call as a dict (bounded in size and depth: see :mod:`.argcheck`).

    Raises:
        ToolArgError: when they are not a JSON object, or are built to break the parser.
    """
    return decode_arguments(arguments_json)


def check_arguments(schema: dict, args: dict) -> dict:
    """Validate (and gently coerce) ``args`` against a tool's schema.

    Null for an optional argument means its default. Returns the keyword arguments.

    Raises:
        ToolArgError: unknown, missing or mistyped arguments, with a message the model can act on.
    """
    params = schema["function"]["parameters"]
    props: dict = params["properties"]
    name = schema["function"]["name"]
    unknown = [k for k in args if k not in props]
    if unknown:
        raise ToolArgError(f"{name} has no argument {display(unknown[0])!r}; its arguments are {', '.join(props)}")
    check_strings(args)
    out = {}
    for key in params["required"]:
        if args.get(key) is None:
            raise ToolArgError(f"{name} needs the argument {key!r}")
    for key, value in args.items():
        if value is None:
            continue
        out[key] = _coerce(value, props[key], key)
    return out
