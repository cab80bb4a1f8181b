"""Turn-taking on the device: a process holds its turn except while PyTorch compiles, forward or lazy backward,
and the time it waits to get the turn back is counted. Real compiles on the CPU; the sibling is a second
descriptor on the same lock file, which flock treats as another holder."""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from typing import Any, Callable

import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd

from suites.common.device_turns import DeviceTurns, turn_is_free

SIBLING_HOLDS_S = 1.0  # from inside the compile: the rest of the compile overlaps part of it


def _observing(lock: Path, seen: list[bool]) -> Callable[..., Any]:
    def compiler(gm: torch.fx.GraphModule, _example_inputs: Any) -> Callable[..., Any]:
        seen.append(turn_is_free(lock))
        return make_boxed_func(gm.forward)
    return compiler


def test_the_turn_is_given_up_only_while_compiling(tmp_path: Path) -> None:
    torch._dynamo.reset()
    lock = tmp_path / "device.lock"
    forward_seen: list[bool] = []
    backward_seen: list[bool] = []
    backend = aot_autograd(fw_compiler=_observing(lock, forward_seen), bw_compiler=_observing(lock, backward_seen))
    fn = torch.compile(lambda x: (x.sin() * 2).sum(), backend=backend)
    x = torch.ones(4, requires_grad=True)
    turns = DeviceTurns(str(lock))
    with turns.taken():
        assert not turn_is_free(lock)
        loss = fn(x)
        assert not turn_is_free(lock)  # taken back after the forward compile
        loss.backward()
        assert not turn_is_free(lock)  # and after the backward's
    assert forward_seen == [True] and backward_seen == [True]
    assert torch.allclose(x.grad, 2 * torch.cos(torch.ones(4)))
    assert turn_is_free(lock)  # given back when the block ends


def test_the_wait_for_the_turn_after_a_compile_is_counted(tmp_path: Path) -> None:
    torch._dynamo.reset()
    lock = tmp_path / "device.lock"

    def sibling_takes_the_turn(gm: torch.fx.GraphModule, _example_inputs: Any) -> Callable[..., Any]:
        fd = os.open(lock, os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)  # free while we compile, so this does not block
        threading.Timer(SIBLING_HOLDS_S, os.close, args=(fd,)).start()
        return gm.forward

    fn = torch.compile(lambda x: x.cos() + 1, backend=sibling_takes_the_turn)
    turns = DeviceTurns(str(lock))
    with turns.taken():
        fn(torch.ones(3))
    assert turns.waited_s >= SIBLING_HOLDS_S / 2


def test_without_a_lock_file_nothing_is_taken() -> None:
    turns = DeviceTurns(None)
    with turns.taken():
        torch.compile(lambda x: x + 1, backend="eager")(torch.ones(2))
    assert turns.lock_path is None and turns.waited_s == 0.0


def test_a_dynamo_reset_inside_the_block_keeps_turn_taking(tmp_path: Path) -> None:
    """torch._dynamo.reset() clears every compile callback; training runs reset between timing and their check."""
    torch._dynamo.reset()
    lock = tmp_path / "device.lock"
    seen: list[bool] = []
    turns = DeviceTurns(str(lock))
    with turns.taken():
        turns.reset_dynamo()
        torch.compile(lambda x: x.tan() + 1, backend=aot_autograd(fw_compiler=_observing(lock, seen)))(torch.ones(3))
        assert not turn_is_free(lock)
    assert seen == [True]
    assert turn_is_free(lock)
