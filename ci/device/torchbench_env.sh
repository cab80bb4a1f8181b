# Sourced (not run) by ci/device/install_wheels.sh once the wheels carried in .whl/ are installed into the folder
# it names ($1) and that folder is on PYTHONPATH. It does what a plain `pip install --no-deps --target` of those
# wheels cannot, for the TorchBench models (shared/reference/torchbench-offline.md, "Gotchas found by running").
# It is idempotent, it only warns, and it is safe under `set -euo pipefail`.
# Handled elsewhere: setuptools<81 (pkg_resources, for fastNLP and librosa) comes in .whl/ and shadows the image's
# setuptools; opacus' numpy<2 pin is ignored because of --no-deps.
_tb_site=${1:?torchbench_env.sh: name the folder the wheels went to}
_tb_patch=${PARITY_TORCHBENCH_DIR:-$PWD/.torchbench}/torchbenchmark/models/fastNLP_Bert/fastnlp.patch

# fastNLP_Bert: TorchBench's install.py patches fastNLP 0.6.0 after installing it. The patch makes _BertWordModel
# build a randomly initialised BertModel from the JSON config at $TORCHBENCH_FASTNLP_CONFIG_PATH, which the model
# writes. Unpatched, it calls BertModel.from_pretrained, which downloads. The image may have no GNU patch, so python3
# applies the hunks: each hunk's old lines are replaced by its new lines, exactly once. A hunk whose new lines are
# already there is skipped; that covers a second sourcing. The file to patch is the "--- a/" name, as with
# install.py's python-patch and with GNU patch; the "+++ b/" name has a typo (bert_bmbedding.py).
if [ -d "$_tb_site/fastNLP" ] && [ -f "$_tb_patch" ]; then
  python3 - "$_tb_patch" "$_tb_site" <<'EOF' || echo "[torchbench_env] WARNING: fastNLP is not patched" >&2
import pathlib, sys
patch, site = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
hunks, target = [], None
for line in patch.read_text(encoding="utf-8").splitlines(keepends=True):
    if line.startswith("--- a/"):
        target = site / line[len("--- a/"):].strip()
    elif line.startswith("@@"):
        hunks.append([target, "", ""])
    elif hunks and not line.startswith("+++ ") and line[:1] in (" ", "-", "+", "\n"):
        body = line[1:] if line != "\n" else "\n"
        if line[0] != "+":
            hunks[-1][1] += body
        if line[0] != "-":
            hunks[-1][2] += body
done = 0
for path in dict.fromkeys(h[0] for h in hunks):
    text = path.read_bytes().decode("utf-8")
    for _, old, new in (h for h in hunks if h[0] == path):
        if new in text and old not in text:
            continue
        if text.count(old) != 1:
            sys.exit(f"[torchbench_env] {patch.name}: a hunk does not apply to {path}")
        text, done = text.replace(old, new), done + 1
    path.write_bytes(text.encode("utf-8"))
print(f"[torchbench_env] {patch.name}: {done} hunks applied, {len(hunks) - done} there already")
EOF
fi

# tacotron2's librosa: when librosa can be imported, transformers' audio_utils also imports soxr, and without
# soxr every HF model fails to import. soxr is carried, so this only guards a .whl/ that lacks it.
if [ -d "$_tb_site/librosa" ] && [ ! -d "$_tb_site/soxr" ]; then
  echo "[torchbench_env] soxr is not carried: removing librosa from $_tb_site (tacotron2 cannot load)" >&2
  rm -rf "$_tb_site/librosa" "$_tb_site"/librosa-*.dist-info
fi
unset _tb_site _tb_patch
