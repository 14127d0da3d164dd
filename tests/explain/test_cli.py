"""python -m snippets.explain: a user's function explained, and one line for each mistake."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from snippets.explain import breaks
from snippets.explain.__main__ import main

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def broken_factory():
    return breaks.ItemBranch().eval(), (breaks.example_input(),)


def wrong_factory():
    return breaks.ItemBranch()


def failing_factory():
    raise RuntimeError("no weights here")


def noisy_factory():
    # What a factory may write to standard output besides Python's print: a C extension's build
    # (ninja) writes to file descriptor 1 directly, and so does a child process.
    print("factory says hello")
    os.write(1, b"ninja: no work to do\n")
    subprocess.run([sys.executable, "-c", "print('child output')"], check=True)
    return breaks.PrintInForward().eval(), (breaks.example_input(),)


def list_args_factory():
    return breaks.ItemBranch().eval(), [breaks.example_input()]


def three_items_factory():
    return breaks.ItemBranch().eval(), (breaks.example_input(),), {}


def not_callable_factory():
    return 3, (breaks.example_input(),)


def test_cli_json(capsys):
    assert main([f"{__name__}:broken_factory", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["graph_count"] > 1 and out["graph_break_count"] > 0
    assert {"reason", "location", "hint", "times", "inside", "skipped", "kind"} == set(
        out["break_reasons"][0])


def test_json_stays_clean_whatever_the_factory_and_the_traced_code_print(capfd):
    assert main([f"{__name__}:noisy_factory", "--format", "json"]) == 0
    out, err = capfd.readouterr()
    assert json.loads(out)["graph_break_count"] == 1
    for text in ("factory says hello", "ninja: no work to do", "child output", "hidden"):
        assert text in err  # "hidden" is what the traced forward prints
    print("stdout works again")  # the descriptor is restored after the command
    assert capfd.readouterr().out == "stdout works again\n"


def test_cli_markdown(capsys):
    assert main([f"{__name__}:broken_factory", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    head = next(ln for ln in out.splitlines() if ln.startswith("|"))
    assert out.startswith("Graphs: ")
    assert [c.strip() for c in head.strip("|").split("|")] == ["#", "Reason", "Where", "Hint"]


def test_cli_text(capsys):
    assert main([f"{__name__}:broken_factory"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("graphs: ") and "at snippets/explain/breaks.py:" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["no_such_module_xyz:f"], "cannot import 'no_such_module_xyz'"),
    ([__name__], "is not of the form pkg.module:factory"),
    ([f"{__name__}:missing"], "has no callable 'missing'"),
    ([f"{__name__}:wrong_factory"], "got ItemBranch"),
    ([f"{__name__}:failing_factory"], "RuntimeError: no weights here"),
    ([f"{__name__}:list_args_factory"], "got (ItemBranch, list)"),
    ([f"{__name__}:three_items_factory"], "got a tuple of 3"),
    ([f"{__name__}:not_callable_factory"], "got (int, tuple)"),
    ([], "one of the arguments"),
    ([f"{__name__}:broken_factory", "--output", "x.json"], "--output needs --latency"),
    (["--latency", "--size", "huge"], "invalid choice: 'huge'"),
    (["--fastpath", "--size", "large"], "--size needs --latency"),
    ([f"{__name__}:broken_factory", "--size", "small"], "--size needs --latency"),
    (["--latency", "--rounds", "0"], "0 is not a positive"),
    (["--fastpath", "--rounds", "3"], "--rounds needs --latency"),
    (["--fastpath", "--profile"], "--profile needs --latency"),
    (["--latency", "--device", "cpu", "--mode", "reduce-overhead"],
     "reduce-overhead needs a CUDA device"),
    (["--fastpath", "--mode", "default"], "--mode needs --latency"),
])
def test_cli_mistakes_are_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and message in err and err.count("\n") == 1


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "snippets.explain", "no_such_module_xyz:f"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("python -m snippets.explain: error:")



def test_ctrl_c_while_dynamo_traces_stops_with_130():
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-m", "snippets.explain", "tests.fault_models:explain_interrupts"],
        cwd=root, capture_output=True, text=True, timeout=120,
        # a test run started in a shell's background would hand its child SIGINT ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1] == "interrupted: nothing finished to keep"
    assert "Traceback" not in proc.stderr
