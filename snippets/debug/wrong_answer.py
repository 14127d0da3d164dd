"""The script the minifier demo runs: a model whose compiled output is wrong on purpose. Run it
as a user would, with the minifier's variables set (``snippets.debug.minifier``)."""

# --8<-- [start:wrong]
import torch
import torch._inductor.config

from snippets import debug

if __name__ == "__main__":
    # A bug planted in Inductor's C++ code for ReLU: the compiled model now
    # computes something else than eager.
    torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"
    model, x = debug.small_model(), torch.randn(8, 16)
    with torch.no_grad():
        out = torch.compile(model)(x)
# --8<-- [end:wrong]
