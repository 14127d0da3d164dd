"""One configuration, launched with ``torchrun`` (``python -m torch.distributed.run``) per node,
one ``snippets.scale.rank`` per GPU under it."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from snippets.core import process
from snippets.scale.gather import read_ranks
from snippets.scale.gather import row as gather_row
from snippets.scale.job import Job

ROOT = Path(__file__).resolve().parents[2]
STOP_S = 4.0  # how long stopped launchers get to exit before they are killed
RANKS = Path("ranks")  # the rank records' folder as a command line shows it


# --8<-- [start:torchrun]
def torchrun(nodes, nproc, rank_args, node=0, endpoint=None, rdzv_id="scale"):
    """The launcher's command line on one node; every node runs the same
    one, but for its --node-rank."""
    argv = ["torchrun", "--nproc-per-node", str(nproc)]
    if nodes == 1:
        argv += ["--standalone"]  # a rendezvous of its own, on a free port
    else:
        argv += ["--nnodes", str(nodes), "--node-rank", str(node),
                 "--rdzv-backend", "c10d", "--rdzv-endpoint", endpoint,
                 "--rdzv-id", rdzv_id]
    return argv + ["-m", "snippets.scale.rank", *rank_args]
# --8<-- [end:torchrun]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_argv(job: Job, node: int, out: Path, port: int | None) -> list[str]:
    """The command line one local "node" runs; node 0 hosts the rendezvous store (every node
    here has the endpoint's name)."""
    endpoint = f"localhost:{port}" if port else None
    argv = torchrun(job.nodes, job.nproc, job.rank_args(out), node, endpoint,
                    rdzv_id=f"scale-{port}")
    argv[:1] = [sys.executable, "-m", "torch.distributed.run"]
    if job.nodes > 1:
        i = argv.index("--rdzv-id")
        argv[i + 2:i + 2] = ["--rdzv-conf", f"is_host={int(node == 0)}"]
    return argv


def shown(argv: list[str], out: Path | None = None, width: int = 72) -> str:
    """A command line as a reader types it, broken into lines of ``width`` between options."""
    words = ["torchrun" if w == "torch.distributed.run" else w for w in argv]
    if words[:2] == [sys.executable, "-m"]:
        words = words[2:]
    words = [str(RANKS) if out is not None and w == str(out) else w for w in words]
    groups: list[list[str]] = []
    for w in words:  # an option and its value stay on one line
        if groups and not w.startswith("-") and groups[-1][-1].startswith("-"):
            groups[-1].append(w)
        else:
            groups.append([w])
    lines, line = [], ""
    for text in (" ".join(_quoted(w) for w in g) for g in groups):
        if line and len(line) + 1 + len(text) > width:
            lines.append(line)
            line = "    " + text
        else:
            line = f"{line} {text}" if line else text
    return " \\\n".join([*lines, line])


def _quoted(word: str) -> str:
    """A word as a shell reads it; ``$HEAD_NODE:29500`` stays a variable to expand."""
    return word if re.fullmatch(r"[\w$:./=,+-]+", word) else shlex.quote(word)


def node_env(job: Job, node: int, tmp: Path) -> dict[str, str]:
    env = {**process.child_env(),
           MARK: str(tmp),  # how stop() finds every process of this configuration
           # NVLink multicast (NCCL's NVLS algorithms) off: it needs multicast objects from the
           # driver and the fabric manager that a shared or virtualised node may not grant, and
           # the numbers should not depend on whether it did.
           "NCCL_NVLS_ENABLE": "0",
           # The host's cores shared evenly by the ranks on it (torchrun would set 1 per rank):
           # a one-process reference gets them all, as a one-GPU job would.
           "OMP_NUM_THREADS": str(max(1, (os.cpu_count() or 1) // job.world))}
    if job.inductor_cache == "fresh":
        # A fresh Inductor cache per node, shared by its ranks, as on a fresh job: every
        # configuration compiles from nothing, not from what an earlier one left.
        env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp / f"inductor-node{node}")
        env.pop("TRITON_CACHE_DIR", None)  # Triton's cache then lives in Inductor's folder
    if job.nodes > 1 and job.device == "cuda":
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        gpus = visible.split(",") if visible else [str(i) for i in range(job.world)]
        env["CUDA_VISIBLE_DEVICES"] = ",".join(gpus[node * job.nproc:(node + 1) *
                                                    job.nproc])
    return env


def _wait(procs: list[subprocess.Popen], timeout_s: float) -> bool:
    """Wait for every launcher; True on a timeout. Once one fails, the others get 30 s."""
    deadline, grace_until = time.monotonic() + timeout_s, None
    while True:
        codes = [p.poll() for p in procs]
        if all(c is not None for c in codes):
            return False
        if grace_until is None and any(c not in (None, 0) for c in codes):
            grace_until = time.monotonic() + 30.0
        if grace_until is not None and time.monotonic() > grace_until:
            return False  # the failed launcher's exit says why; the others are stopped
        if time.monotonic() > deadline:
            return True
        time.sleep(0.2)


MARK = "SNIPPETS_SCALE_CONFIGURATION"  # in the environment of every process a configuration starts


def _marked(mark: str) -> list[int]:
    """The processes whose environment carries ``MARK=mark``, whoever their parent now is: an
    inherited environment finds even a rank started just before the stop, unlike a pid file."""
    key, found = f"{MARK}={mark}".encode(), []
    if not Path("/proc").is_dir():
        return found
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and key in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except OSError:  # it exited while being read, or is not ours to read
            continue
    return found


def stop(procs: list[subprocess.Popen], mark: str) -> None:
    """Stop the launchers (they signal their ranks), then kill what is left of the
    configuration until nothing is."""
    running = [p for p in procs if p.poll() is None]
    for p in running:
        p.terminate()
    for p in running:
        try:
            p.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    deadline = time.monotonic() + STOP_S
    while (left := _marked(mark)) and time.monotonic() < deadline:
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.1)  # a killed process leaves /proc's list once its parent reaps it


def run(job: Job) -> dict[str, Any]:
    """The configuration's row: its launchers started, waited for, and their ranks gathered."""
    with tempfile.TemporaryDirectory(prefix="snippets-scale-") as name:
        tmp = Path(name)
        port = free_port() if job.nodes > 1 else None
        argvs = [node_argv(job, node, tmp, port) for node in range(job.nodes)]
        procs: list[subprocess.Popen] = []
        started = time.monotonic()
        try:
            for node, argv in enumerate(argvs):
                with open(tmp / f"node{node}.log", "w") as log:
                    procs.append(subprocess.Popen(argv, cwd=ROOT, env=node_env(job, node, tmp),
                                                  stdout=log, stderr=subprocess.STDOUT))
            timed_out = _wait(procs, job.timeout_s)
        finally:
            stop(procs, str(tmp))  # on a timeout, and on Ctrl-C too
        wall = time.monotonic() - started
        logs = [(tmp / f"node{n}.log").read_text(errors="replace") for n in range(len(procs))]
        ranks = read_ranks(tmp)
        failure = None
        if timed_out:
            failure = f"timed out after {job.timeout_s:.0f} s"
        elif any(p.returncode != 0 for p in procs):
            failure = exit_reason(logs, [p.returncode for p in procs])
        return gather_row(job, ranks, failure, wall=wall, launch_line=shown(argvs[0], tmp))


def exit_reason(logs: list[str], codes: list[int]) -> str:
    """One line on why a launcher failed, from torchrun's report of its first failed rank."""
    for log in logs:
        root = log[max(0, log.find("Root Cause")):]  # torchrun's first observed failure
        found = re.search(r"rank\s*:\s*(\d+).*?\n\s*exitcode\s*:\s*(-?\d+)", root)
        if found:
            rank, code = int(found.group(1)), int(found.group(2))
            how = f"exited with code {code}"
            if code < 0:
                try:
                    how = f"was killed by {signal.Signals(-code).name}"
                except ValueError:
                    how = f"was killed by signal {-code}"
            return f"rank {rank} {how}"
    lines = [ln.strip() for log in logs for ln in log.splitlines() if ln.strip(" =-*")]
    last = lines[-1][:300] if lines else ""
    return f"launcher exit code {next(c for c in codes if c)}" + (
        f": {last}" if last else "")
