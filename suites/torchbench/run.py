"""`python -m suites.run --suite torchbench ...` with the TorchBench checkout given as a flag.

  python -m suites.torchbench.run --torchbench-dir .torchbench --device cuda --backend inductor --mode both --out out/tb

Sets PARITY_TORCHBENCH_DIR (inherited by every model's child process) and runs the suite CLI; every other
argument is the suite CLI's. --suite torchbench is implied.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from suites.torchbench.checkout import ENV_VAR  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     add_help=False)
    parser.add_argument("--torchbench-dir", type=Path, default=None,
                        help=f"root of a TorchBench checkout (default: ${ENV_VAR})")
    args, rest = parser.parse_known_args(argv)
    if "-h" in rest or "--help" in rest:  # this wrapper's own flag first, then the suite CLI's help
        print(parser.format_help().replace("usage: ", "usage (wrapper): ", 1))
    if args.torchbench_dir is not None:
        if not (args.torchbench_dir / "torchbenchmark" / "__init__.py").is_file():
            print(f"error: --torchbench-dir {args.torchbench_dir} is not a TorchBench checkout "
                  "(no torchbenchmark/__init__.py); make one with python -m suites.torchbench.trim_checkout SRC DEST",
                  file=sys.stderr)
            return 2
        os.environ[ENV_VAR] = str(args.torchbench_dir.resolve())
    if "--suite" in rest or any(a.startswith("--suite=") for a in rest):
        print("error: --suite is implied (torchbench)", file=sys.stderr)
        return 2
    from suites import run as suite_cli

    return suite_cli.main(["--suite", "torchbench", *rest])


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
