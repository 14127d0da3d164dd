"""``mark_dynamic`` with a range and specializations: the Dynamic shapes page's alternative to
padding to buckets. One Dynamo trace serves the whole range; the sizes named in
``specialize_on`` also get a backend compile specialized to them (``mark_dynamic`` in
torch/_dynamo/decorators.py, torch 2.14.1).
"""

from __future__ import annotations


# --8<-- [start:ranged]
def mark_lengths(x):
    """Call before each compiled call. Lengths 2 to 512 share one graph;
    the common 128 and 256 also get kernels specialized to them. A marked
    length outside the range raises."""
    import torch

    torch._dynamo.mark_dynamic(
        x, 1, min=2, max=512,
        specialize_on=[lambda n: n == 128, lambda n: n == 256],
    )
    return x
# --8<-- [end:ranged]
