"""Dynamo counters and compile-phase timers over one window of a run, read from PyTorch's own records."""

from __future__ import annotations

import collections
import copy
import dataclasses
from typing import Any

from torch._dynamo import utils as dynamo_utils

from parity.v1 import results_pb2 as pb


class CounterWindow:
    """Deltas of torch._dynamo.utils.counters and of the compilation metrics since construction."""

    def __init__(self) -> None:
        self._start = copy.deepcopy({k: dict(v) for k, v in dynamo_utils.counters.items()})
        dynamo_utils.clear_compilation_metrics()

    def _delta(self, group: str) -> collections.Counter[str]:
        now = collections.Counter(dynamo_utils.counters.get(group, {}))
        now.subtract(self._start.get(group, {}))
        return collections.Counter({k: v for k, v in now.items() if v})

    def dynamo_stats(self) -> pb.DynamoStats:
        stats = self._delta("stats")
        frames = self._delta("frames")
        breaks = self._delta("graph_break")
        metrics = self._metrics()
        recompiles = sum(1 for m in metrics if _attempt(m.get("compile_id")) > 0)
        return pb.DynamoStats(
            calls_captured=stats["calls_captured"],
            unique_graphs=stats["unique_graphs"],
            graph_breaks=sum(breaks.values()),
            unique_graph_breaks=len(breaks),
            fallbacks_to_eager=frames["total"] - frames["ok"],
            recompiles=recompiles,
            cudagraph_skips=self._delta("inductor")["cudagraph_skips"],
            breaks=[pb.GraphBreak(reason=r[:2000], count=c) for r, c in breaks.most_common()],
        )

    def fill_compile_phases(self, out: pb.CompileTime) -> None:
        """Phase times (seconds) summed over every frame compiled in the window.

        Each is PyTorch's own cumulative timer (dynamo covers the whole frame; backward graphs compiled
        lazily are counted by inductor and codegen, not by aot_autograd).
        """
        metrics = self._metrics()

        def total_s(key: str) -> float:
            return sum((m.get(key) or 0) for m in metrics) / 1e6

        def total(key: str) -> int:
            return int(sum((m.get(key) or 0) for m in metrics))

        out.dynamo_s = total_s("dynamo_cumulative_compile_time_us")
        out.aot_autograd_s = total_s("aot_autograd_cumulative_compile_time_us")
        out.inductor_s = total_s("inductor_cumulative_compile_time_us")
        out.codegen_s = total_s("inductor_code_gen_cumulative_compile_time_us")
        out.triton_compile_s = total_s("triton_compile_time_us")
        out.fx_graph_cache_hits = total("inductor_fx_local_cache_hit_count") + total("inductor_fx_remote_cache_hit_count")
        out.fx_graph_cache_misses = total("inductor_fx_local_cache_miss_count") + total("inductor_fx_remote_cache_miss_count")
        out.aot_autograd_cache_hits = total("aotautograd_local_cache_hit_count") + total("aotautograd_remote_cache_hit_count")
        out.aot_autograd_cache_misses = total("aotautograd_local_cache_miss_count") + total("aotautograd_remote_cache_miss_count")
        for name, seconds in dynamo_utils.calculate_time_spent().items():
            out.raw_phases_s[name] = seconds
        out.autotune_s = sum(s for name, s in out.raw_phases_s.items() if "autotune" in name)

    @staticmethod
    def _metrics() -> list[dict[str, Any]]:
        return [dataclasses.asdict(m) if dataclasses.is_dataclass(m) else vars(m)
                for m in dynamo_utils.get_compilation_metrics()]


def _attempt(compile_id: Any) -> int:
    """The recompile attempt of a compile id such as "0/1" (frame 0, attempt 1)."""
    try:
        return int(str(compile_id).split("/")[1].split("_")[0])
    except (IndexError, ValueError):
        return 0
