"""``python -m snippets.cpu.child``: one variant of one model, alone in a fresh process."""

from __future__ import annotations

import faulthandler
import json
import logging
import math
import time
from pathlib import Path
from typing import Any

import torch

from snippets import cpu
from snippets.core import cli, examples, measure, models, process
from snippets.core import profile as profiler
from snippets.core.rows import answer, fault, finish
from snippets.cpu import recipes

PROG = "python -m snippets.cpu.child"
CPU = torch.device("cpu")


def parser() -> cli.Parser:
    """The child's flags, which the parent writes: no help, none are a user's. ``--model`` is a
    model of the zoo's catalog, a built-in one or ``pkg.module:factory``; ``--workdir`` holds
    the variant's files; ``--reference``, eager fp32's first answer: eager writes it, the
    others read it."""
    p = cli.Parser(prog=PROG)
    p.add_argument("--model", required=True)
    p.add_argument("--batch-size", type=cli.positive, default=1)
    p.add_argument("--variant", choices=tuple(cpu.BY_KEY), required=True)
    p.add_argument("--rounds", type=cli.positive, default=3)
    p.add_argument("--sample-ms", type=float, default=100.0)
    p.add_argument("--profile-calls", type=cli.non_negative, default=2)
    p.add_argument("--workdir", type=Path, required=True)
    p.add_argument("--reference", type=Path, metavar="FILE")
    return p


def factory(name: str) -> models.Factory:
    """A model's factory: the package's own, the zoo catalog's, or a ``pkg.module:factory``."""
    if name in models.BUILTIN:
        return models.BUILTIN[name]
    from snippets.zoo import catalog

    found = next((e.build for e in catalog.ZOO if e.name == name), None)
    return found or models.load_factory(name)


def build(name: str, batch: int) -> tuple[torch.nn.Module, examples.Example]:
    torch.manual_seed(0)  # the same weights and input in every child
    model, x = models.build(factory(name), name, batch)
    return model.eval(), examples.place(x, "cpu", torch.float32)


def ready(v: cpu.Variant, model: torch.nn.Module, x: examples.Example,
          workdir: Path) -> tuple[Any, dict[str, Any]]:
    """The variant's callable, and what it ran at (threads, the precision it chose...)."""
    if v.runtime == "torch":
        return recipes.torch_variant(model, x, compiled=v.compiled, freezing=v.freezing,
                                     bf16=v.precision == "bf16")
    if v.runtime == "onnxruntime":
        return recipes.onnxruntime_variant(model, x, workdir)
    return recipes.openvino_variant(model, x, hint(v))


def hint(v: cpu.Variant) -> str | None:
    """OpenVINO's precision hint for a variant: f32 where it asks for fp32, else its own."""
    return "f32" if v.precision == "fp32" else None


def root_cause(exc: BaseException) -> BaseException:
    """The exception a wrapper was raised from: the ONNX exporter's ``TorchExportError`` says
    only which of its steps failed, and the error torch.export raised under it says why."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return exc


def where_time_goes(v: cpu.Variant, fn: Any, info: dict[str, Any], x: examples.Example,
                    calls: int) -> dict[str, Any] | None:
    """The variant's profile in its runtime's own profiler; None for no calls; the profiler's
    failure as ``{"error": ...}``, beside a timed row it leaves as it was."""
    if not calls:
        return None
    try:
        if v.runtime == "onnxruntime":
            return recipes.onnxruntime_profile(info["onnx"], x, calls)
        if v.runtime == "openvino":
            return recipes.openvino_profile(info["converted"], hint(v), info["inputs"], calls)
        return profiler.profile(fn, CPU, calls)
    except Exception as exc:  # evidence only: the row keeps its time
        return {"error": fault(exc)[1]}


def reference(args: Any, v: cpu.Variant, first: list[torch.Tensor]) -> list[torch.Tensor]:
    """Eager fp32's answer: the eager variant's own first answer, which it keeps in
    ``--reference`` for the variants after it; without that file, a fresh copy of the model's
    (the variant may have changed its own: channels_last, say)."""
    if v.key == cpu.BASELINE:
        if args.reference:
            torch.save(first, args.reference)
        return first
    if args.reference and args.reference.is_file():
        return torch.load(args.reference)
    eager, x = build(args.model, args.batch_size)
    with torch.no_grad():
        return examples.reference(examples.call(eager, x))


def run(args: Any) -> dict[str, Any]:
    v = cpu.BY_KEY[args.variant]
    rec: dict[str, Any] = {"status": "ok", "message": ""}
    try:
        model, x = build(args.model, args.batch_size)
    except models.SpecError as exc:  # a library missing or too old, a factory that fails
        return {**rec, "status": "error", "message": str(exc)}
    with torch.no_grad():
        started = time.perf_counter()
        try:
            fn, info = ready(v, model, x, args.workdir)
            rec["ready_s"] = time.perf_counter() - started  # exported, converted or wrapped
            first = examples.reference(fn())
        except Exception as exc:  # a model that does not export or compile: its row says why
            rec["status"], rec["message"] = fault(root_cause(exc))
            return rec
        rec["first_s"] = time.perf_counter() - started
        timed = measure.measure_variants({"call": fn}, CPU, rounds=args.rounds,
                                         sample_ms=args.sample_ms, warmup=1)
        rec["profile"] = where_time_goes(v, fn, info, x, args.profile_calls)
    precision = info.get("chose") or ("bf16" if v.precision == "bf16" else "fp32")
    rec.update(precision=precision, threads=info.get("threads"),
               channels_last=bool(info.get("channels_last")), fastpath=info.get("fastpath"))
    del fn, info, model
    err = examples.relative_error(first, reference(args, v, first))
    rec["rel_err"] = err if math.isfinite(err) else None
    status, message = answer(err, cpu.TOLERANCE.get(precision, cpu.TOLERANCE["bf16"]))
    if message:
        rec["status"], rec["message"] = status, message
    return finish(rec, timed["call"], calls=timed.calls["call"], rate=False)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    faulthandler.enable()  # a crash in native code leaves its Python frame for the parent's row
    # Inductor's C++ backend logs "No CUDA runtime is found" on every CPU-only machine.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    with process.stdout_to_stderr():  # exporters and compilers print; the record must be last
        rec = run(args)
    print(json.dumps(rec, allow_nan=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
