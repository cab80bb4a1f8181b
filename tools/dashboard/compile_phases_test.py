"""The compile-phase chart stacks exclusive times: PyTorch's cumulative timers nest (Dynamo contains AOTAutograd,
which contains Inductor, which contains codegen, Triton compilation and autotuning), so stacking them as recorded
counted nested time several times over (adv_inception_v3's bar came to about 54 s against 20.35 s of compile
latency). Stacked, the exclusive times never exceed the outermost timer or the compile latency."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from google.protobuf import text_format

from parity.v1 import results_pb2 as pb
from tools.dashboard.pages import COMPILE_NESTING, COMPILE_PHASES, OTHER_PHASE, exclusive_phases

REFERENCE = (Path(__file__).resolve().parents[2] / "suites/timm/reference/h200"
             / "timm.adv_inception_v3.inference.inductor_cudagraphs.cuda.full.txtpb")
PHASES = [field for field, _ in COMPILE_PHASES]
seconds = st.floats(min_value=0.0, max_value=1e5, allow_nan=False, allow_infinity=False)
fraction = st.floats(min_value=0.0, max_value=1.0)


def stacked(phases: dict[str, float]) -> float:
    return sum(phases[field] for field in PHASES)


@st.composite
def nested_times(draw: st.DrawFn) -> pb.CompileTime:
    """Consistent timers: each phase at most its parent."""
    ct = pb.CompileTime(dynamo_s=draw(seconds))
    ct.compilation_latency_s = ct.dynamo_s * draw(st.floats(0.5, 2.0))

    def fill(parent: str) -> None:
        for child in COMPILE_NESTING.get(parent, ()):
            setattr(ct, child, getattr(ct, parent) * draw(fraction))
            fill(child)

    fill("dynamo_s")
    return ct


@settings(database=None, derandomize=True, max_examples=300)
@given(ct=nested_times())
def test_stacked_exclusive_times_never_exceed_dynamo(ct: pb.CompileTime) -> None:
    phases = exclusive_phases(ct)
    assert all(value >= 0 for value in phases.values())
    assert stacked(phases) <= ct.dynamo_s * (1 + 1e-9) + 1e-9
    # "other" fills the bar up to the compile latency, never past it
    assert stacked(phases) + phases[OTHER_PHASE] <= max(ct.compilation_latency_s, stacked(phases)) * (1 + 1e-9) + 1e-9


@settings(database=None, derandomize=True, max_examples=300)
@given(values=st.lists(st.one_of(seconds, st.sampled_from([math.nan, math.inf, -1.0])), min_size=7, max_size=7))
def test_inconsistent_timers_still_stack_within_dynamo(values: list[float]) -> None:
    """A child timer over its parent (e.g. a backward graph compiled lazily, outside Dynamo's frame) is capped at
    what its parent has left: the bar still never exceeds Dynamo's timer."""
    ct = pb.CompileTime(compilation_latency_s=values[0], **dict(zip(PHASES, values[1:])))
    phases = exclusive_phases(ct)
    assert all(value >= 0 and math.isfinite(value) for value in phases.values())
    dynamo = ct.dynamo_s if math.isfinite(ct.dynamo_s) and ct.dynamo_s > 0 else 0.0
    assert stacked(phases) <= dynamo * (1 + 1e-9) + 1e-9


def test_exclusive_time_is_each_phase_minus_its_children() -> None:
    ct = pb.CompileTime(compilation_latency_s=12.0, dynamo_s=10.0, aot_autograd_s=8.0, inductor_s=6.0, codegen_s=3.0,
                        triton_compile_s=1.0, autotune_s=0.5)
    assert exclusive_phases(ct) == pytest.approx({"dynamo_s": 2.0, "aot_autograd_s": 2.0, "inductor_s": 1.5,
                                                  "codegen_s": 3.0, "triton_compile_s": 1.0, "autotune_s": 0.5,
                                                  OTHER_PHASE: 2.0})


def test_adv_inception_v3_reference_stacks_within_its_compile_latency() -> None:
    result = text_format.Parse(REFERENCE.read_text(), pb.ModelResult())
    ct = result.compile_time
    recorded = sum(getattr(ct, field) for field in PHASES)
    assert recorded > 50  # the cumulative timers stacked as recorded: about 54 s
    phases = exclusive_phases(ct)
    # dynamo_s (18.59 s) is within the compile latency (20.35 s), so the latency bounds the stack directly.
    assert ct.dynamo_s <= ct.compilation_latency_s
    assert stacked(phases) <= ct.compilation_latency_s
    assert stacked(phases) == pytest.approx(ct.dynamo_s)
    assert stacked(phases) + phases[OTHER_PHASE] == pytest.approx(ct.compilation_latency_s)
