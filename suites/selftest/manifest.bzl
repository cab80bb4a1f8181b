"""Self-test suite: deliberately broken models, each with the status the harness must classify.

Data only; see suites/selftest/loader.py for what each model does.
"""

MANIFEST = {
    "suite": "selftest",
    "version": "1.6.0",
    "accuracy_batch_size": 4,
    "tolerance": {"training": 0.01, "inference": 0.001},
    "models": {
        "healthy": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "healthy"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "healthy"}},
        },
        "killed": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "killed"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "killed"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "crash", "reason": "SIGKILL at load: the parent classifies a child that vanished"}],
        },
        "segfault": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "segfault"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "segfault"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "crash", "reason": "SIGSEGV at load: the parent classifies a native crash"}],
        },
        "hang": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "hang"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "hang"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "timeout", "reason": "sleeps at load: the parent kills it at the timeout"}],
        },
        "exits": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "exits"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "exits"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "crash", "reason": "sys.exit(3) at load: a child that exits without a result"}],
        },
        "not_implemented": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "not_implemented"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "not_implemented"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "model_fail_to_load", "reason": "NotImplementedError at load, as upstream"}],
        },
        "raises_in_forward": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "raises_in_forward"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "raises_in_forward"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "eager_fail_to_run", "reason": "the model's first eager iteration raises: upstream's validate_model at load"}],
        },
        "raises_when_checked": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "raises_when_checked"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "raises_when_checked"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "eager_1st_run_fail", "reason": "runs while timed, raises in the accuracy check's first eager run (deterministic algorithms on)"}],
        },
        "killed_when_checked": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "killed_when_checked"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "killed_when_checked"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "crash", "reason": "timed, then SIGKILL in the accuracy check: the parent's crash result keeps the timings"}],
        },
        "device_oom": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "device_oom"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "device_oom"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "eager_fail_to_run", "reason": "the model's first eager iteration raises torch.OutOfMemoryError: upstream's validate_model, whose failures are all eager_fail_to_run"}],
        },
        "oom_beside_others": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "oom_beside_others"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "oom_beside_others"}},
        },
        "not_deterministic": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "not_deterministic"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "not_deterministic"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "eager_two_runs_differ", "reason": "each eager call differs"}],
        },
        "differs_when_compiled": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "differs_when_compiled"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "differs_when_compiled"}},
            "expected": [{"device": "*", "mode": "*", "backend": "*", "status": "fail_accuracy", "reason": "compiled output is off by one"}],
        },
        # Upstream's accuracy lists on models that would fail without them (manifest.py: large_model,
        # eager_not_deterministic, non_deterministic).
        "listed_non_deterministic": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "not_deterministic"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "not_deterministic"}},
            "non_deterministic": True,
        },
        "listed_eager_not_deterministic": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "not_deterministic"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "not_deterministic"}},
            "eager_not_deterministic": True,
            "expected": [{"device": "*", "mode": "inference", "backend": "*", "status": "eager_two_runs_differ", "reason": "the list applies to training only"}],
        },
        "listed_large_model": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "differs_when_compiled"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "differs_when_compiled"}},
            "large_model": True,
        },
        # Upstream never runs a large model's accuracy check, so a failure while timing does not change its status.
        "listed_large_model_fails_timing": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "raises_in_forward"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "raises_in_forward"}},
            "large_model": True,
        },
        # Passes: the timed module's checked run starts from the state its eager reference had.
        "updates_its_state": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"behaviour": "updates_its_state"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "updates_its_state"}},
        },
        # Passes; its speedup target is out of reach, so every run gets a bottleneck analysis (with
        # PARITY_FORCE_FALLBACK=aten.gelu.default, Inductor's run is dominated by that fallback).
        "slow_fallback": {
            "modes": {"inference": {"batch_size": 32}},
            "build": {"behaviour": "slow_fallback"},
            "smoke": {"batch_size": 32, "build": {"behaviour": "slow_fallback"}},
            "speedup_target": 1000.0,
        },
        # Passes: sound, with one tanh. tools/triage's tests plant a fault in Inductor's tanh lowering (a test-only
        # device-backend plugin, tools/triage/planted_fault.py), which makes it fail_accuracy in a known place.
        "tanh_mlp": {
            "modes": {"inference": {"batch_size": 4}},
            "build": {"behaviour": "tanh_mlp"},
            "smoke": {"batch_size": 4, "build": {"behaviour": "tanh_mlp"}},
        },
    },
}
