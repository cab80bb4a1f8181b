"""Bazel's own REAPI remote worker (CAS + action cache + executor in one process), for --config=rbe on
one machine: built from Debian's bazel-bootstrap-source with javac, no download.

  python -m ci.rbe.remote_worker start [--port 18981] [--root /tmp/parity-remote-worker]
  python -m ci.rbe.remote_worker stop  [--root ...]

It is the reference implementation of the protocol, not a farm: it has no scheduler and ignores
platform properties (every action runs on this host), and it listens on all interfaces (it has no
bind-address flag). A multi-machine farm (BuildGrid, Buildbarn, BuildBuddy) takes the same --config=rbe
with --remote_executor pointed at it; see ci/rbe/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from ci import processes

SOURCES = Path("/usr/src/bazel-bootstrap/src/tools/remote/src/main/java")  # Debian bazel-bootstrap-source
SERVER_JAR = Path("/usr/share/bazel/A-server.jar")  # Bazel's own classes: gRPC, REAPI protos, sandbox code
DEFAULT_ROOT = Path("/tmp/parity-remote-worker")
PORT = 18981  # .bazelrc: build:rbe --remote_executor=grpc://127.0.0.1:18981
START_TIMEOUT_S = 60.0


class WorkerError(RuntimeError):
    """The worker could not be built, started or stopped; the message says what to do."""


def _sources() -> list[Path]:
    files = sorted(SOURCES.rglob("*.java"))
    if not files or not SERVER_JAR.exists():
        raise WorkerError(f"no worker sources under {SOURCES} or no {SERVER_JAR}: install the Debian packages "
                          f"bazel-bootstrap-source and bazel-bootstrap (tools/apt-packages.txt lists them)")
    return files


def build(root: Path) -> Path:
    """Compiles the worker once per source version; returns the classes folder."""
    files = _sources()
    digest = hashlib.sha256(b"".join(f.read_bytes() for f in files) + SERVER_JAR.read_bytes()[:1 << 20]).hexdigest()
    classes = root / f"classes-{digest[:12]}"
    if (classes / ".built").exists():
        return classes
    shutil.rmtree(classes, ignore_errors=True)
    classes.mkdir(parents=True)
    javac = shutil.which("javac")
    if javac is None:
        raise WorkerError("javac is not installed: `apt-get install default-jdk-headless`")
    done = subprocess.run([javac, "-nowarn", "-d", str(classes), "-cp", str(SERVER_JAR), *map(str, files)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise WorkerError(f"javac failed to build the remote worker: {done.stderr.strip()[-1500:]}")
    (classes / ".built").write_text(digest)
    return classes


def _pid(root: Path) -> int | None:
    return processes.running_pid(root / "worker.pid")


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def start(root: Path, port: int = PORT, jobs: int = 2) -> str:
    if _pid(root) is not None and _listening(port):
        return f"remote worker already running (pid {_pid(root)}) on port {port}"
    if _listening(port):
        raise WorkerError(f"port {port} is taken by another process: pass --port and --remote_executor=grpc://127.0.0.1:PORT")
    classes = build(DEFAULT_ROOT)  # compiled once per machine; work and CAS are per root
    work, cas = root / "work", root / "cas"
    work.mkdir(parents=True, exist_ok=True)
    cas.mkdir(parents=True, exist_ok=True)
    log = open(root / "worker.log", "ab")  # noqa: SIM115 (the worker keeps it open after we return)
    command = ["java", "-Xmx1g", "-cp", f"{classes}:{SERVER_JAR}", "com.google.devtools.build.remote.worker.RemoteWorker",
               f"--work_path={work}", f"--cas_path={cas}", f"--listen_port={port}", f"--jobs={jobs}"]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    (root / "worker.pid").write_text(str(process.pid))
    deadline = time.monotonic() + START_TIMEOUT_S
    while not _listening(port):
        if process.poll() is not None or time.monotonic() > deadline:
            raise WorkerError(f"the remote worker did not start listening on {port}; see {root / 'worker.log'}")
        time.sleep(0.2)
    return f"remote worker started (pid {process.pid}) on port {port}, work {work}"


def stop(root: Path) -> str:
    pid = _pid(root)
    if pid is None:
        return f"no remote worker running for {root}"
    os.killpg(pid, signal.SIGTERM)  # its own session: the actions it runs go too
    for _ in range(100):
        if _pid(root) is None:
            break
        time.sleep(0.1)
    return f"remote worker stopped (pid {pid})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ci.rbe.remote_worker", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["build", "start", "stop"])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--port", type=int, default=PORT)
    parser.add_argument("--jobs", type=int, default=2, help="actions the worker runs at once")
    args = parser.parse_args(argv)
    try:
        if args.action == "build":
            print(f"remote worker classes: {build(args.root)}")
        else:
            print(start(args.root, args.port, args.jobs) if args.action == "start" else stop(args.root))
    except (WorkerError, OSError) as exc:
        print(f"remote_worker: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
