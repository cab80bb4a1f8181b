"""Progress of a long run: which models are done, running (in which phase, for how long) and queued, and an ETA.

A single model may run for up to 2000 s with nothing printed, so a matrix run needs more than one line per finished
model. On a terminal, `RunProgress` keeps a rich live table below the output; elsewhere (CI logs) it prints one plain
line every `interval_s` while something runs:

  [parity] running: resnet50 inference (performance, 123 s), deit inference (accuracy, 40 s); done 3/10; ETA ~900 s

Each running model's phase is the last phase line of its child's log (<out>/<stem>.log, written by the launcher;
suites.common.provenance.phase_from_log). The ETA is the mean wall time of the finished models times the models
still running or queued, over the jobs run side by side. `EtaLine` is the same plain line for a sequential loop
(the OpInfo runner).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from suites.common.provenance import phase_from_log

PLAIN_INTERVAL_S = 60.0
LIVE_REFRESH_S = 1.0


def eta_s(mean_wall_s: float | None, remaining: int, jobs: int) -> float | None:
    """Seconds until `remaining` runs are done, `jobs` at a time, at `mean_wall_s` each; None before any finished."""
    if mean_wall_s is None:
        return None
    return mean_wall_s * remaining / max(jobs, 1)


def format_eta(seconds: float | None) -> str:
    return "ETA unknown until one finishes" if seconds is None else f"ETA ~{seconds:.0f} s"


@dataclass
class _Running:
    model: str
    mode: str
    stem: str
    since: float


class RunProgress:
    """Tracks suites.run's children. `started` is called from the pool's threads, `finished` from the collecting
    loop; as a context manager it refreshes the live view or prints the plain line while the run goes on."""

    def __init__(self, requests: Iterable[Any], out: Path, jobs: int, *, stream: TextIO | None = None,
                 live: bool | None = None, interval_s: float = PLAIN_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = len(list(requests))
        self.out = Path(out)
        self.jobs = jobs
        self.stream = stream
        self.live = self._stream().isatty() if live is None else live
        self.interval_s = interval_s
        self.clock = clock
        self.done = 0
        self._walls: list[float] = []
        self._running: dict[str, _Running] = {}
        self._phases: dict[Path, tuple[tuple[float, int], str | None]] = {}  # log -> ((mtime, size), phase)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._view: Any = None  # rich.live.Live while live

    # -- events -----------------------------------------------------------------------------------------------

    def started(self, request: Any) -> None:
        stem = request.file_stem()
        with self._lock:
            self._running[stem] = _Running(request.model, request.mode, stem, self.clock())

    def finished(self, request: Any, result: Any = None) -> int:
        """Counts a finished run (its result's wall time feeds the ETA); returns how many are done."""
        with self._lock:
            began = self._running.pop(request.file_stem(), None)
            wall = float(getattr(result, "wall_time_s", 0.0) or 0.0)
            if wall <= 0 and began is not None:
                wall = self.clock() - began.since
            self._walls.append(wall)
            self.done += 1
            return self.done

    def recount(self, change: int) -> None:
        """Adds to the runs expected (+1: a model run again alone) or takes from them (-1: one never started)."""
        with self._lock:
            self.total += change

    # -- what is shown ----------------------------------------------------------------------------------------

    def phase(self, stem: str) -> str:
        """The phase a running child's log names last (of its split-process logs, the newest); 'starting' if none."""
        logs = [self.out / f"{stem}{part}.log" for part in ("", ".accuracy", ".performance")]
        found: list[tuple[float, str]] = []
        for log in logs:
            try:
                stat = log.stat()
            except OSError:
                continue
            key = (stat.st_mtime, stat.st_size)
            cached = self._phases.get(log)
            if cached is None or cached[0] != key:  # logs can be long: read again only when one changed
                cached = (key, phase_from_log(log))
                self._phases[log] = cached
            if cached[1]:
                found.append((stat.st_mtime, cached[1]))
        return max(found)[1] if found else "starting"

    def snapshot(self) -> tuple[list[tuple[str, str, str, float]], int, int, float | None]:
        """(running rows: model, mode, phase, elapsed s), done, queued, ETA in seconds."""
        now = self.clock()
        with self._lock:
            running = sorted(self._running.values(), key=lambda r: r.since)
            done, total = self.done, self.total
            mean = sum(self._walls) / len(self._walls) if self._walls else None
        rows = [(r.model, r.mode, self.phase(r.stem), now - r.since) for r in running]
        queued = max(total - done - len(rows), 0)
        return rows, done, queued, eta_s(mean, queued + len(rows), self.jobs)

    def summary_line(self) -> str:
        rows, done, _, eta = self.snapshot()
        running = ", ".join(f"{model} {mode} ({phase}, {elapsed:.0f} s)" for model, mode, phase, elapsed in rows)
        return f"[parity] running: {running or 'none'}; done {done}/{self.total}; {format_eta(eta)}"

    def table(self) -> Any:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        rows, done, queued, eta = self.snapshot()
        table = Table()
        for column in ("model", "mode", "phase"):
            table.add_column(column)
        table.add_column("elapsed", justify="right")
        for model, mode, phase, elapsed in rows:
            table.add_row(model, mode, phase, f"{elapsed:.0f} s")
        counts = Text(f"[parity] done {done}/{self.total}, running {len(rows)}, queued {queued}; {format_eta(eta)}")
        return Group(counts, table) if rows else counts

    # -- the view's lifetime ----------------------------------------------------------------------------------

    def __enter__(self) -> RunProgress:
        if self.live:
            from rich.console import Console
            from rich.live import Live

            console = Console(file=self.stream) if self.stream is not None else Console()
            self._view = Live(console=console, get_renderable=self._render, refresh_per_second=1 / LIVE_REFRESH_S,
                              transient=True)
            self._view.start()
        else:
            self._thread = threading.Thread(target=self._tick, name="parity-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._view is not None:
            self._view.stop()
            self._view = None
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _render(self) -> Any:
        try:
            return self.table()
        except Exception as exc:  # noqa: BLE001 (a view must never end the run)
            from rich.text import Text

            return Text(f"[parity] progress unavailable: {exc}")

    def _tick(self) -> None:
        while not self._stop.wait(self.interval_s):
            with self._lock:
                busy = bool(self._running)
            if busy:
                print(self.summary_line(), file=self._stream(), flush=True)

    def _stream(self) -> TextIO:
        return self.stream if self.stream is not None else sys.stdout


class EtaLine:
    """The plain progress line for a sequential loop: `line(done)` gives one at most every `interval_s`, else None."""

    def __init__(self, total: int, label: str, *, interval_s: float = PLAIN_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.label, self.interval_s, self.clock = total, label, interval_s, clock
        self.started = self.last = clock()

    def line(self, done: int) -> str | None:
        now = self.clock()
        if now - self.last < self.interval_s or done >= self.total:
            return None
        self.last = now
        elapsed = now - self.started
        eta = eta_s(elapsed / done if done else None, self.total - done, 1)
        return f"{self.label} done {done}/{self.total} in {elapsed:.0f} s; {format_eta(eta)}"
