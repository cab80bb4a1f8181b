"""The reference datasets load into one store in one batch, as the main job loads them: two runs that share a
run id and configuration would share result ids, and the store refuses such a batch whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from parity.v1 import results_pb2 as pb
from suites.common.result_io import read_result, result_files, write_result
from tools.store.db import connect, ingest, load_results
from tools.store.references import REPO, main, reference_datasets


def test_reference_datasets_ingest_as_one_batch(tmp_path: Path) -> None:
    folders = reference_datasets()
    assert any(folder.parts[-3:] == ("timm", "reference", "h200") for folder in folders), folders
    assert not any("experiments" in folder.parts for folder in folders)
    # OpInfo cases on a GPU and their triages, which the failures page shows, load with the suites' datasets.
    opinfo = REPO / "opinfo" / "reference"
    assert {f for f in folders if f.is_relative_to(opinfo)} == {
        p for p in opinfo.iterdir() if p.is_dir() and p.name != "experiments"}
    loaded = load_results(folders)
    assert ingest(connect(tmp_path / "parity.db"), loaded) == len({item.result.result_id for item in loaded})


def test_check_names_the_datasets_that_mix_commits_or_manifests(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    template = read_result(result_files(reference_datasets()[0])[0])  # a real result, as the harness writes them

    def result(dataset: str, model: str, commit: str, manifest_version: str) -> None:
        written = pb.ModelResult()
        written.CopyFrom(template)
        written.result_id = f"{dataset}-{model}"
        written.provenance.commit, written.provenance.manifest_version = commit, manifest_version
        write_result(written, tmp_path / "suites" / "timm" / "reference" / dataset, model)

    result("one-run", "a", "1111111aaaa", "1.0.0")
    result("one-run", "b", "1111111aaaa", "1.0.0")
    result("experiments", "c", "2222222bbbb", "1.0.0")  # not a dataset: never checked
    assert main(["--check", "--repo", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "suites/timm/reference/one-run: 1111111 manifest 1.0.0 (2)\n"

    result("assembled", "a", "1111111aaaa", "1.0.0")
    result("assembled", "b", "1111111aaaa", "1.1.0")  # same commit, a later manifest: mixed too
    assert main(["--check", "--repo", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert "suites/timm/reference/assembled: MIXED 1111111 manifest 1.0.0 (1), 1111111 manifest 1.1.0 (1)" in out
    assert "1 dataset(s) mix commits or manifest versions" in err
