"""A small Chrome DevTools Protocol client for tests: Debian's chromium, headless, spoken to over
--remote-debugging-pipe (JSON messages separated by NUL bytes on file descriptors 3 and 4), so no
WebSocket library and no browser download is needed."""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser")


class BrowserError(RuntimeError):
    """The browser is missing, died, or a page raised."""


def find_chromium() -> str:
    override = os.environ.get("PARITY_CHROMIUM")
    if override:
        return override
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name) or (f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None)
        if found:
            return found
    raise BrowserError("chromium not found: install Debian's chromium package (tools/apt-packages.txt; "
                       "tools/bootstrap.sh installs it) or set PARITY_CHROMIUM")


def _high_fd(fd: int) -> int:
    """A copy of fd numbered 10 or above, so placing the pipes at 3 and 4 in the child cannot clobber them."""
    copy = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return copy


class Browser:
    """One headless chromium with one page. Use as a context manager."""

    def __init__(self, timeout_s: float = 30.0) -> None:
        self.timeout_s = timeout_s
        self.profile = tempfile.mkdtemp(prefix="parity-chromium-")
        to_browser_r, to_browser_w = (_high_fd(fd) for fd in os.pipe())
        from_browser_r, from_browser_w = (_high_fd(fd) for fd in os.pipe())

        def place_pipes() -> None:  # runs in the child before exec: chromium reads fd 3, writes fd 4
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        args = [find_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "--no-first-run",
                "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--mute-audio", "--window-size=1400,1000", "about:blank"]
        env = {**os.environ, "HOME": self.profile}
        self.process = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=place_pipes, env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._out, self._in = to_browser_w, from_browser_r
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except BrowserError:
            pass
        try:
            self.process.wait(timeout=3)
        except subprocess.TimeoutExpired:  # helper processes can linger after Browser.close; nothing to keep
            self.process.kill()
            self.process.wait()
        for fd in (self._out, self._in):
            os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)

    # -- protocol

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout_s
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._in], [], [], max(left, 0))
            if not ready:
                raise BrowserError(f"chromium sent nothing for {self.timeout_s} s")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                stderr = self.process.stderr.read().decode(errors="replace")[-2000:] if self.process.stderr else ""
                raise BrowserError(f"chromium closed the pipe (exit {self.process.poll()}): {stderr}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_for(self, event: str) -> dict[str, Any]:
        while True:
            for index, seen in enumerate(self.events):
                if seen.get("method") == event and seen.get("sessionId") == self.session:
                    return self.events.pop(index)
            self.events.append(self._read())

    # -- page helpers

    def goto(self, url: str) -> None:
        self.events.clear()
        result = self.call("Page.navigate", {"url": url}, session=True)
        if result.get("errorText"):
            raise BrowserError(f"cannot load {url}: {result['errorText']}")
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:80]}: {result['exceptionDetails'].get('exception', {}).get('description')}")
        return result["result"].get("value")

    def act_and_wait(self, expression: str) -> None:
        """Runs script that navigates (a form submit, a click on a link) and waits for the new page."""
        self.events.clear()
        self.evaluate(expression)
        self.wait_for("Page.loadEventFired")

    def page_errors(self) -> list[str]:
        """Uncaught script exceptions seen since the last navigation."""
        return [e["params"]["exceptionDetails"].get("exception", {}).get("description", "")
                for e in self.events if e.get("method") == "Runtime.exceptionThrown"]
