"""The NPU lock (requirements-npu.lock, used by --config=npu):

  python -m tools.npu_lock write     # derive it from requirements.lock and requirements-npu.in
  python -m tools.npu_lock resolve   # resolve it with pip's resolver (dry run, PyPI, Python 3.11, linux x86_64
                                     # and aarch64) and write tools/npu_lock/resolution-<machine>.json
  python -m tools.npu_lock check     # exit 1 with the reasons when it is out of date, inconsistent, or disagrees
                                     # with the stored resolutions (no network)
"""

from __future__ import annotations

import argparse
import sys

from tools.npu_lock.lock import Paths, derive, problems, resolution_problems, resolve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.npu_lock", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["write", "resolve", "check"])
    args = parser.parse_args(argv)
    paths = Paths()
    if args.command == "write":
        paths.npu_lock.write_text(derive(paths.cpu_lock.read_text(), paths.npu_in.read_text()))
    elif args.command == "resolve":
        for path in resolve(paths):
            print(f"wrote {path}")
    found = problems(paths)
    resolution_found, notes = resolution_problems(paths)
    found += resolution_found
    for note in notes:
        print(f"note: {note}")
    print("\n".join(found) if found else f"{paths.npu_lock.name} is consistent and matches the stored resolutions")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
