"""The reference datasets load into one store in one batch, as the main job loads them: two runs that share a
run id and configuration would share result ids, and the store refuses such a batch whole."""

from __future__ import annotations

from pathlib import Path

from tools.store.db import connect, ingest, load_results
from tools.store.references import reference_datasets


def test_reference_datasets_ingest_as_one_batch(tmp_path: Path) -> None:
    folders = reference_datasets()
    assert any(folder.parts[-3:] == ("timm", "reference", "h200") for folder in folders), folders
    assert not any("experiments" in folder.parts for folder in folders)
    loaded = load_results(folders)
    assert ingest(connect(tmp_path / "parity.db"), loaded) == len({item.result.result_id for item in loaded})
