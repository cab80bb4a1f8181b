"""suites/progress.py: the plain progress line of a run without a terminal (CI logs), and its ETA."""

from __future__ import annotations

import io
import time
from pathlib import Path

from parity.v1 import results_pb2 as pb
from suites.common.provenance import phase_line
from suites.common.request import ModelRequest
from suites.progress import EtaLine, RunProgress, eta_s


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _request(model: str) -> ModelRequest:
    return ModelRequest(suite="timm", model=model, mode="inference", backend="inductor", device="cpu", smoke=True)


def _result(wall_s: float) -> pb.ModelResult:
    result = pb.ModelResult()
    result.wall_time_s = wall_s
    return result


def test_the_plain_line_names_each_running_model_its_phase_and_time_and_the_eta(tmp_path: Path) -> None:
    clock = Clock()
    a, b, c, d = (_request(name) for name in ("alpha", "beta", "gamma", "delta"))
    progress = RunProgress([a, b, c, d], tmp_path, jobs=2, live=False, clock=clock)
    assert progress.summary_line() == "[parity] running: none; done 0/4; ETA unknown until one finishes"
    progress.started(a)
    progress.started(b)
    (tmp_path / f"{a.file_stem()}.log").write_text(f"compiling...\n{phase_line('load')}\nnoise\n"
                                                   f"{phase_line('performance')}\nmore noise\n")
    clock.now += 100
    assert progress.finished(a, _result(100.0)) == 1
    progress.started(c)
    clock.now += 23
    # beta: no phase line in its log yet; gamma: no log at all. ETA: mean wall 100 s x (2 running + 1 queued) / 2 jobs.
    assert progress.summary_line() == ("[parity] running: beta inference (starting, 123 s), gamma inference "
                                       "(starting, 23 s); done 1/4; ETA ~150 s")
    (tmp_path / f"{c.file_stem()}.log").write_text(phase_line("performance") + "\n")
    assert "gamma inference (performance, 23 s)" in progress.summary_line()


def test_recount_moves_the_total_and_the_queue_with_it(tmp_path: Path) -> None:
    """A model never started leaves the total; one run again alone joins it (suites.run, from the pool's threads)."""
    a, b, c = (_request(name) for name in ("alpha", "beta", "gamma"))
    progress = RunProgress([a, b, c], tmp_path, jobs=1, live=False, clock=Clock())
    progress.recount(-1)
    assert progress.snapshot()[2] == 2 and progress.summary_line().endswith("done 0/2; ETA unknown until one finishes")
    progress.recount(+1)
    assert progress.snapshot()[2] == 3 and "done 0/3" in progress.summary_line()


def test_the_phase_comes_from_the_newest_log_of_a_split_run(tmp_path: Path) -> None:
    request = _request("alpha")
    progress = RunProgress([request], tmp_path, jobs=1, live=False)
    progress.started(request)
    (tmp_path / f"{request.file_stem()}.accuracy.log").write_text(phase_line("accuracy") + "\n")
    assert progress.phase(request.file_stem()) == "accuracy"
    performance = tmp_path / f"{request.file_stem()}.performance.log"
    performance.write_text(phase_line("performance") + "\n")
    later = time.time() + 5
    import os
    os.utime(performance, (later, later))
    assert progress.phase(request.file_stem()) == "performance"


def test_without_a_terminal_the_line_is_printed_while_something_runs(tmp_path: Path) -> None:
    out = io.StringIO()
    request = _request("alpha")
    (tmp_path / f"{request.file_stem()}.log").write_text(phase_line("performance") + "\n")
    with RunProgress([request], tmp_path, jobs=1, stream=out, live=False, interval_s=0.05) as progress:
        progress.started(request)
        deadline = time.monotonic() + 10
        while "running: alpha inference (performance" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.02)
        progress.finished(request, _result(1.0))
    assert "[parity] running: alpha inference (performance, 0 s); done 0/1; ETA unknown until one finishes" \
        in out.getvalue()


def test_the_live_table_shows_counts_and_running_rows(tmp_path: Path) -> None:
    from rich.console import Console

    clock = Clock()
    a, b = _request("alpha"), _request("beta")
    progress = RunProgress([a, b], tmp_path, jobs=1, live=True, clock=clock)
    progress.started(a)
    clock.now += 7
    console = Console(file=io.StringIO(), width=120)
    console.print(progress.table())
    text = console.file.getvalue()
    assert "done 0/2, running 1, queued 1; ETA unknown until one finishes" in text
    assert "alpha" in text and "starting" in text and "7 s" in text


def test_eta() -> None:
    assert eta_s(None, 3, 1) is None
    assert eta_s(60.0, 3, 2) == 90.0
    clock = Clock()
    line = EtaLine(10, "[opinfo]", interval_s=60, clock=clock)
    clock.now += 30
    assert line.line(3) is None  # not a minute yet
    clock.now += 30
    assert line.line(4) == "[opinfo] done 4/10 in 60 s; ETA ~90 s"
    clock.now += 10
    assert line.line(5) is None
    clock.now += 60
    assert line.line(10) is None  # the loop's own summary follows
