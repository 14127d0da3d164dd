"""The two switches that make graph breaks visible: the ``graph_breaks`` log, and ``fullgraph=True``
turning a break into an error. Both run Dynamo only, so any CPU records them in seconds."""

from __future__ import annotations

import re

import torch

from snippets.core import torch_logs


# --8<-- [start:logs_demo]
def demo_graph_breaks() -> None:
    import torch

    from snippets.explain import breaks

    model = breaks.ItemBranch().eval()
    # Dynamo only: breaks show without Inductor.
    compiled = torch.compile(model, backend="eager")
    compiled(breaks.example_input())
# --8<-- [end:logs_demo]


DEMO = torch_logs.call(demo_graph_breaks)
LOGS_COMMAND = torch_logs.command("graph_breaks", DEMO)


def graph_break_log() -> str:
    return torch_logs.capture("graph_breaks", DEMO)


# --8<-- [start:fullgraph]
def fullgraph_error() -> str:
    import torch

    from snippets.explain import breaks

    model = breaks.PrintInForward().eval()
    # fullgraph=True: a break is an error.
    compiled = torch.compile(model, backend="eager", fullgraph=True)
    try:
        compiled(breaks.example_input())
    except Exception as exc:
        # torch._dynamo.exc.Unsupported, or UserError on some versions
        return f"{type(exc).__name__}: {exc}"
    return "no error: the model traced as one graph"
# --8<-- [end:fullgraph]


# A traceback line of the user's code, 'File "/any/where/snippets/explain/breaks.py"': the folder
# it was run from (a test's temporary copy of the repository, say) is not one clean_path knows.
_USER_FILE = re.compile(r'File "[^"]*?/(?=snippets/)')


def fullgraph_text() -> str:
    """The error's head, cleaned for the page; the full text runs to a traceback of Dynamo."""
    torch._dynamo.reset()
    text = _USER_FILE.sub('File "', torch_logs.clean_path(fullgraph_error()))
    torch._dynamo.reset()
    return "\n".join(text.splitlines()[:12])
