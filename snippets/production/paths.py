"""The ways a service can get from a model to compiled code at start-up, as the page shows them."""

from __future__ import annotations

import importlib
import inspect
import json
import sys

import torch
from torch import nn


# What each path needs from torch; all are present from torch 2.7 on (the cache artifacts arrived
# in 2.7, AOTInductor's package functions and set_stance in 2.6).
NEEDS = {
    "artifacts": ("torch.compiler.save_cache_artifacts", "torch.compiler.load_cache_artifacts"),
    "aot-build": ("torch.export.export", "torch._inductor.aoti_compile_and_package"),
    "aot-load": ("torch._inductor.aoti_load_package",),
    "regional": ("torch.nn.Module.compile",),
    # Python-side ahead-of-time compile: present in torch 2.14.1, behind a Dynamo switch.
    "precompile-build": ("torch._dynamo.config.enable_aot_compile",
                         "torch.compiler.load_compiled_function"),
    "precompile-load": ("torch.compiler.load_compiled_function",),
}


BUILDS = ("aot-build", "precompile-build")  # paths that write a file and answer nothing


def _has(dotted: str) -> bool:
    module, _, attr = dotted.rpartition(".")
    parts = module.split(".")
    try:
        obj = importlib.import_module(parts[0])
        for name in parts[1:]:
            obj = getattr(obj, name, None) or importlib.import_module(
                f"{obj.__name__}.{name}")
    except ImportError:
        return False
    return hasattr(obj, attr)


def missing(path: str) -> str | None:
    """Why ``path`` cannot run on this torch (the first API it lacks), or None."""
    for dotted in NEEDS.get(path, ()):
        if not _has(dotted):
            return f"torch {torch.__version__} has no {dotted}"
    return None


class NoBlocks(ValueError):
    """A model whose repeated blocks this guide does not know: regional compilation does not
    apply to it as written."""


def blocks(model: nn.Module) -> list[nn.Module]:
    """The repeated blocks: a transformer's encoder layers, a ResNet's four stages, or else the
    layer lists a ``transformers`` model keeps (GPT-2's ``transformer.h``, BERT's
    ``encoder.layer``, T5's encoder and decoder ``block``). A model with none has no blocks we
    know of."""
    if isinstance(getattr(model, "layers", None), nn.ModuleList):
        return list(model.layers)
    stages = [getattr(model, f"layer{i}", None) for i in range(1, 5)]
    if all(isinstance(s, nn.Module) for s in stages):
        return stages
    found = _layer_lists(model)
    if found:
        return found
    raise NoBlocks(f"no repeated blocks known in {type(model).__name__}")


def _layer_lists(model: nn.Module) -> list[nn.Module]:
    """The members of every outermost ModuleList of two or more modules of one class: a stack
    of layers, as libraries of transformers keep them (a list inside a chosen block is part of
    that block's compile)."""
    chosen: list[str] = []  # the prefix of each chosen list's members ("" for the root's)
    found: list[nn.Module] = []
    for name, module in model.named_modules():  # parents before their children
        if any(name.startswith(prefix) for prefix in chosen):
            continue
        if (isinstance(module, nn.ModuleList) and len(module) >= 2
                and len({type(m) for m in module}) == 1):
            chosen.append(f"{name}." if name else "")
            found += list(module)
    return found


# --8<-- [start:regional]
import inspect

import torch
from torch import nn

from snippets.production.paths import blocks

# Every block.compile() compiles Module._call_impl, so all blocks
# share its recompile budget (8): past 8 different blocks, the rest
# run eager. torch 2.14's isolate_recompiles=True gives each its own.
_COMPILE_ARGS = inspect.signature(torch.compile).parameters
ISOLATED = ({"isolate_recompiles": True}
            if "isolate_recompiles" in _COMPILE_ARGS else {})


def compile_regions(model: nn.Module) -> nn.Module:
    """Compile each repeated block in place, not the whole model. Blocks
    that are identical share one compiled graph (their weights are inputs
    to it, not constants), so they cost about one block's compile; blocks
    that differ in layers or shapes are each compiled on their own."""
    for block in blocks(model):
        block.compile(**ISOLATED)
    return model
# --8<-- [end:regional]


# --8<-- [start:artifacts]
def save_artifacts() -> bytes:
    """After the warm-up compiled everything: the compiled artifacts of this
    process (Inductor's and AOTAutograd's caches) as bytes to ship."""
    import torch

    saved = torch.compiler.save_cache_artifacts()
    if saved is None:
        raise RuntimeError("nothing was compiled in this process")
    return saved[0]


def load_artifacts(artifacts: bytes) -> None:
    """In a new process, before the first compile: fill the local cache from
    the bytes, so torch.compile finds its artifacts instead of compiling."""
    import torch

    torch.compiler.load_cache_artifacts(artifacts)
# --8<-- [end:artifacts]


# --8<-- [start:aot]
def aot_build(model, example, package):
    """Ahead of time, once per release: export the graph and compile it
    into a package of kernels and weights."""
    import torch

    from snippets.core import examples

    # A tensor is one argument, a tuple several, a dict keywords (ids, mask)
    args, kwargs = examples.split(example)
    exported = torch.export.export(model, args, kwargs)
    torch._inductor.aoti_compile_and_package(
        exported, package_path=str(package))
    return package


def aot_load(package):
    """At service start: no Dynamo, no Inductor, only loading compiled code.
    Call it as the model was exported, positional or keyword arguments."""
    import torch

    # Loading checks the CPU's vector instructions by compiling test
    # programs; a GPU service can start with TORCHINDUCTOR_VEC_ISA_OK=1 in
    # its environment to skip part of that (read when torch is imported).
    share_cxx_runtime()
    return torch._inductor.aoti_load_package(str(package))


def share_cxx_runtime() -> str | None:
    """Let a package's compiled code bind to the C++ runtime this process
    already runs; its path, or None where there is none to share."""
    import ctypes
    import os

    # A package built on an image whose compiler linked libstdc++ into it
    # statically crashed on load, in std::regex, before any weight was read:
    # Python loads torch (and torch's libstdc++) privately, so the package's
    # code used its own copy beside the process's, and the two disagreed.
    # Made global, the loaded copy is the one the package binds to.
    if not hasattr(os, "RTLD_NOLOAD"):  # not Linux: no such mix seen
        return None
    with open("/proc/self/maps") as maps:
        loaded = sorted({line.split()[-1] for line in maps
                         if "/libstdc++.so" in line})
    if not loaded:
        return None
    ctypes.CDLL(loaded[0], mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
    return loaded[0]
# --8<-- [end:aot]


def import_output_types(loaded) -> list[str]:
    """Import the modules that define the types a loaded package answers with, where this
    process has not imported them yet; their names. A package keeps its output's structure as
    type names and rebuilds it on every call, so a ``transformers`` model's ``ModelOutput``
    needs its module imported (which registers the type with torch's pytree) before the first
    answer, as a service that built the model would have (torch/export/pt2_archive/_package.py,
    ``AOTICompiledModel.__call__``)."""
    names: list[str] = []

    def walk(node: dict) -> None:
        if node.get("type"):
            names.append(node["type"].rpartition(".")[0])
        for child in node.get("children_spec", ()):
            walk(child)

    walk(json.loads(loaded.loader.get_call_spec()[1])[1])
    fresh = [m for m in dict.fromkeys(names) if m and m not in sys.modules]
    for module in fresh:
        importlib.import_module(module)
    return fresh


# --8<-- [start:precompile]
def call(model, *args, **kwargs):
    """What is compiled ahead of time: a function of the model and its
    inputs, so the saved file holds code and guards, not weights."""
    return model(*args, **kwargs)


def precompile(model, example, file, *, dynamic=None):
    """Ahead of time, once per release: Dynamo and Inductor run here, and
    the compiled function (its graph's code, its guards, its kernels'
    source) is saved to a file. The graph must be whole (fullgraph=True).
    It serves the example's shapes only, unless dynamic=True."""
    import torch

    from snippets.core import examples

    args, kwargs = examples.split(example)  # as aot_build splits it
    # On by default from torch 2.14 (torch/_dynamo/config.py); older
    # releases need the switch.
    with torch._dynamo.config.patch(enable_aot_compile=True), torch.no_grad():
        compiled = torch.compile(call, fullgraph=True, dynamic=dynamic)
        compiled = compiled.aot_compile(((model, *args), kwargs))
    compiled.save_compiled_function(str(file))
    return file


def load_precompiled(file):
    """At service start: the compiled function, without tracing. Call it
    as ``fn(model, *args, **kwargs)`` under torch.no_grad(), as it was
    built: grad mode is one of the guards it checks on every call."""
    import torch

    with open(file, "rb") as f:
        return torch.compiler.load_compiled_function(f)
# --8<-- [end:precompile]
