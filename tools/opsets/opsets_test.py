"""Op sets: the stored files are current (cheap check, and one real retrace), and staleness is detected."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.lowering.registry import FAMILY_NAMES
from compiler.starlark_data import load_bzl_literals
from tools.opsets.check import stale_reasons
from tools.opsets.data import SUITES_DIR, OpSets, entry_sha256, families_of, library_versions, load_opsets

TRACED_SUITES = sorted(p.parent.name for p in SUITES_DIR.glob("*/opsets.bzl"))


@pytest.mark.parametrize("suite", TRACED_SUITES)
def test_stored_op_sets_are_current(suite: str) -> None:
    assert stale_reasons(suite) == []


def test_every_model_suite_is_traced() -> None:
    """Their BUILD files load opsets.bzl (family_deps): a missing file must fail here, not only in Bazel."""
    assert {"timm", "huggingface", "torchbench"} <= set(TRACED_SUITES)


def test_one_model_retraced_gives_the_stored_op_set() -> None:
    """The cheap check trusts versions and manifest hashes; this retrace checks the ops themselves."""
    from proto.codegen import ensure_generated

    ensure_generated()
    from tools.opsets.trace import trace_ops

    stored = load_opsets("timm").models["deit_tiny_patch16_224.fb_in1k"]
    assert sorted(trace_ops("timm", "deit_tiny_patch16_224.fb_in1k", "inference")) == stored["ops"]["inference"]


MANIFEST = '''MANIFEST = {"suite": "toy", "version": "1", "accuracy_batch_size": 1,
    "tolerance": {"training": 0.01, "inference": 0.01},
    "models": {"a": {"modes": {"inference": {"batch_size": 1}}, "build": {"width": 8}, "smoke": {}}}}
'''


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "manifest.bzl").write_text(MANIFEST)
    raw = load_bzl_literals(tmp_path / "toy" / "manifest.bzl")["MANIFEST"]["models"]["a"]
    ops = ["aten.convolution.default", "aten.relu.default"]
    opsets = OpSets("toy", library_versions("toy"),
                    {"a": {"entry_sha256": entry_sha256(raw), "ops": {"inference": ops}, "families": families_of(ops)}})
    (tmp_path / "toy" / "opsets.bzl").write_text(opsets.render())
    return tmp_path


def test_a_current_file_passes_and_round_trips(toy: Path) -> None:
    assert stale_reasons("toy", toy) == []
    loaded = load_opsets("toy", toy)
    assert loaded is not None and loaded.models["a"]["families"] == ["conv", "pointwise"]
    assert loaded.render() == (toy / "toy" / "opsets.bzl").read_text()


def test_changed_entry_new_model_and_missing_file_are_stale(toy: Path) -> None:
    manifest = toy / "toy" / "manifest.bzl"
    manifest.write_text(MANIFEST.replace('"width": 8', '"width": 16'))
    assert any("manifest entry changed" in r for r in stale_reasons("toy", toy))
    manifest.write_text(MANIFEST.replace('"models": {', '"models": {"b": {"modes": {}, "build": {}, "smoke": {}}, '))
    assert any("b is in the manifest but has no op set" in r for r in stale_reasons("toy", toy))
    (toy / "toy" / "opsets.bzl").unlink()
    assert "does not exist" in stale_reasons("toy", toy)[0]


def test_other_versions_and_reclassified_families_are_stale(toy: Path) -> None:
    path = toy / "toy" / "opsets.bzl"
    original = path.read_text()
    path.write_text(original.replace('"torch": "', '"torch": "0.0.1-'))
    assert any("traced with" in r for r in stale_reasons("toy", toy))
    path.write_text(original.replace('"families": ["conv", "pointwise"]', '"families": ["pointwise"]'))
    assert any("classify as ['conv', 'pointwise']" in r for r in stale_reasons("toy", toy))


def test_a_failed_trace_depends_on_every_family(toy: Path) -> None:
    path = toy / "toy" / "opsets.bzl"
    text = path.read_text().replace('"families": ["conv", "pointwise"]',
                                    '"trace_error": "boom",\n            "families": ' + str(list(FAMILY_NAMES)).replace("'", '"'))
    path.write_text(text)
    assert stale_reasons("toy", toy) == []


def test_a_model_that_cannot_be_built_on_meta_is_built_on_the_cpu_at_smoke_size() -> None:
    """Construction that reads tensor values fails on the meta device; the real smoke build stands in."""
    import types

    import torch

    from tools.opsets.trace import _build

    built = []

    def build(entry: object, mode: str, device: str, smoke: bool, batch_size: int) -> str:
        if torch.empty(1).is_meta:  # the ambient device is meta
            torch.ones(1).item()    # raises: Tensor.item() cannot be called on meta tensors
        built.append((device, smoke, batch_size))
        return "workload"

    entry = types.SimpleNamespace(batch_sizes={"inference": 64}, smoke_batch_size=2)
    assert _build(build, entry, "inference") == "workload"
    assert built == [("cpu", True, 2)]

    def broken(entry: object, mode: str, device: str, smoke: bool, batch_size: int) -> str:
        raise ValueError("a model bug, not a meta-device limitation")

    with pytest.raises(ValueError, match="model bug"):  # other errors are not retried
        _build(broken, entry, "inference")
