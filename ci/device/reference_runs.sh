#!/usr/bin/env bash
# The reference runs on a lent GPU machine (no Bazel, no registry), one section per call so that each
# fits the machine's 10-minute command limit. Results go to $OUT/<section>/; PARITY_COMMIT fills the
# commit fields (the machine's copy of the tree has no .git).
# Carry .gen (the generated protobuf code: the machine has no grpcio-tools) with every call, and .whl and
# .torchbench for the TorchBench sections (ci/device/fetch_wheels.sh fills .whl/torchbench/).
#   timm-a, timm-b       TIMM BF16 inference, 9 models each, cold start, one at a time
#   checks               accuracy-only work side by side: the OpInfo suite (fp32, first sample, 14 shards),
#                        hf_Bert, FlexAttention on CUDA, the forced-fallback check
#   opinfo               the OpInfo suite alone (more than 150 s on the H200 since the always-all-samples ops; give it 480);
#                        SAMPLES=all: every sample, SHARDS=N, OPINFO_LIMIT_S=S per shard, RUN_ID=ID
#   timing-a             TIMM AMP training (3 models) and a model run with a forced fallback
#   timing-b             one process vs upstream's two (split) for two models: do the figures agree?
#   preflight            the selftest model on the GPU, forked from the zygote: is a forked child's CUDA sound?
#   timing-c             why single-process eager was slower: performance-only runs with and without
#                        CUBLAS_WORKSPACE_CONFIG exported (the launcher set it for accuracy children before
#                        commit 73a8a74), and a profiled single run (every model analysed)
#   verdicts SUITE RUN...  the A/A, A/B and spread runs of the verdict rule: RUN is aN (as it is), b (an Inductor
#                        variant) or before (timing without its own cores); see the section below
#   accuracy SUITE [MODE [MODEL...]]  accuracy only, at upstream's accuracy batch size (each manifest's
#                        accuracy_batch_size): the check whose statuses compare with the community's. MODE:
#                        inference, training or both (the default); default models: every forward entry. JOBS=N at
#                        a time (default 8; no timing, so side by side is fair), MODEL_TIMEOUT=S (default 400), RUN_ID=ID,
#                        SHARD=I/N (every N-th model from the I-th, to split a list over calls), BACKEND=B (default
#                        inductor_cudagraphs; inductor tells a CUDA graph fault from the rest); START_WITHIN and
#                        RESUME as for turns. Nine at a time needed MODEL_TIMEOUT=540 for TIMM training on an H100
#   turns SUITE MODE [MODEL...]  accuracy + performance, three models at a time (JOBS=N: N) taking turns on the
#                        device (only their compiles overlap; suites/common/device_turns.py); default: every forward
#                        entry. Turns share time, not memory: GPTJ and Blenderbot want JOBS=1, GPTNeo JOBS=2 (a model
#                        that runs out of memory beside others is run again alone at the end).
#                        MODEL_TIMEOUT=S: per-model limit (default 420); RUN_ID=ID: add to an earlier run's id;
#                        DEVICE_LOCK=FILE: take turns with another run that names the same file (two modes in
#                        one call: give each its own OUT so that their folders and packs stay apart);
#                        START_WITHIN=S: start no model after S s (the call's limit less a model's wall);
#                        RESUME=DIR: an earlier call's SUITE-MODE folder, carried: copied in, and the run goes on
#                        with what it left (suites.run --start-within, --resume; give no MODEL then)
#   llm BACKEND [MODEL...]  HuggingFace LLM entries through generate(), two at a time taking turns, 128 new tokens
#                        and five timed calls per phase (suites/huggingface/reference/README.md); default: all seven;
#                        RUN_ID=ID, START_WITHIN and RESUME (its folder is BACKEND) as for turns
#   performance SUITE MODE I/N   accuracy + performance, one model at a time, every N-th model from the I-th
#                        (e.g. `performance huggingface inference 0/4`: a quarter of the suite per call; on the
#                        H200 a quarter of HuggingFace inference needs 220 s to about 400 s: one quarter per call)
#   opinfo-case OP DTYPE  one OpInfo case on the GPU (python -m opinfo.run, every sample), its result in
#                        $OUT/opinfo-case/: the input of `triage opinfo CASE.opinfo.pb`, which may follow in the same call
#   triage SUITE RESULT...  tools.triage on stored compiled-side failures (tools/triage/README.md), side by side, each
#                        within LIMIT_S (default 520); TRIAGE_WORK=DIR: the work folders of an earlier call
#                        ($OUT/triage/work, carried back) to resume from
#   crosscheck SUITE MODE MODEL...  upstream's own harness beside Parity's on the same models, one model at a time
#                        (tools/crosscheck/README.md): upstream's accuracy and performance runs with the HUD dashboard's
#                        flags, then Parity's split run; the side-by-side table is $OUT/crosscheck/SUITE-MODE/crosscheck.md.
#                        CROSSCHECK_ARGS: more tools.crosscheck flags (e.g. --parity-arg=--timing-cap-s=0: Parity
#                        times one round of 30 pairs, as upstream does, and not until its interval is narrow)
#                        MODEL_TIMEOUT=S per model process of either side (default 300), RUN_ID=ID. Carry .dynamobench,
#                        upstream's benchmarks/dynamo folder (git-ignored, never committed), made on this machine from
#                        a pytorch/benchmark clone or bare mirror (MIRROR: its git directory):
#                          mkdir .dynamobench && git --git-dir=MIRROR archive HEAD \
#                            userbenchmark/dynamo/dynamobench | tar -x --strip-components=3 -C .dynamobench
#                        pytorch/benchmark's copy lacks two files that pytorch's benchmarks/dynamo has: put
#                        timm_models.yaml and huggingface_llm_models.py from a pytorch checkout of the same date beside
#                        it (`git -C PYTORCH show COMMIT:benchmarks/dynamo/timm_models.yaml >.dynamobench/timm_models.yaml`).
#                        TorchBench also needs .torchbench as made by suites/torchbench/trim_checkout.py (it holds the
#                        torchvision models' folders, which upstream imports).
# These sections time one model at a time; side-by-side runs with timing take turns on the device
# (suites/common/device_turns.py). Wheels carried in .whl/ are installed first (see below). The section's folder is also packed as
# $OUT/<section>.tgz, even when the section is cut short: the machine returns only a few loose files.
set -uo pipefail
cd "$(dirname "$0")/../.."
# A pinned tree (ci/device/pin_tree.sh) names its own commit; another one in PARITY_COMMIT would mislabel every result.
if [[ -f COMMIT ]]; then
  if [[ ${PARITY_COMMIT:-} && ${PARITY_COMMIT:0:7} != "$(<COMMIT)" ]]; then
    echo "PARITY_COMMIT=$PARITY_COMMIT, but this tree is pinned at $(<COMMIT): unset it" >&2
    exit 2
  fi
  export PARITY_COMMIT=$(<COMMIT)
fi
section="${1:?usage: reference_runs.sh SECTION (see the header)}"
out="${OUT:?set OUT to the folder results go to}/$section"
mkdir -p "$out"
# Packed on any exit, so a section stopped by an outer `timeout` still brings back what it finished.
# Without the triages' compile caches and bisector folders (kernels: large, and rebuilt where they are needed) and the
# tensors their minifier folders save (a model's activations: over the 16 MiB a file may bring back); the inputs of
# the stored repros come in a pack of their own, so that a large one leaves the rest to come back.
pack() {
  tar -C "$OUT" -czf "$OUT/$section.tgz" --exclude="$section/work/*/bisect" --exclude="$section/work/*/storages" \
    --exclude="$section/*.repro.inputs" "$section"
  (cd "$OUT" && compgen -G "$section/*.repro.inputs" >/dev/null && tar -czf "$section-repro-inputs.tgz" "$section"/*.repro.inputs)
}
trap pack EXIT
# GNU timeout signals the whole process group, so the section's python3 gets SIGTERM too, and then writes a result for
# each model it stops. Packing at once would lose those: with this trap bash first waits for its foreground command
# (a trap runs when that command ends) or its background ones, and only then exits to pack.
trap 'wait; exit 143' TERM
# Always an argument: a bare `source` would hand install_wheels.sh this script's own arguments as $1.
if [[ ${2:-} == torchbench ]]; then  # a section that takes SUITE first: TorchBench's wheels and carried checkout
  export PARITY_TORCHBENCH_DIR=$PWD/.torchbench
  source ci/device/install_wheels.sh torchbench
else
  source ci/device/install_wheels.sh ""
fi
export PYTHONUNBUFFERED=1
# Run ids name the day and the commit: a result's id is derived from its run id and configuration, so two runs
# of one configuration on the same day (a rerun after a fix) must not share a run id.
commit=${PARITY_COMMIT:-local}
run_tag="$(date +%F)-${commit:0:7}"
timm=(python3 -m suites.run --suite timm --device cuda --backend inductor_cudagraphs)

models() { for m in "$@"; do printf -- '--model %s ' "$m"; done; }
# RESUME=DIR: an earlier call's folder for this run, carried in; $OUT is empty on every call, so it is copied into
# the run's folder ($1) before suites.run goes on with --resume. START_WITHIN=S becomes --start-within S.
resumable() {
  if [[ -n ${RESUME:-} ]]; then mkdir -p "$1" && cp -r "$RESUME"/. "$1"/; fi
  printf -- '%s ' ${START_WITHIN:+--start-within "$START_WITHIN"} ${RESUME:+--resume}
}

run_opinfo() {  # fp32 scope, first sample of every case, SHARDS (default 14) side by side, one compile thread each
  # SAMPLES=all: every sample of every case (the nightly's sampling), each shard cut at OPINFO_LIMIT_S (default 470);
  # a shard cut short keeps the cases it finished, each its own result file.
  local shards=${SHARDS:-14} i samples=(--max-samples 1) what="first sample of every case (--max-samples 1)"
  if [[ ${SAMPLES:-first} == all ]]; then samples=(); what="every sample"; fi
  for ((i = 0; i < shards; i++)); do
    TEST_TOTAL_SHARDS=$shards TEST_SHARD_INDEX=$i TEST_SHARD_STATUS_FILE=/tmp/opinfo-shard-$i \
      TORCHINDUCTOR_COMPILE_THREADS=1 timeout "${OPINFO_LIMIT_S:-470}" python3 -m opinfo.run --device cuda "${samples[@]}" \
      --run-id "${RUN_ID:-h200-opinfo-$run_tag}" --out "$out/opinfo" >"$out/opinfo-shard-$i.log" 2>&1 &
  done
  wait
  python3 -m opinfo.summaries "$out/opinfo" --shards $shards --out "$out/opinfo-summary.json" \
    --note "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), torch $(python3 -c 'import torch; print(torch.__version__)'), fp32 scope, $what, $shards shards side by side" \
    >"$out/opinfo-merge.log" 2>&1
}

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
    "${timm[@]}" --mode inference --timeout 150 --run-id "h200-timm-$run_tag" --out "$out" $(models \
      adv_inception_v3 beit_base_patch16_224 convnextv2_nano.fcmae_ft_in22k_in1k deit_base_distilled_patch16_224 \
      deit_tiny_patch16_224.fb_in1k dm_nfnet_f0 ghostnet_100 inception_v3 mobilenetv2_100) ;;
  timm-b)
    # shellcheck disable=SC2046
    "${timm[@]}" --mode inference --timeout 150 --run-id "h200-timm-$run_tag" --out "$out" $(models \
      mobilenetv3_large_100 mobilevit_s nfnet_l0 repvgg_a2 swin_base_patch4_window7_224 tf_efficientnet_b0 \
      visformer_small vit_base_patch14_dinov2.lvd142m vit_base_patch16_siglip_256) ;;
  opinfo) run_opinfo ;;
  checks)
    run_opinfo &
    PARITY_RUN_ID=${RUN_ID:-h200-checks-$run_tag} timeout 470 python3 -m opinfo.hf_bert --device cuda --size full \
      --out "$out/hf_bert" >"$out/hf_bert.log" 2>&1 &
    timeout 120 python3 flex_attention/test_flex_attention_requirement1_fake_tensor.py >"$out/flex_fake_tensor.log" 2>&1
    echo "flex fake-tensor exit $?" >>"$out/flex_fake_tensor.log"
    timeout 300 python3 -m pytest -q -p no:cacheprovider flex_attention/cuda_regression_test.py >"$out/flex_cuda.log" 2>&1
    echo "flex cuda regression exit $?" >>"$out/flex_cuda.log"
    timeout 200 python3 -m compiler.fallback.check --device cuda >"$out/fallback_check.json" 2>"$out/fallback_check.log"
    echo "fallback check exit $?" >>"$out/fallback_check.log"
    wait ;;
  timing-a)
    # shellcheck disable=SC2046
    "${timm[@]}" --mode training --timeout 300 --run-id "h200-timm-$run_tag" --out "$out" $(models \
      deit_tiny_patch16_224.fb_in1k repvgg_a2 tf_efficientnet_b0)
    PARITY_FORCE_FALLBACK="aten.gelu.default=forced on H200 to show the policy in a model result" \
      "${timm[@]}" --mode inference --timeout 150 --run-id "h200-forced-fallback-$run_tag" --out "$out/forced_fallback" \
      --model deit_tiny_patch16_224.fb_in1k ;;
  timing-b)
    for model in deit_tiny_patch16_224.fb_in1k deit_base_distilled_patch16_224; do
      "${timm[@]}" --mode inference --timeout 150 --run-id "h200-single-1-$run_tag" --out "$out/single-1" --model "$model"
      "${timm[@]}" --mode inference --timeout 150 --split-processes --run-id "h200-split-$run_tag" --out "$out/split" \
        --model "$model"
      "${timm[@]}" --mode inference --timeout 150 --run-id "h200-single-2-$run_tag" --out "$out/single-2" --model "$model"
    done
    python3 -m suites.table "$out"/single-1 "$out"/split "$out"/single-2 --label ;;
  preflight)
    python3 -m suites.run --suite selftest --model healthy --model raises_in_forward --device cuda --backend inductor \
      --timeout 120 --out "$out" ;;
  timing-c)
    for model in deit_base_distilled_patch16_224 deit_tiny_patch16_224.fb_in1k; do
      for round in 1 2; do
        "${timm[@]}" --mode inference --timeout 150 --plan performance --run-id "h200-perf-$round-$run_tag" \
          --out "$out/perf-$round" --model "$model"
        CUBLAS_WORKSPACE_CONFIG=:4096:8 "${timm[@]}" --mode inference --timeout 150 --plan performance \
          --run-id "h200-perf-cublas-$round-$run_tag" --out "$out/perf-cublas-$round" --model "$model"
      done
      PARITY_BOTTLENECK_TARGET=100 "${timm[@]}" --mode inference --timeout 150 --run-id "h200-single-profiled-$run_tag" \
        --out "$out/single-profiled" --model "$model"
    done ;;
  verdicts)
    # The runs behind the verdict rule (README.md, "How a verdict is decided"): BF16 inference, performance only,
    # every forward entry, JOBS (default 4) at a time taking turns, timing capped at CAP s (default 10) per model.
    # RUN: aN the suite as it is (the first fills a compile cache, later ones start warm from it); b the Inductor
    # variant VARIANT (default: layout optimisation off, which slows convolutions), its own cold cache; before:
    # timing as before the timing cores, one round of 30 pairs on shared cores, warm.
    suite=${2:?verdicts SUITE RUN...}
    for run in "${@:3}"; do
      case "$run" in
        a*) extra=(--inductor-cache "/tmp/verdict-cache-$suite") ;;
        b) extra=(--inductor-config "${VARIANT:-{\"layout_optimization\": false\}}") ;;
        before) extra=(--inductor-cache "/tmp/verdict-cache-$suite" --timing-cpus 0 --timing-cap-s 0) ;;
        *) echo "verdicts: unknown run $run (aN, b or before)" >&2; exit 2 ;;
      esac
      start=$SECONDS
      python3 -m suites.run --suite "$suite" --device cuda --backend inductor_cudagraphs --mode inference \
        --plan performance --workload forward --jobs "${JOBS:-4}" --timeout "${MODEL_TIMEOUT:-300}" \
        --timing-cap-s "${CAP:-10}" "${extra[@]}" --run-id "verdict-$suite-$run-$run_tag" --out "$out/$suite-$run" \
        >"$out/$suite-$run.log" 2>&1
      echo "[verdicts] $suite $run: exit $?, $((SECONDS - start)) s; $(tail -1 "$out/$suite-$run.log")"
    done ;;
  accuracy)
    suite=${2:?accuracy SUITE [MODE [MODEL...]]}; mode=${3:-both}
    # shellcheck disable=SC2046
    python3 -m suites.run --suite "$suite" --device cuda --backend "${BACKEND:-inductor_cudagraphs}" --mode "$mode" \
      --plan accuracy --workload forward --jobs "${JOBS:-8}" --timeout "${MODEL_TIMEOUT:-400}" --run-id "${RUN_ID:-h200-$suite-accuracy-$run_tag}" \
      ${SHARD:+--shard "$SHARD"} $(resumable "$out/$suite-$mode") --out "$out/$suite-$mode" $(models "${@:4}") ;;
  turns)
    suite=${2:?turns SUITE MODE [MODEL...]}; mode=${3:?turns SUITE MODE [MODEL...]}
    # shellcheck disable=SC2046
    python3 -m suites.run --suite "$suite" --device cuda --backend inductor_cudagraphs --mode "$mode" --workload forward \
      --jobs "${JOBS:-3}" --timeout "${MODEL_TIMEOUT:-420}" --run-id "${RUN_ID:-h200-$suite-$mode-$run_tag}" \
      ${DEVICE_LOCK:+--device-lock "$DEVICE_LOCK"} $(resumable "$out/$suite-$mode") --out "$out/$suite-$mode" \
      $(models "${@:4}") ;;
  llm)
    backend=${2:?llm BACKEND [MODEL...]}
    # shellcheck disable=SC2046
    PARITY_GENERATION_MAX_NEW_TOKENS=128 python3 -m suites.run --suite huggingface --device cuda --backend "$backend" \
      --mode inference --workload generation --jobs 2 --repeats 5 --timeout 530 \
      --run-id "${RUN_ID:-h200-huggingface-llm-$backend-$run_tag}" $(resumable "$out/$backend") --out "$out/$backend" \
      $(models "${@:3}") ;;
  performance)
    suite=${2:?performance SUITE MODE I/N}; mode=${3:?performance SUITE MODE I/N}; shard=${4:-0/1}
    python3 -m suites.run --suite "$suite" --device cuda --backend inductor_cudagraphs --mode "$mode" --workload forward \
      --shard "$shard" --timeout 300 --run-id "h200-$suite-$mode-$run_tag" --out "$out/$suite-$mode-${shard/\//of}" ;;
  crosscheck)
    suite=${2:?crosscheck SUITE MODE MODEL...}; mode=${3:?crosscheck SUITE MODE MODEL...}
    [[ $# -ge 4 ]] || { echo "crosscheck SUITE MODE MODEL...: name at least one model" >&2; exit 2; }
    # shellcheck disable=SC2046
    python3 -m tools.crosscheck --upstream "$PWD/.dynamobench" --suite "$suite" --mode "$mode" --device cuda \
      --timeout-s "${MODEL_TIMEOUT:-300}" --run-id "${RUN_ID:-crosscheck-$suite-$mode-$run_tag}" \
      --out "$out/$suite-$mode" $(models "${@:4}") ${CROSSCHECK_ARGS:-} ;;
  opinfo-case)
    op=${2:?opinfo-case OP DTYPE}; dtype=${3:?opinfo-case OP DTYPE}
    python3 -m opinfo.run --device cuda --ops "$op" --dtypes "$dtype" --run-id "opinfo-case-$run_tag" --out "$out" \
      >"$out/run.log" 2>&1 ;;
  triage)
    suite=${2:?triage SUITE RESULT...}
    [[ $# -ge 3 ]] || { echo "triage SUITE RESULT...: name at least one result file" >&2; exit 2; }
    # Side by side (accuracy runs only, nothing is timed). A work folder carried from an earlier call's
    # $OUT/triage/work (TRIAGE_WORK) resumes its triage where that call's limit stopped it.
    triages=()
    for result in "${@:3}"; do
      stem=$(basename "${result%.*}")
      mkdir -p "$out/work"
      if [[ -d ${TRIAGE_WORK:-/nonexistent}/$stem ]]; then cp -r "$TRIAGE_WORK/$stem" "$out/work/"; fi
      python3 -m tools.triage "$result" --limit-s "${LIMIT_S:-520}" --out "$out" --keep-work "$out/work/$stem" \
        --inductor-cache "/tmp/triage-cache/$stem" >"$out/$stem.log" 2>&1 &
      triages+=($!)
    done
    # SIGTERM (an outer `timeout` signals the whole process group; a `kill` this shell alone) ends a triage as its
    # limit does, and it then writes its record: pass the signal on (a triage heeds only the first), and wait for the
    # records before the section is packed.
    trap 'kill -TERM "${triages[@]}" 2>/dev/null; wait; exit 143' TERM
    wait ;;
  *) echo "unknown section $section: see the header of $0" >&2; exit 2 ;;
esac
echo "[reference_runs] $section done"
