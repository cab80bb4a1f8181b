"""The upstream checkout a user gives: a local benchmarks/dynamo folder, which Parity never ships or downloads.

What each suite's script reads from its own folder when it starts is checked before anything runs, so that a wrong
path or an incomplete copy is an error with the missing file's name, not a model status in the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class CheckoutError(ValueError):
    """The folder is not a usable benchmarks/dynamo checkout for the suite."""


@dataclass(frozen=True)
class UpstreamSuite:
    script: str                # the suite's driver in benchmarks/dynamo
    origin: str                # the suite's name in upstream's output file names (the script's stem)
    reads: tuple[str, ...]     # files beside the script that it opens (or imports) at start


SUITES = {
    "timm": UpstreamSuite("timm_models.py", "timm_models", ("timm_models.yaml", "timm_models_list.txt")),
    "huggingface": UpstreamSuite("huggingface.py", "huggingface",
                                 ("huggingface.yaml", "huggingface_models_list.txt", "huggingface_llm_models.py")),
    "torchbench": UpstreamSuite("torchbench.py", "torchbench", ("torchbench.yaml",)),
}
# pytorch/benchmark's synced copy (userbenchmark/dynamo/dynamobench) lacks these two; pytorch's own folder has them.
_NOT_IN_DYNAMOBENCH = {"timm_models.yaml", "huggingface_llm_models.py"}


@dataclass(frozen=True)
class UpstreamCheckout:
    root: Path
    suite: str

    @property
    def script(self) -> Path:
        return self.root / SUITES[self.suite].script


def check_checkout(root: Path, suite: str) -> UpstreamCheckout:
    """The checkout, resolved; a CheckoutError that names what is missing and what to do about it."""
    if suite not in SUITES:
        raise CheckoutError(f"unknown suite {suite!r}; the cross-check knows {', '.join(SUITES)}")
    if not root.is_dir():
        raise CheckoutError(f"--upstream {root}: no such folder. Give a local copy of pytorch's benchmarks/dynamo "
                            "(or of pytorch/benchmark's userbenchmark/dynamo/dynamobench); Parity never downloads it")
    wanted = SUITES[suite]
    if not (root / "common.py").is_file() and not (root / wanted.script).is_file():
        raise CheckoutError(f"--upstream {root} is not a benchmarks/dynamo folder: it has neither common.py nor "
                            f"{wanted.script}. Give the folder that holds upstream's suite scripts")
    missing = [name for name in ("common.py", wanted.script, *wanted.reads) if not (root / name).is_file()]
    if missing:
        hint = ""
        if _NOT_IN_DYNAMOBENCH & set(missing):
            hint = (". pytorch/benchmark's dynamobench copy lacks timm_models.yaml and huggingface_llm_models.py: "
                    "take them from pytorch's benchmarks/dynamo at a commit of the same date "
                    "(ci/device/reference_runs.sh, section crosscheck, shows how)")
        raise CheckoutError(f"--upstream {root} lacks {', '.join(missing)}, which upstream's {wanted.script} "
                            f"reads at start{hint}")
    return UpstreamCheckout(root.resolve(), suite)
