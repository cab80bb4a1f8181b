"""The proof of the verdict rule on real runs: A/A (no alarms), A/B (the known slowdowns found), spread.

  python -m tools.store.verdict_check --db out/v.db --a RUN1 --a RUN2 --a RUN3 --b RUN_B

Runs of one suite on one card: --a runs of one commit as it is (in the order they ran), --b a run of a slower
compiler variant (suites.run --inductor-config). Prints three tables:
- A/A: each A run against the one before it, how many models the HUD's 5% rule flags and how many Parity does;
- A/B: the models whose slowdown the samples confirm (compiled median slower by at least CONFIRMED_SLOWDOWN, the
  two runs' compiled-median intervals apart), and Parity's recall on them;
- spread: per model, max/min of the HUD speedup over the A runs, the widest interval, the eager side's device idle
  share.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from proto.codegen import ensure_generated

ensure_generated()

from tools.store.db import StoreError, connect  # noqa: E402
from tools.store.verdicts import HOST_BOUND_IDLE_SHARE, Figure, Verdict, compare_runs, figures_by_key  # noqa: E402

CONFIRMED_SLOWDOWN = 0.05  # the A/B's ground truth: the compiled median at least 5% slower, intervals apart


def figures(db, run_id: str) -> dict[str, Figure]:  # type: ignore[no-untyped-def]
    """A run's measured figures by model, as compare_runs reads them (one suite, mode and device per run here)."""
    return {key[1]: found for key, found in figures_by_key(db, run_id).items() if found is not None}


def confirmed_slower(a: Figure, b: Figure) -> bool:
    """The samples alone say B's compiled side is slower: intervals apart by at least CONFIRMED_SLOWDOWN."""
    return b.compiled_low_s > a.compiled_high_s and b.compiled_low_s >= a.compiled_high_s * (1 + CONFIRMED_SLOWDOWN)


def aa_table(db, runs: Sequence[str]) -> list[str]:  # type: ignore[no-untyped-def]
    lines = ["A/A: each run against the one before it (same commit)", "new run | base run | models | HUD 5% rule flags "
             "| Parity flags | Parity eager_moved"]
    for base, new in zip(runs, runs[1:]):
        verdicts = compare_runs(db, new, base)
        flagged = [v for v in verdicts if v.kind in ("regression", "improvement")]
        lines.append(f"{new} | {base} | {len(verdicts)} | {sum(bool(v.hud) for v in verdicts)} | {len(flagged)}"
                     f"{' (' + ', '.join(_flag(v) for v in flagged) + ')' if flagged else ''} | "
                     f"{sum(v.kind == 'eager_moved' for v in verdicts)}")
    return lines


def _flag(v: Verdict) -> str:
    return f"{v.model} {v.kind} {v.change:+.1%}"


def ab_table(db, a_run: str, b_run: str) -> list[str]:  # type: ignore[no-untyped-def]
    a, b = figures(db, a_run), figures(db, b_run)
    verdicts = {v.model: v for v in compare_runs(db, b_run, a_run)}
    lines = [f"A/B: {b_run} against {a_run}", "model | compiled ms A -> B | confirmed slower | HUD 5% rule | Parity"]
    confirmed = found = false_alarms = 0
    for model in sorted(set(a) & set(b)):
        truth = confirmed_slower(a[model], b[model])
        verdict = verdicts[model]
        confirmed += truth
        found += truth and verdict.kind == "regression"
        false_alarms += not truth and verdict.kind == "regression"
        lines.append(f"{model} | {_ms(a[model])} -> {_ms(b[model])} | {'yes' if truth else 'no'} | "
                     f"{verdict.hud or '-'} | {verdict.kind}")
    recall = f"{found / confirmed:.0%}" if confirmed else "n/a"
    lines.append(f"confirmed slower: {confirmed}; Parity found {found} (recall {recall}); Parity regressions the "
                 f"samples do not confirm: {false_alarms}")
    return lines


def _ms(f: Figure) -> str:
    return f"{(f.compiled_low_s + f.compiled_high_s) / 2 * 1000:.3f}"


def spread_table(db, runs: Sequence[str]) -> list[str]:  # type: ignore[no-untyped-def]
    per_run = [figures(db, run) for run in runs]
    lines = [f"Spread over {len(runs)} A runs: the HUD's figure (first 30 pairs) and Parity's (every pair)",
             "model | HUD speedups | max/min | Parity speedups | max/min | widest interval | idle share | kind"]
    for model in sorted(set.intersection(*(set(f) for f in per_run))):
        found = [f[model] for f in per_run]
        hud, points = [f.speedup for f in found], [f.point for f in found]
        widest = max((f.high - f.low) / f.point for f in found if f.point > 0)
        idle = max(f.idle_share for f in found)
        kind = "host-bound" if idle > HOST_BOUND_IDLE_SHARE else "device-bound"
        lines.append(f"{model} | {_listed(hud)} | {max(hud) / min(hud):.3f} | {_listed(points)} | "
                     f"{max(points) / min(points):.3f} | {widest:.1%} | {idle:.2f} (max) | {kind}")
    return lines


def _listed(values: Sequence[float]) -> str:
    return ", ".join(f"{v:.3f}" for v in values)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("--a", action="append", default=[], help="a run of the commit as it is (repeat, in order)")
    parser.add_argument("--b", default="", help="a run of the slower variant")
    args = parser.parse_args(argv)
    if len(args.a) < 2:
        parser.error("give at least two --a runs")
    try:
        db = connect(args.db, read_only=True)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sections = [aa_table(db, args.a), spread_table(db, args.a)] + ([ab_table(db, args.a[0], args.b)] if args.b else [])
    print("\n\n".join("\n".join(section) for section in sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
