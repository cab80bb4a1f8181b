"""A pre-imported parent for model children: `python -m suites.common.zygote MODULE...`.

It imports the harness and the suite's model library once, then forks one child per model run, so a run of
many models pays those imports (seconds per model on a GPU host) once instead of per model. What is measured
does not change: the imports it saves happen before any timer in a fresh child too, and each child still gets
its own process group, log, environment and empty compile caches.

The zygote never starts a device, so each forked child is the first to start CUDA (or the NPU) in its own
address space. Protocol, one JSON object per line: the zygote says {"ready"} (or {"unusable": why}) after its
imports; the launcher writes {"id", "argv", "log", "env"}; the zygote answers {"id", "pid"} once forked and
{"exited": pid, "returncode"} when that child ends (negative: the signal that killed it, as in subprocess).
The launcher's side is the Zygote class.
"""

from __future__ import annotations

import importlib
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import IO, Any, Sequence

from suites.common import parent_death


class ZygoteError(RuntimeError):
    """The zygote cannot start children (it failed to start, or it died)."""


class Zygote:
    """The launcher's handle on a running zygote; safe to use from several threads."""

    def __init__(self, preload: Sequence[str], env: dict[str, str]) -> None:
        start = time.perf_counter()
        self._proc = subprocess.Popen([sys.executable, "-m", "suites.common.zygote", *preload],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._requests: IO[bytes] = self._proc.stdin
        first = json.loads(self._proc.stdout.readline() or b'{"unusable": "it exited during its imports"}')
        if "ready" not in first:
            self.close()
            raise ZygoteError(f"the zygote cannot fork model children: {first['unusable']}")
        self.startup_s = time.perf_counter() - start
        self._changed = threading.Condition()
        self._next_id = 0
        self._pids: dict[int, int] = {}         # request id -> pid
        self._returncodes: dict[int, int] = {}  # pid -> returncode
        self._gone = False
        threading.Thread(target=self._read_replies, args=(self._proc.stdout,), daemon=True).start()

    @property
    def pid(self) -> int:
        return self._proc.pid

    def spawn(self, argv: list[str], log: Path, env: dict[str, str]) -> int:
        """Forks a child that runs `python -m suites.common.child ARGV` with `env`, output to `log`; returns its pid."""
        with self._changed:
            request_id, self._next_id = self._next_id, self._next_id + 1
            message = {"id": request_id, "argv": argv, "log": str(log), "env": env}
            try:
                self._requests.write((json.dumps(message) + "\n").encode())
                self._requests.flush()
            except OSError as exc:
                raise ZygoteError(f"the zygote is gone ({exc})") from None
            while request_id not in self._pids:
                self._wait_while_alive(None)
            return self._pids.pop(request_id)

    def wait(self, pid: int, timeout: float) -> int | None:
        """The child's returncode, or None if it is still running after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while pid not in self._returncodes:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._wait_while_alive(remaining)
            return self._returncodes.pop(pid)

    def close(self) -> None:
        """Ends the zygote (children still running keep running; the launcher kills those itself)."""
        try:
            self._requests.close()
        except OSError:  # it is gone already, with a request unsent
            pass
        self._proc.wait()

    def _wait_while_alive(self, timeout: float | None) -> None:
        if self._gone:
            raise ZygoteError(f"the zygote died (exit status {self._proc.poll()}); its children's exits are unknown")
        self._changed.wait(timeout)

    def _read_replies(self, replies: IO[bytes]) -> None:
        for line in replies:
            reply = json.loads(line)
            with self._changed:
                if "exited" in reply:
                    self._returncodes[reply["exited"]] = reply["returncode"]
                else:
                    self._pids[reply["id"]] = reply["pid"]
                self._changed.notify_all()
        with self._changed:
            self._gone = True
            self._changed.notify_all()


def serve(preload: list[str], requests_fd: int, replies_fd: int) -> None:
    parent_death.from_environment()  # no zygote, and so no child of it, outlives the launcher
    zygote_pid = os.getpid()
    # Anything the imports ask of CUDA goes through NVML, which does not start the driver in this process.
    os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
    for name in preload:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 (the child imports it again and classifies the failure itself)
            print(f"[zygote] preloading {name} failed, children will import it themselves: {exc!r}",
                  file=sys.stderr, flush=True)
    unusable = _fork_hazard()
    if unusable:
        _reply(replies_fd, {"unusable": f"{unusable} while importing {', '.join(preload)}"})
        return
    _reply(replies_fd, {"ready": True})
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so that the wakeup fd hears of every exit
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    selector = selectors.DefaultSelector()
    selector.register(requests_fd, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    pending = b""
    while True:
        for key, _ in selector.select():
            if key.fd == wake_r:
                os.read(wake_r, 4096)
                _report_exits(replies_fd)
                continue
            chunk = os.read(requests_fd, 65536)
            if not chunk:  # the launcher closed us; children still running are its to kill
                return
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    _become_child(request, (requests_fd, replies_fd, wake_r, wake_w), zygote_pid)
                _reply(replies_fd, {"id": request["id"], "pid": pid})


def _fork_hazard() -> str:
    """Why forking this process would give children a broken state; empty if it would not."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return "CUDA was started"
    others = [thread.name for thread in threading.enumerate() if thread is not threading.main_thread()]
    if others:  # a fork keeps none of them, but keeps whatever locks they held
        return f"threads were started ({', '.join(others)})"
    return ""


def _report_exits(replies_fd: int) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # no children left
            return
        if pid == 0:
            return
        _reply(replies_fd, {"exited": pid, "returncode": os.waitstatus_to_exitcode(status)})


def _reply(fd: int, message: dict[str, Any]) -> None:
    os.write(fd, (json.dumps(message) + "\n").encode())


def _become_child(request: dict[str, Any], zygote_fds: tuple[int, ...], zygote_pid: int) -> None:
    """Turns the forked process into a model child (suites/common/child.py); never returns."""
    code = 1
    try:
        os.setsid()  # its own process group, which the launcher kills whole
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        # The standard fds stay open until replaced below: closing the requests fd 0 first would hand its number
        # to the log, which dup2(devnull, 0) then overwrites, leaving stdout and stderr on a read-only /dev/null.
        for fd in zygote_fds:
            if fd > 2:
                os.close(fd)
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(devnull)
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ[parent_death.ENV_VAR] = str(zygote_pid)  # the zygote is this child's parent, not the launcher
        from suites.common import child

        sys.argv = ["suites/common/child.py", *request["argv"]]
        code = child.main(request["argv"])
    except SystemExit as exc:  # argparse, on bad arguments
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 (it goes to the log; the launcher classifies the exit)
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


if __name__ == "__main__":
    # Replies go to the launcher on a copy of fd 1; fd 1 itself becomes stderr, so a stray print cannot break them.
    replies = os.dup(1)
    os.dup2(2, 1)
    serve(sys.argv[1:], requests_fd=0, replies_fd=replies)
