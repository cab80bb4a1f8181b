"""The NPU lock (requirements-npu.lock, used by --config=npu):

  python -m tools.npu_lock write   # derive it from requirements.lock and requirements-npu.in
  python -m tools.npu_lock check   # exit 1 with the reasons when it is out of date or inconsistent
"""

from __future__ import annotations

import argparse
import sys

from tools.npu_lock.lock import Paths, derive, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.npu_lock", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["write", "check"])
    args = parser.parse_args(argv)
    paths = Paths()
    if args.command == "write":
        paths.npu_lock.write_text(derive(paths.cpu_lock.read_text(), paths.npu_in.read_text()))
    found = problems(paths)
    print("\n".join(found) if found else f"{paths.npu_lock.name} is consistent")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
