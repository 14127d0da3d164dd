"""The eager model captured in one CUDA graph by hand, as the page shows it: a block that runs as
printed. The benchmark times ``core.cudagraph.Graphed``, the same recipe for any example (a
tuple, a dict of keyword arguments) with a shape check; a GPU test holds the two to one answer."""

# --8<-- [start:capture]
import torch


def capture(model, x, warmup=3):
    """``model(x)`` recorded as one CUDA graph; call the result with a
    tensor of ``x``'s shape. Its kernels are eager's, launched at once."""
    static_x = x.clone()  # the graph reads this buffer on every replay
    side = torch.cuda.Stream()  # warm up off the main stream, as the
    side.wait_stream(torch.cuda.current_stream())  # CUDA-graph notes do
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(warmup):
            model(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        static_y = model(static_x)

    def replay(new_x):
        static_x.copy_(new_x)
        graph.replay()
        return static_y.clone()  # the next replay overwrites static_y
    return replay
# --8<-- [end:capture]
