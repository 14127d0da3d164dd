"""Reading Dynamo's graph-break records and saying them plainly, in the forms of several
releases."""

from __future__ import annotations

import textwrap

import torch

from snippets.explain import reasons, records

# torch 2.5 and 2.6: one line of reason, then the stack.
OLD = textwrap.dedent("""\
    Graph break in user code at /home/me/model.py:12
    Reason: Unsupported: generic_jump TensorVariable()
    User code traceback:
      File "/home/me/run.py", line 3, in <module>
        out = model(x)
      File "/home/me/model.py", line 12, in forward
        if x.sum() > 0:
    """)

# 2.7 on: a title, an explanation, hints, a debug context.
EXPLANATION = "Dynamo does not know how to trace builtin operator `print`"
NEW = textwrap.dedent(f"""\
    Graph break in user code at /home/me/model.py:30
    Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call:

    Failed to trace builtin operator
      Explanation: {EXPLANATION}.
      Hint: Please report an issue to PyTorch.
      Hint: Try adding it to `torch._dynamo.config.reorderable_logging_functions`.

      Developer debug context: builtin print

    User code traceback:
      File "/home/me/model.py", line 30, in torch_dynamo_resume_in_forward_at_28
        print("here")
    """)

DUPLICATE = ("Graph break (user stack suppressed due to duplicate graph break) in user code at "
             "/home/me/model.py:30\nGraph Break Reason: Failed to trace builtin operator")

SKIP_OLD = textwrap.dedent("""\
    Graph break: skip: from user code at:
      File "/home/me/model.py", line 7, in f
        print(1)

    Traceback (most recent call last):
      File "/site-packages/torch/_dynamo/convert_frame.py", line 900, in _compile
    torch._dynamo.exc.Unsupported: builtin: print [<class 'ConstantVariable'>] False
    """)


def test_old_record():
    rec = records.parse(OLD)
    assert (rec.file, rec.line, rec.skipped) == ("/home/me/model.py", 12, "")
    assert [f.line for f in rec.stack] == [3, 12] and rec.user_frame.name == "forward"
    assert reasons.plain(rec.reason).reason.startswith("data-dependent branching")


def test_new_record_reason_and_hint():
    rec = records.parse(NEW)
    said = reasons.plain(rec.reason, 'print("here")')
    assert said.reason == EXPLANATION  # Dynamo's own explanation, without its full stop
    assert said.hint.startswith("Try adding it")  # "report an issue" is not a hint


def test_duplicate_and_skip_records():
    dup = records.parse(DUPLICATE)
    assert (dup.line, dup.stack) == (30, ())
    skip = records.parse(SKIP_OLD)
    assert (skip.file, skip.line, skip.skipped) == ("/home/me/model.py", 7, "function")
    assert "print" in reasons.plain(skip.reason).reason
    assert records.parse("Recompiling function f") is None


def test_a_break_inside_torch_is_placed_at_the_users_line():
    text = NEW.replace("/home/me/model.py:30", f"{torch.__file__}:5")
    rec = records.parse(text)
    assert not rec.in_user_code and rec.user_frame.line == 30


def _known(pattern_part: str) -> reasons.Known:
    return next(k for k in reasons.KNOWN if pattern_part in k.pattern)


def test_jargon_in_plain_words():
    # Internal lines of 2.5 and 2.6 are said as the table's row for them.
    assert reasons.plain("builtin: print [ConstantVariable] False").reason == (
        _known("builtin: print").label)
    nonzero = reasons.plain("dynamic shape operator: aten.nonzero.default").reason
    assert nonzero == _known("dynamic shape").label.format(op="aten.nonzero")
    # A tensor used as a slice bound is read with .item(), though the line shows none: said over
    # Dynamo's explanation.
    item = "Explanation: Dynamo does not support tracing `Tensor.item()`."
    hidden = next(k for k in reasons.KNOWN if k.hidden_item)
    assert reasons.plain(item, "return x[:n]").reason == hidden.label
    assert reasons.plain(item, "y = x.item()").reason != hidden.label  # the line shows it
    no_message = "Explanation: User-inserted graph break. Message: None"
    assert reasons.plain(no_message).reason == "User-inserted graph break"


def test_every_known_reason_is_one_row_of_one_table():
    assert len({k.pattern for k in reasons.KNOWN}) == len(reasons.KNOWN)
    assert all(k.label and not k.label.endswith(".") for k in reasons.KNOWN)
    assert sum(k.hidden_item for k in reasons.KNOWN) == 1


def _blocks(x):
    for i in range(2):
        x = x + i
    with open(__file__) as handle:
        handle.readline()
    try:
        x = x * 2
    except ValueError:
        pass
    return x


def test_enclosing_names_the_function_and_the_block():
    code = _blocks.__code__
    first = code.co_firstlineno
    at = {offset: reasons.enclosing(code.co_filename, first + offset) for offset in (1, 2, 4, 6)}
    assert {e.function for e in at.values()} == {"_blocks"}
    assert at[1].blocker is None  # the for statement's own line is not inside the loop
    block = reasons.Block
    assert at[2].blocker == reasons.Blocker(block.FOR, first + 1)
    assert at[4].blocker == reasons.Blocker(block.WITH, first + 3)
    assert at[6].blocker == reasons.Blocker(block.TRY, first + 5)
    assert reasons.enclosing("/no/such/file.py", 3, "torch_dynamo_resume_in_fwd_at_2") == (
        reasons.Enclosing("fwd", None))
