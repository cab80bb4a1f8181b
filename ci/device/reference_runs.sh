#!/usr/bin/env bash
# The reference runs on a lent GPU machine (no Bazel, no registry), one section per call so that each
# fits the machine's 10-minute command limit. Results go to $OUT/<section>/; PARITY_COMMIT fills the
# commit fields (the machine's copy of the tree has no .git).
#   bash ci/device/reference_runs.sh timm-a        # TIMM BF16 inference, first 9 models, cold start; then
#                                                  # deit_tiny split into two processes, FlexAttention on CUDA,
#                                                  # the forced-fallback check and a model run with a forced fallback
#   bash ci/device/reference_runs.sh timm-b        # the other 9
#   bash ci/device/reference_runs.sh timm-training # AMP training, 3 models
#   bash ci/device/reference_runs.sh samples       # HuggingFace, TorchBench and OpInfo samples
# Wheels carried in .whl/ (expecttest for OpInfo) are installed first; TorchBench reads .torchbench/.
# The section's folder is also packed as $OUT/<section>.tgz: the machine returns only a few loose files.
set -uo pipefail
cd "$(dirname "$0")/../.."
section="${1:?usage: reference_runs.sh timm-a|timm-b|timm-training|samples}"
out="${OUT:?set OUT to the folder results go to}/$section"
mkdir -p "$out"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONUNBUFFERED=1
day=$(date +%F)
timm=(python3 -m suites.run --suite timm --device cuda --backend inductor_cudagraphs)

models() { for m in "$@"; do printf -- '--model %s ' "$m"; done; }

python3 - <<'EOF' >"$out/ENV.txt" 2>&1
import platform, torch, triton
print("python", platform.python_version()); print("torch", torch.__version__); print("triton", triton.__version__)
print("device", torch.cuda.get_device_name())  # the driver: nvidia-smi's line below
for name in ("timm", "transformers"):
    try:
        print(name, __import__(name).__version__)
    except ImportError:
        print(name, "absent")
EOF
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >>"$out/ENV.txt" 2>&1

case "$section" in
  timm-a)
    # shellcheck disable=SC2046
    "${timm[@]}" --mode inference --timeout 150 --run-id "h200-timm-$day" --out "$out" $(models \
      adv_inception_v3 beit_base_patch16_224 convnextv2_nano.fcmae_ft_in22k_in1k deit_base_distilled_patch16_224 \
      deit_tiny_patch16_224.fb_in1k dm_nfnet_f0 ghostnet_100 inception_v3 mobilenetv2_100)
    # Upstream's layout (two processes, two cold compiles), to compare with the single-process figure above.
    "${timm[@]}" --mode inference --timeout 150 --split-processes --run-id "h200-timm-split-$day" \
      --out "$out/split" --model deit_tiny_patch16_224.fb_in1k
    python3 flex_attention/test_flex_attention_requirement1_fake_tensor.py >"$out/flex_fake_tensor.log" 2>&1
    echo "flex fake-tensor exit $?" >>"$out/flex_fake_tensor.log"
    python3 -m pytest -q -p no:cacheprovider flex_attention/cuda_regression_test.py >"$out/flex_cuda.log" 2>&1
    python3 -m compiler.fallback.check --device cuda >"$out/fallback_check.json" 2>"$out/fallback_check.log"
    PARITY_FORCE_FALLBACK="aten.gelu.default=forced on H200 to show the policy in a model result" \
      "${timm[@]}" --mode inference --timeout 150 --run-id "h200-forced-fallback-$day" --out "$out/forced_fallback" \
      --model deit_tiny_patch16_224.fb_in1k ;;
  timm-b)
    # shellcheck disable=SC2046
    "${timm[@]}" --mode inference --timeout 150 --run-id "h200-timm-$day" --out "$out" $(models \
      mobilenetv3_large_100 mobilevit_s nfnet_l0 repvgg_a2 swin_base_patch4_window7_224 tf_efficientnet_b0 \
      visformer_small vit_base_patch14_dinov2.lvd142m vit_base_patch16_siglip_256) ;;
  timm-training)
    # shellcheck disable=SC2046
    "${timm[@]}" --mode training --timeout 150 --run-id "h200-timm-$day" --out "$out" $(models \
      deit_tiny_patch16_224.fb_in1k repvgg_a2 tf_efficientnet_b0) ;;
  samples)
    hf=(python3 -m suites.run --suite huggingface --device cuda --backend inductor_cudagraphs)
    "${hf[@]}" --mode inference --timeout 150 --run-id "h200-hf-$day" --out "$out/huggingface" \
      --model BertForMaskedLM --model T5Small --model DistillGPT2
    PARITY_GENERATION_MAX_NEW_TOKENS=64 "${hf[@]}" --mode inference --timeout 200 --run-id "h200-hf-$day" \
      --out "$out/huggingface" --model Qwen/Qwen3-0.6B
    PARITY_TORCHBENCH_DIR=$PWD/.torchbench python3 -m suites.run --suite torchbench --device cuda \
      --backend inductor_cudagraphs --mode inference --timeout 150 --run-id "h200-torchbench-$day" \
      --out "$out/torchbench" --model BERT_pytorch --model dcgan --model mobilenet_v2 --model hf_Albert
    python3 -m opinfo.run --device cuda --group norm,conv,matmul --max-samples 1 --run-id "h200-opinfo-$day" \
      --out "$out/opinfo" >"$out/opinfo.log" 2>&1
    echo "opinfo exit $?" >>"$out/opinfo.log" ;;
  *) echo "unknown section $section: timm-a, timm-b, timm-training or samples" >&2; exit 2 ;;
esac
tar -C "$OUT" -czf "$OUT/$section.tgz" "$section"
echo "[reference_runs] $section done"
