"""What a triage has learned so far, kept in its work folder (--keep-work DIR), so that a triage stopped by its limit
goes on from there when run again with the same folder: on a GPU machine each command is cut at 600 s, and a large
model's bisection takes longer than that.

The bisector is deterministic given its tests' verdicts, so a resumed triage runs `do_bisect` from the start and
answers each test it has already run from here: the test's key (backend, subsystem, the bisector's run state and
range) must match, and the bisector's state folder is put back as that test's model process left it (in its
find_max_bounds stage the model process itself writes the count there). The first test that is not here, or whose
key differs, runs for real, and everything after it is forgotten.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from parity.v1 import results_pb2 as pb
from proto.result_files import write_atomically
from tools.triage.target import TriageInputError

MEMO_FILE = "memo.json"


@dataclass(frozen=True)
class BisectAnswer:
    """A bisector test's answer: `good` (the failure is gone), and `note`, said when it failed in another way, which
    the bisector counts as good too; kept with the verdict so that a resumed triage says it again."""
    good: bool
    note: str = ""


@dataclass
class Memo:
    folder: Path
    result_id: str
    torch_version: str
    # {"key": {...}, "good": bool, "note": str (when the test failed another way)}, in the bisector's order
    tests: list[dict[str, object]] = field(default_factory=list)
    replayed: int = 0  # tests answered from here in this triage

    @classmethod
    def open(cls, folder: Path, result_id: str, torch_version: str) -> Memo:
        """The memo of `folder`, or a new one; refuses a folder that holds another triage's (or another torch's)."""
        path = folder / MEMO_FILE
        if not path.is_file():
            return cls(folder, result_id, torch_version)
        try:
            saved = json.loads(path.read_text())
            memo = cls(folder, saved["result_id"], saved["torch_version"], list(saved["tests"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise TriageInputError(f"{path} is not a triage's memo ({exc}): give --keep-work an empty folder") from exc
        if (memo.result_id, memo.torch_version) != (result_id, torch_version):
            raise TriageInputError(f"{folder} holds the work of another triage (result {memo.result_id}, torch "
                                   f"{memo.torch_version}), not of result {result_id} on torch {torch_version}: give "
                                   "--keep-work an empty folder, or that triage's result")
        return memo

    # The reproduce run: its result, once it ran.
    def reproduced(self) -> pb.ModelResult | None:
        path = self.folder / "reproduce.pb"
        if not path.is_file():
            return None
        result = pb.ModelResult()
        result.ParseFromString(path.read_bytes())
        return result

    def keep_reproduced(self, result: pb.ModelResult) -> None:
        write_atomically(self.folder / "reproduce.pb", result.SerializeToString())

    # The bisector's tests.
    def answer(self, index: int, key: dict[str, object], state: Path) -> BisectAnswer | None:
        """The verdict of test `index` if it ran before with this key, with the bisector's state folder put back as
        that test left it; None (and the tests from `index` on forgotten) when it has to run."""
        if index < len(self.tests) and self.tests[index]["key"] == key:
            shutil.rmtree(state, ignore_errors=True)
            shutil.copytree(self._snapshot(index), state)
            self.replayed += 1
            return BisectAnswer(bool(self.tests[index]["good"]), str(self.tests[index].get("note", "")))
        del self.tests[index:]
        return None

    def keep(self, index: int, key: dict[str, object], answer: BisectAnswer, state: Path) -> None:
        """Records test `index`, and the state folder as its model process left it."""
        snapshot = self._snapshot(index)
        shutil.rmtree(snapshot, ignore_errors=True)
        shutil.copytree(state, snapshot)
        del self.tests[index:]
        self.tests.append({"key": key, "good": answer.good, **({"note": answer.note} if answer.note else {})})
        self._save()

    def _snapshot(self, index: int) -> Path:
        return self.folder / "bisect-states" / f"{index:03d}"

    def _save(self) -> None:
        saved = {"result_id": self.result_id, "torch_version": self.torch_version, "tests": self.tests}
        write_atomically(self.folder / MEMO_FILE, json.dumps(saved, indent=1).encode())
