"""A tool's flags, generated from its frozen config: a field named in the ``Attributes:`` section
of its docstring (its help) or in ``COMMON`` is a flag. A tuple reads comma-separated, a bool is
``--x`` (``--x/--no-x`` where True); a rule's ``flag`` renames it, and a name without a dash is
a positional argument taking the words left. ``tuple[T, T]`` is a flag of two."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from snippets.core import cli, config

ENTRY = re.compile(r"^    (\w+): (.*)$")  # a field's first line in ``Attributes:``
COMMON = {
    "device": "auto (CUDA first), cpu, cuda[:N]",
    "models": "built-in models, comma-separated: {choices}",
    "batch_sizes": "comma-separated",
    "rounds": "interleaved timing rounds",
    "warm_rounds": "untimed rounds first",
}


@functools.cache
def docstrings(cls: type) -> dict[str, str]:
    """Each field's help from the ``Attributes:`` section of the config's docstring (Google
    style), whitespace folded: ``{"rounds": "timing rounds"}``. The docstring, not the source, so
    a tool installed without its ``.py`` files keeps its flags."""
    _, _, section = (inspect.getdoc(cls) or "").partition("\nAttributes:\n")
    out: dict[str, str] = {}
    for line in section.splitlines():
        if entry := ENTRY.match(line):
            name, out[entry[1]] = entry[1], entry[2]
        elif line.startswith(" " * 8) and out:
            out[name] += " " + line.strip()
        else:
            break
    return out


def about(cls: type) -> str:
    """A command's description: its config docstring's first paragraph, as tyro takes it."""
    return paragraph(inspect.getdoc(cls))


def paragraph(doc: str | None) -> str:
    """The first paragraph of a docstring, its lines joined."""
    return " ".join((doc or "").split("\n\n")[0].split())


def settable(cls: type) -> list[dataclasses.Field]:
    """The fields of ``cls`` a user sets: those with a docstring, and the common ones."""
    docs = docstrings(cls)
    return [f for f in dataclasses.fields(cls) if f.name in docs or f.name in COMMON]


def _names(f: dataclasses.Field) -> list[str]:
    return (config.rule_of(f).flag or "--" + f.name.replace("_", "-")).split()


def flag_of(f: dataclasses.Field) -> str:
    return _names(f)[-1]


def _type(f: dataclasses.Field) -> tuple[str, int | None]:
    """(item type, count: None for one, 0 for ``tuple[T, ...]``, N for N items), from the
    annotation's text."""
    text = str(f.type).replace(" ", "").replace("|None", "")
    if not (text.startswith("tuple[") and text.endswith("]")):
        return text, None
    items = text[len("tuple["):-1].split(",")
    return items[0], 0 if items[-1] == "..." else len(items)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None


READ: dict[str, Callable[[str], Any]] = {"int": cli.whole, "float": _number, "str": str,
                                         "Path": Path}


def _held(r: config.Rule, read: Callable[[str], Any], many: bool) -> Callable[[str], Any]:
    """``read``, its value held to ``r`` at the flag, for a rule the config does not hold."""
    def parse(text: str) -> Any:
        value = read(text)
        if r.every and value == "all":  # the config makes it every choice (config.check)
            return value
        if (message := config.wrong(r, value, many)) is not None:
            raise ValueError(message)
        return value
    return parse


def _one(read: Callable[[str], Any]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            return read(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def help_of(cls: type, f: dataclasses.Field, defaults: dict[str, dict[str, Any]] | None) -> str:
    """The field's docstring (``{choices}`` in it: the rule's choices), then its default."""
    r = config.rule_of(f)
    text = docstrings(cls).get(f.name) or COMMON[f.name]
    text = text.replace("{choices}", ", ".join(r.choices))
    if "(default" in text or f.default in (None, False, (), dataclasses.MISSING):
        given = None
    else:
        given = f"(default: {config.shown(f.default)}{r.unit})"
    if defaults and f.name in defaults["cpu"] and "(default" not in text:
        given = config.help_default(defaults, f.name, r.unit)
    return f"{text} {given}" if given else text


def declare(p: argparse.ArgumentParser, cls: type,
            defaults: dict[str, dict[str, Any]] | None = None, *, skip: tuple[str, ...] = ()
            ) -> None:
    """A flag per settable field of ``cls`` but ``skip``, defaulting to None (the config's);
    ``defaults``: the tool's per-device table."""
    for f in settable(cls):
        if f.name in skip:
            continue
        item, count = _type(f)
        r, names = config.rule_of(f), _names(f)
        flag, optional = names[0].startswith("-"), f.default is not dataclasses.MISSING
        kw: dict[str, Any] = {"default": None, "help": help_of(cls, f, defaults)}
        if item == "bool":
            kw["action"] = "store_true" if f.default is False else argparse.BooleanOptionalAction
        else:
            read = r.parse or READ[item]
            if r.flag_only:
                read = _held(r, read, count is not None)
            name = names[-1].lstrip("-").upper().replace("-", "_") if flag else names[0]
            kw["metavar"] = "{" + ",".join(r.choices) + "}" if r.choices and count is None else name
            kw["type"] = _one(read)
            if count == 0 and flag:
                kw["type"] = cli.csv_of(read, r.what or f.name.replace("_", " "))
            elif count is not None:  # a positional's words, or a flag's fixed number of them
                kw["nargs"] = count or ("*" if optional else "+")
            elif not flag and optional:
                kw["nargs"] = "?"
        if flag:
            kw["dest"], kw["required"] = f.name, not optional and item != "bool"
            p.add_argument(*names, **kw)
        else:  # a positional argument: its name is its dest
            p.add_argument(f.name, **kw)


def build(prog: str, cls: type, args: argparse.Namespace, **given: Any) -> Any:
    """``cls`` from the flags ``declare`` added and ``given``; ``--model``'s factories go to
    ``factories``. A value the config rejects is one line naming its flag, exit code 2."""
    fields = {f.name: f for f in settable(cls)}
    kw = {name: tuple(value) if isinstance(value, list) else value  # nargs: a list, frozen
          for name in fields if (value := getattr(args, name, None)) is not None}
    if "device" in kw and "device" not in given:
        kw["device"] = cli.device(prog, kw["device"])
    if "factories" in {f.name for f in dataclasses.fields(cls)} and hasattr(args, "model"):
        kw["factories"], only_user = cli.user_models(prog, args.model, args.models is not None)
        if only_user:
            kw["models"] = ()
    try:
        return cls(**{**kw, **given})
    except config.ConfigError as exc:
        named = fields.get(exc.name or "")
        cli.fail(prog, (f"argument {flag_of(named)}: " if named else "") + str(exc))
