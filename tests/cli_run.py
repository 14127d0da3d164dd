"""Calling a command's ``main`` in the test's process, as its user would from a shell: the exit
code (an argparse or ``cli.fail`` exit included), what it printed, and the one-line-error rule."""

from __future__ import annotations

from collections.abc import Callable


def run(main: Callable[[list[str]], int], capsys, *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``main(argv)``."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str, *expect: str,
                          prog: str | None = None) -> None:
    """A user's mistake: exit code 2, one line on stderr that names each of ``expect`` (the bad
    flag, value, file) and, where ``prog`` is given, starts with ``prog: error:``; no traceback."""
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert [e for e in expect if e not in lines[0]] == [], err
    if prog is not None:
        assert lines[0].startswith(f"{prog}: error: "), err
    assert "Traceback" not in err + out
