"""Makes `parity.v1.results_pb2` importable outside Bazel (plain pytest, the CLI on a GPU machine).

Bazel generates the module with a genrule; elsewhere it is generated into <repo>/.gen with
grpcio-tools' protoc, or taken from a .gen folder that was generated on another machine and carried.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = REPO_ROOT / "proto"
GEN_ROOT = REPO_ROOT / ".gen"
SCHEMAS = ("parity/v1/results.proto", "parity/v1/opinfo.proto")


def ensure_generated() -> None:
    package = importlib.util.find_spec("parity")
    if package is not None and GEN_ROOT / "parity" not in _locations(package):
        # Bazel's genrules provide the modules a target depends on; never write into the source tree from
        # a sandbox (REPO_ROOT resolves through the runfiles links).
        return
    if _stale():
        _generate()
    if str(GEN_ROOT) not in sys.path:
        sys.path.insert(0, str(GEN_ROOT))
    # pytest may have put .gen on sys.path before it existed; drop the cached "no such folder" finder.
    sys.path_importer_cache.pop(str(GEN_ROOT), None)
    importlib.invalidate_caches()


def _locations(package: importlib.machinery.ModuleSpec) -> list[Path]:
    return [Path(location).resolve() for location in package.submodule_search_locations or ()]


def _stale() -> bool:
    for schema in SCHEMAS:
        generated = GEN_ROOT / schema.replace(".proto", "_pb2.py")
        if not generated.exists() or generated.stat().st_mtime < (PROTO_ROOT / schema).stat().st_mtime:
            return True
    return False


def _generate() -> None:
    GEN_ROOT.mkdir(exist_ok=True)
    cmd = [sys.executable, "-m", "grpc_tools.protoc", f"--proto_path={PROTO_ROOT}", f"--python_out={GEN_ROOT}", *SCHEMAS]
    done = subprocess.run(cmd, cwd=PROTO_ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"protoc failed ({' '.join(cmd)}): {done.stderr.strip()} -- install grpcio-tools "
                           "(tools/bootstrap.sh does) or carry a .gen folder generated on another machine")
