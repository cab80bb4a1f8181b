"""Lets torch's minifier after AOT Autograd cut a graph whose compiled code raises, in one process (torch 2.11, 2.14.1).

minify.py runs the launcher with `minify --no-isolate` for `fail_to_run`. Each of the minifier's queries is then
`after_aot.inductor_fails(graph, inputs)`, which runs the compiled graph with Inductor's boxed calling convention,
`compiled(inputs)`, and that call empties the list it is given. The list is the minifier's own inputs: the first
query finds the failure, and the minifier's next step, left with no inputs, stops on its own assert (H100, a7cea40,
the OpInfo case `_efficient_attention_forward`: "len(ph_nodes)=8 != len(self.inps)=0"). `install` gives each query a
copy of the list. The accuracy queries (`fail_accuracy`) copy their inputs themselves.
"""

from __future__ import annotations

from typing import Any


def install() -> None:
    from torch._dynamo.repro import after_aot

    fails = after_aot.ACCURACY_FAILS[""]
    if getattr(fails, "parity_patched", False):
        return

    def fails_on_a_copy(graph: Any, inputs: Any, check_str: str | None = None) -> bool:
        return fails(graph, list(inputs), check_str=check_str)

    fails_on_a_copy.parity_patched = True  # type: ignore[attr-defined]
    after_aot.ACCURACY_FAILS[""] = fails_on_a_copy
