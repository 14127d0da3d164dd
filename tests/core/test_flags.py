"""core.flags: a config's fields as flags, their help from the docstrings, the config's checks
answered as one line that names the flag."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from snippets.core import cli, config, flags
from tests import cli_run

DEFAULTS = {"cuda": {"rounds": 100}, "cpu": {"rounds": 10}}


@dataclass(frozen=True, kw_only=True)
class Demo:
    """A config of every kind of field.

    Attributes:
        modes: comma-separated from {choices}, or all
        sizes: sizes
        fast: go fast
        checked: check the answer
        timeout_s: seconds,
            continued
    """

    modes: tuple[str, ...] = config.option(("a",), choices=("a", "b"), what="mode", every=True)
    rounds: int | None = config.option(None, positive=True)
    sizes: tuple[float, ...] = config.option((1.0,), positive=True, unit=" MB")
    fast: bool = False
    checked: bool = True
    timeout_s: float = config.option(9.0, flag="--timeout")
    seed: int = 0  # not in Attributes, not common: code sets it

    def __post_init__(self) -> None:
        config.check(self)


def parse(*argv: str) -> Demo:
    p = cli.Parser(prog="demo")
    flags.declare(p, Demo, DEFAULTS)
    return flags.build("demo", Demo, p.parse_args(list(argv)))


def test_fields_become_flags_with_their_docstrings_and_defaults():
    p = cli.Parser(prog="demo")
    flags.declare(p, Demo, DEFAULTS)
    helps = {a.option_strings[0]: a.help for a in p._actions if a.option_strings}
    # Each help is the field's docstring (its choices filled in) and the default, as declared.
    assert helps["--modes"].startswith(flags.docstrings(Demo)["modes"].format(choices="a, b"))
    assert helps["--modes"].endswith("(default: a)")
    assert helps["--rounds"].endswith(config.help_default(DEFAULTS, "rounds"))
    assert helps["--sizes"].endswith("(default: 1 MB)") and helps["--fast"] == "go fast"
    assert "--checked" in helps and "--no-checked" in " ".join(p.format_help().split())
    assert helps["--timeout"].startswith("seconds, continued") and "--seed" not in helps


def test_values_are_read_by_type_and_held_to_the_config():
    assert parse() == Demo()
    cfg = parse("--modes", "all", "--rounds", "3", "--sizes", "2.5,3", "--fast", "--no-checked",
                "--timeout", "4")
    assert cfg == Demo(modes=("a", "b"), rounds=3, sizes=(2.5, 3.0), fast=True, checked=False,
                       timeout_s=4.0)
    with pytest.raises(config.ConfigError, match="unknown mode 'c'; choose from a, b or all"):
        Demo(modes=("c",))


@pytest.mark.parametrize("argv, expect", [
    (["--modes", "c"], "argument --modes: unknown mode 'c'; choose from a, b or all"),
    (["--rounds", "0"], "argument --rounds: 0 is not a positive number"),
    (["--rounds", "x"], "argument --rounds: 'x' is not a whole number"),
    (["--sizes", "1,,2"], "argument --sizes: empty item"),
    (["--sizes", "0"], "argument --sizes: 0 MB is not a positive size"),
    (["--timeout", "soon"], "argument --timeout: 'soon' is not a number"),
])
def test_a_wrong_value_is_one_line_naming_its_flag(capsys, argv, expect):
    cli_run.assert_one_line_error(*cli_run.run(lambda a: parse(*a), capsys, *argv), expect,
                                  prog="demo")


@dataclass(frozen=True, kw_only=True)
class Words:
    """Positional arguments, names and pairs.

    Attributes:
        what: a positional choice
        site: a positional folder, optional
        output: two names
        pair: a flag of two
        command: the words left
    """

    what: str = config.option(choices=("name", "title"), flag="what")
    site: Path | None = config.option(None, flag="SITE")
    output: Path | None = config.option(None, flag="-o --output")
    pair: tuple[Path, Path] | None = None
    command: tuple[str, ...] = config.option((), flag="command")

    def __post_init__(self) -> None:
        config.check(self)


def words(*argv: str) -> Words:
    p = cli.Parser(prog="demo")
    flags.declare(p, Words)
    return flags.build("demo", Words, p.parse_args(list(argv)))


def test_positionals_paths_two_names_and_a_fixed_count():
    assert words("name") == Words(what="name")
    # argparse reads the positionals after the last flag; "--" leaves the rest to the tuple
    cfg = words("-o", "x.json", "--pair", "a", "b", "title", "out", "--", "mkdocs", "--strict")
    assert cfg == Words(what="title", site=Path("out"), output=Path("x.json"),
                        pair=(Path("a"), Path("b")), command=("mkdocs", "--strict"))
    assert words("name", "--output", "y") == Words(what="name", output=Path("y"))
    p = cli.Parser(prog="demo")
    flags.declare(p, Words)
    usage = " ".join(p.format_usage().split())
    assert usage.endswith("[-o OUTPUT] [--pair PAIR PAIR] {name,title} [SITE] [command ...]")


@pytest.mark.parametrize("argv, expect", [
    (["version"], "argument what: invalid choice: 'version' (choose from 'name', 'title')"),
    ([], "the following arguments are required: {name,title}"),
    (["name", "--pair", "a"], "argument --pair: expected 2 arguments"),
])
def test_a_wrong_positional_is_one_line_naming_it(capsys, argv, expect):
    cli_run.assert_one_line_error(*cli_run.run(lambda a: words(*a), capsys, *argv), expect,
                                  prog="demo")
