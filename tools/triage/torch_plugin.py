"""Makes `import torch` call a function of ours in a fresh interpreter: the way an out-of-tree device backend
(torch_npu) hooks into torch. torch calls, at the end of its import, every entry point in the group `torch.backends`
of the distributions on sys.path (device-backend autoload; TORCH_DEVICE_BACKEND_AUTOLOAD=0 turns it off). A folder
holding such a distribution's metadata, put on a process's path, installs the function there and nowhere else."""

from __future__ import annotations

from pathlib import Path

ENTRY_POINT_GROUP = "torch.backends"  # the group torch/__init__.py's _import_device_backends loads


def plugin_folder(dest: Path, name: str, target: str) -> Path:
    """Writes distribution `name`'s metadata, with the entry point `target` ("module:function"), into `dest` (a folder
    for sys.path) and returns `dest`. The module must be importable there too (the triage passes its sys.path on)."""
    dist = dest / f"{name}-0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{name} = {target}\n")
    return dest
