"""Nightly: the whole matrix on this machine's device, infra-only retries, archived logs, store, report.

  python -m ci.nightly                                   # CPU: every smoke target, nightly ones included
  python -m ci.nightly --device cuda --slots 8           # 8 GPUs: one per test (ci/run_under)
  python -m ci.nightly --targets //suites/timm/... --date 2026-12-02
  python -m ci.nightly --device cuda --triage --triage-limit-s 1800   # and triage new compiled-side failures

1. `bazel test` over the targets with --config=ci (no presubmit filter: nightly-tagged targets run too)
   and --config=<device>; on accelerators each test gets one device through ci/run_under.
2. Failures are classified by ci/retry_policy.py; only infrastructure failures are run again (up to
   --retries times, after --retry-delay seconds). Accuracy failures and other model outcomes never are.
3. Every target's test.log, test.xml and outputs (outputs.zip: result .pb/.txtpb) of every attempt are
   copied to ARCHIVE/<date>/<device>/attempt-<n>/<package>/<target>/.
4. The final attempt's results are ingested into the store (`python -m tools.store ingest`, run id
   nightly-<date>-<device>), and the store's HUD summary is printed.
5. ARCHIVE/<date>/<device>/report.md: failures grouped by signature (with log paths), retried targets,
   and the regression report against the previous nightly in the archive: tests that newly fail or
   were fixed, and the store's HUD comparison of the two runs when the store CLI offers one; then Parity's
   performance verdicts per model against the previous nightly's run (`python -m tools.store verdicts`).
   nightly.json beside it holds the per-target facts the next nightly compares against.
6. With --triage (after step 4): each compiled-side failure of the night (its models' and its failing OpInfo
   cases') whose failure signature has no triage in the store yet is triaged once (`python -m tools.triage RESULT
   --limit-s S`, most valuable first: where the manifest or the community's baseline passes), under
   ARCHIVE/<date>/<device>/triage/, and its record and repro are stored (ci/nightly_triage.py). The report's "New
   triages" lists them: model, status, culprit, whether the repro reproduces, and where the repro is.
Exit code: 0 when every target passed in the end, 1 otherwise, Bazel's code for build errors.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import zipfile
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from ci.bazel_summary import RunSummary, TargetOutcome, label_dir, summarize
from ci.retry_policy import FailureFacts, Kind, Verdict, classify, exit_code_from_test_xml, signature

REPO = Path(__file__).resolve().parent.parent
DEVICE_CONFIGS = {"cpu": [], "cuda": ["--config=cuda"], "npu": ["--config=npu"]}
SLOT_DIR = "/tmp/parity-device-slots"
# Run from the repository by ci/nightly_triage.py, which appends RESULT.pb --limit-s S.
DEFAULT_TRIAGE_COMMAND = f"{shlex.quote(sys.executable)} -m tools.triage"


@dataclass(frozen=True)
class TargetRecord:
    """One target's final state, as nightly.json keeps it for the next night's comparison."""

    label: str
    status: str  # Bazel's final status
    attempts: int  # Bazel invocations that ran it (1 + infra retries)
    kind: str  # retry_policy.Kind value
    reason: str
    result_status: str  # community status of its result file, "" when none
    signature: str  # failure signature, "" when passed
    archive: str  # its archived folder (last attempt), relative to the night's folder


@dataclass(frozen=True)
class ResultFacts:
    status: str
    exception_type: str
    message: str


def read_result(target_dir: Path) -> ResultFacts | None:
    """The model result inside a target's archived outputs.zip, or None when it wrote none."""
    archive = target_dir / "test.outputs" / "outputs.zip"
    if not archive.exists():
        return None
    from proto.codegen import ensure_generated

    ensure_generated()
    from parity.v1 import results_pb2 as pb

    with zipfile.ZipFile(archive) as zipped:
        names = sorted(n for n in zipped.namelist()
                       if n.endswith(".pb") and not n.endswith((".accuracy.pb", ".performance.pb")))
        if not names:
            return None
        result = pb.ModelResult()
        result.ParseFromString(zipped.read(names[0]))
    return ResultFacts(result.community_status, result.failure.exception_type, result.failure.message)


def archive_attempt(summary: RunSummary, testlogs: Path, dest: Path) -> None:
    """Copies test.log, test.xml and test.outputs/ of every target that has them (cached ones included)."""
    for target in summary.targets:
        source = testlogs / label_dir(target.label)
        if not source.is_dir():
            continue
        into = dest / label_dir(target.label)
        into.mkdir(parents=True, exist_ok=True)
        for name in ("test.log", "test.xml"):
            if (source / name).exists():
                shutil.copy2(source / name, into / name)
        if (source / "test.outputs").is_dir():
            shutil.copytree(source / "test.outputs", into / "test.outputs", dirs_exist_ok=True)


def verdict_of(target: TargetOutcome, target_dir: Path) -> tuple[Verdict, ResultFacts | None]:
    facts_result = read_result(target_dir)
    xml = target_dir / "test.xml"
    exit_code = exit_code_from_test_xml(xml.read_text(errors="replace")) if xml.exists() else None
    facts = FailureFacts(target.status, any(t.startswith("suite-") for t in target.tags),
                         facts_result.status if facts_result else None, exit_code)
    return classify(facts), facts_result


class Night:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.root = args.archive / args.date / args.device
        self.run_id = f"nightly-{args.date}-{args.device}"

    def bazel_command(self, patterns: list[str], bep: Path) -> list[str]:
        args = self.args
        command = [args.bazel, "test", "--config=ci", *DEVICE_CONFIGS[args.device], "--keep_going",
                   f"--build_event_json_file={bep}"]
        if args.device != "cpu":
            slots = [f"--test_env=PARITY_DEVICE_SLOTS={args.slots}"] if args.slots else []
            command += ["--run_under=//ci/run_under:one_device", f"--sandbox_writable_path={SLOT_DIR}",
                        f"--local_test_jobs={args.slots or 1}", *slots]
        targets_file = bep.with_name("targets.txt")
        targets_file.write_text("".join(f"{p}\n" for p in patterns))
        return [*command, f"--target_pattern_file={targets_file}", *args.bazel_args]

    def attempt(self, number: int, patterns: list[str]) -> tuple[RunSummary, Path]:
        folder = self.root / f"attempt-{number}"
        folder.mkdir(parents=True, exist_ok=True)
        bep = folder / "bep.json"
        command = self.bazel_command(patterns, bep.resolve())
        print(f"[nightly] attempt {number}: {' '.join(command)}", flush=True)
        code = subprocess.run(command, cwd=REPO).returncode
        if code not in (0, 3, 4):
            raise SystemExit(f"[nightly] bazel exited {code} (build or configuration error); see the output above")
        summary = summarize(bep)
        archive_attempt(summary, REPO / ".bazel" / "testlogs", folder)
        return summary, folder

    def run(self) -> int:
        args = self.args
        if args.device != "cpu":
            Path(SLOT_DIR).mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        summary, folder = self.attempt(1, args.targets)
        final: dict[str, tuple[TargetOutcome, Path, int]] = {t.label: (t, folder, 1) for t in summary.targets}
        for number in range(2, args.retries + 2):
            infra = [label for label, (target, where, _) in final.items()
                     if verdict_of(target, where / label_dir(label))[0].retry]
            if not infra:
                break
            print(f"[nightly] {len(infra)} infrastructure failures, retrying in {args.retry_delay:g} s: {infra}")
            time.sleep(args.retry_delay)
            again, folder = self.attempt(number, infra)
            for target in again.targets:
                final[target.label] = (target, folder, number)
        records = [self.record(target, where, attempts) for target, where, attempts in final.values()]
        self.ingest(final)
        triages = self.triage()
        previous = self.previous_night()
        report = render_report(self.run_id, records, previous, self.store_comparison(previous),
                               time.monotonic() - started, self.performance_verdicts(previous), triages)
        (self.root / "report.md").write_text(report)
        (self.root / "nightly.json").write_text(json.dumps([asdict(r) for r in records], indent=1))
        print(report)
        print(f"[nightly] archive and report: {self.root}")
        return 1 if any(r.kind != Kind.PASSED.value for r in records) else 0

    def record(self, target: TargetOutcome, folder: Path, attempts: int) -> TargetRecord:
        where = folder / label_dir(target.label)
        verdict, result = verdict_of(target, where)
        sig = "" if verdict.kind is Kind.PASSED else signature(
            result.status if result else target.status, result.exception_type if result else "",
            result.message if result else verdict.reason)
        return TargetRecord(target.label, target.status, attempts, verdict.kind.value, verdict.reason,
                            result.status if result else "", sig, str(where.relative_to(self.root)))

    def ingest(self, final: dict[str, tuple[TargetOutcome, Path, int]]) -> None:
        paths = [str(where / label_dir(label)) for label, (_, where, _) in sorted(final.items())
                 if (where / label_dir(label) / "test.outputs" / "outputs.zip").exists()]
        if not paths or self.args.no_store:
            print("[nightly] no model results to store" if paths == [] else "[nightly] store skipped (--no-store)")
            return
        store = [sys.executable, "-m", "tools.store", "--db", str(self.args.db)]
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True)
        subprocess.run([*store, "ingest", *paths, "--run-id", self.run_id, "--commit", commit.stdout.strip()],
                       cwd=REPO, check=True)
        subprocess.run([*store, "summary", "--run-id", self.run_id], cwd=REPO, check=False)

    def triage(self) -> str:
        """The report's "New triages" section: triages the night's untriaged compiled-side failures (--triage)."""
        if not self.args.triage:
            return ""
        from proto.codegen import ensure_generated

        ensure_generated()
        from ci.nightly_triage import render_triages, run_triages, triage_command
        from tools.store.db import StoreError

        args = self.args
        try:
            step = run_triages(str(args.db), self.run_id, self.root / "triage", triage_command(args.triage_command),
                               args.triage_limit_s, args.triage_max, cwd=REPO)
        except (StoreError, OSError, ValueError) as exc:  # the night's report is still written, and says so
            return f"None: the triage step failed: {exc}"
        served = f"python -m tools.dashboard serve --db {args.db}, then /failures?run={self.run_id}"
        return render_triages(step, self.root, served)

    def previous_night(self) -> tuple[str, list[TargetRecord]] | None:
        """The newest earlier night of this device in the archive that left a nightly.json."""
        nights = sorted(p.parent.parent.name for p in self.args.archive.glob(f"*/{self.args.device}/nightly.json")
                        if p.parent.parent.name < self.args.date)
        if not nights:
            return None
        data = json.loads((self.args.archive / nights[-1] / self.args.device / "nightly.json").read_text())
        return nights[-1], [TargetRecord(**row) for row in data]

    def store_comparison(self, previous: tuple[str, list[TargetRecord]] | None) -> str:
        """New vs base with the HUD's rules and thresholds, both taken from the store (tools/store/hud.py),
        plus the dashboard pages of this night (static export; its compare page shows the same pair)."""
        if previous is None or self.args.no_store:
            return ""
        base = f"nightly-{previous[0]}-{self.args.device}"
        from proto.codegen import ensure_generated

        ensure_generated()
        from tools.store.db import connect
        from tools.store.hud import summarize

        db = connect(str(self.args.db))
        try:
            text = hud_comparison(summarize(db, self.run_id), summarize(db, base), base)
        finally:
            db.close()
        pages = self.root / "dashboard"
        done = subprocess.run([sys.executable, "-m", "tools.dashboard", "export", "--db", str(self.args.db),
                               "--out", str(pages), "--run", self.run_id], cwd=REPO, capture_output=True, text=True)
        served = (f"python -m tools.dashboard serve --db {self.args.db} --run {self.run_id}, "
                  f"then /compare?run={self.run_id}&base={base}")
        text += (f"\n\nDashboard: static pages in {pages} ({served})." if done.returncode == 0 else
                 f"\n\nDashboard export failed (exit {done.returncode}): {done.stderr.strip()[-300:]}. {served}")
        return text

    def performance_verdicts(self, previous: tuple[str, list[TargetRecord]] | None) -> str:
        """Parity's verdict per model (tools/store/verdicts.py) against the previous nightly's run, from the store
        CLI; otherwise one line that says why there is none."""
        if previous is None:
            return "None: no earlier nightly of this device in the archive to compare with."
        if self.args.no_store:
            return "None: the store was skipped (--no-store)."
        base = f"nightly-{previous[0]}-{self.args.device}"
        done = subprocess.run([sys.executable, "-m", "tools.store", "--db", str(self.args.db), "verdicts",
                               "--run-id", self.run_id, "--base", base], cwd=REPO, capture_output=True, text=True)
        if done.returncode != 0:
            return f"None: `python -m tools.store verdicts` exited {done.returncode}: {done.stderr.strip()[-300:]}"
        # A fixed-width table: a code block keeps its columns in markdown.
        return ("The HUD's 5% rule is the community-compatible column; tools/store/verdicts.py says how Parity "
                f"decides.\n\n```\n{done.stdout.rstrip()}\n```")


def hud_comparison(new: list, base: list, base_id: str) -> str:
    """A markdown table of the HUD summary cells, new vs base, each flagged by the HUD's change rule."""
    from tools.store.hud import change

    before = {row.key: row for row in base}
    lines = [f"HUD summary against {base_id} (a cell is flagged past the HUD's relative change threshold):", "",
             "| suite | compiler | mode | device | pass rate | geomean speedup | compile s | compression |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in new:
        old = before.get(row.key)

        def cell(now: float, then: float | None, fmt: str, higher_is_better: bool = True) -> str:
            if then is None:
                return f"{now:{fmt}} (new)"
            flag = change(now, then, higher_is_better)
            return f"{now:{fmt}} vs {then:{fmt}}" + (f" **{flag}**" if flag else "")

        lines.append(f"| {row.suite} | {row.compiler} | {row.mode} | {row.device} | "
                     f"{cell(row.pass_rate, old.pass_rate if old else None, '.0%')} | "
                     f"{cell(row.geomean_speedup, old.geomean_speedup if old else None, '.2f')} | "
                     f"{cell(row.mean_compile_s, old.mean_compile_s if old else None, '.1f', False)} | "
                     f"{cell(row.mean_compression, old.mean_compression if old else None, '.2f')} |")
    return "\n".join(lines)


def render_report(run_id: str, records: list[TargetRecord], previous: tuple[str, list[TargetRecord]] | None,
                  store_comparison: str, elapsed_s: float, verdicts: str = "", triages: str = "") -> str:
    passed = [r for r in records if r.kind == Kind.PASSED.value]
    failed = [r for r in records if r.kind != Kind.PASSED.value]
    retried = [r for r in records if r.attempts > 1]
    lines = [f"# Nightly {run_id}", "",
             f"{len(records)} test targets in {elapsed_s / 60:.1f} min: {len(passed)} passed, {len(failed)} failed; "
             f"{len(retried)} retried for infrastructure failures.", ""]
    if retried:
        lines += ["## Retried (infrastructure)", "", "| target | attempts | final status |", "| --- | --- | --- |"]
        lines += [f"| `{r.label}` | {r.attempts} | {r.status} |" for r in sorted(retried, key=lambda r: r.label)]
        lines.append("")
    groups: dict[str, list[TargetRecord]] = defaultdict(list)
    for record in failed:
        groups[record.signature].append(record)
    lines += ["## Failures by signature", ""]
    if not groups:
        lines += ["None.", ""]
    for sig, members in sorted(groups.items(), key=lambda item: (-len(item[1]), item[0])):
        lines += [f"### {len(members)} × `{sig}`", "", f"Kind: {members[0].kind}. {members[0].reason}.", ""]
        lines += [f"- `{r.label}`: {r.archive}/test.log" for r in sorted(members, key=lambda r: r.label)]
        lines.append("")
    lines += ["## New triages", "", triages or "None: --triage was not given.", ""]
    lines += ["## Against the previous nightly", ""]
    if previous is None:
        lines += ["No earlier nightly of this device in the archive.", ""]
    else:
        before = {r.label: r for r in previous[1]}
        now_failing = [r for r in failed if r.label in before and before[r.label].kind == Kind.PASSED.value]
        fixed = [r for r in passed if r.label in before and before[r.label].kind != Kind.PASSED.value]
        new = [r for r in records if r.label not in before]
        lines += [f"Base: nightly of {previous[0]}. {len(now_failing)} newly failing, {len(fixed)} fixed, "
                  f"{len(new)} new targets.", ""]
        lines += [f"- REGRESSION `{r.label}`: {r.signature}" for r in now_failing]
        lines += [f"- fixed `{r.label}`" for r in fixed]
        lines += ["", store_comparison, ""] if store_comparison else [""]
    lines += ["## Performance verdicts", "", verdicts or "None: no verdicts were asked of the store.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ci.nightly", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=sorted(DEVICE_CONFIGS), default=os.environ.get("PARITY_DEVICE", "cpu"))
    parser.add_argument("--targets", nargs="+", default=["//..."])
    parser.add_argument("--slots", type=int, default=0, help="accelerators on this host (default: detected)")
    parser.add_argument("--retries", type=int, default=2, help="reruns of infrastructure failures")
    parser.add_argument("--retry-delay", type=float, default=30.0, help="seconds before a retry")
    parser.add_argument("--archive", type=Path, default=REPO / "out" / "nightly")
    parser.add_argument("--date", default=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"))
    parser.add_argument("--db", type=Path, default=REPO / "out" / "parity.db")
    parser.add_argument("--no-store", action="store_true", help="do not ingest (simulations)")
    parser.add_argument("--triage", action="store_true",
                        help="triage each compiled-side failure whose signature has no triage yet (tools/triage)")
    parser.add_argument("--triage-limit-s", type=float, default=1800.0, help="time limit of one triage (seconds)")
    parser.add_argument("--triage-max", type=int, default=0,
                        help="triage at most this many signatures a night, most valuable first (0: all)")
    parser.add_argument("--triage-command", default=DEFAULT_TRIAGE_COMMAND,
                        help="the triage program; it is given RESULT.pb --limit-s S (default: %(default)s)")
    parser.add_argument("--bazel", default="bazel")
    parser.add_argument("bazel_args", nargs="*", help="more `bazel test` flags, after --")
    args = parser.parse_args(argv)
    if args.retries < 0:
        parser.error("--retries must be 0 or more")
    if args.triage and args.no_store:
        parser.error("--triage needs the store (it keeps one triage per failure signature): drop --no-store")
    if args.triage_limit_s <= 0 or args.triage_max < 0:
        parser.error("--triage-limit-s must be above 0 and --triage-max 0 or more")
    args.archive = args.archive.resolve()
    if (args.archive / args.date / args.device).exists():
        shutil.rmtree(args.archive / args.date / args.device)  # a rerun of the same night replaces it
    return Night(args).run()


if __name__ == "__main__":
    sys.exit(main())
