
@277e5c0556cbe1c1635b9d05ac7386da13bb36def49afecb191ea2da2ca7534dtriageM
opinfo3torch.ops.aten._efficient_attention_forward float32*inductor:cuda*fail_to_run0:„
bec7fc32.11.0"3.6.023.12.3:#
opinfo_tolerances1:f6be35345260:

expecttest0.3.0:
transformers5.17.0BcudaJNVIDIA H200Rsm90Zvmb1j@1db3df573e525324448fd73111c40168ae1b113ca1d923a40699d37211369cda‚/work/main/opinfo/run.py‚--device‚cuda‚--ops‚+torch.ops.aten._efficient_attention_forward‚--dtypes‚float32‚--max-samples‚18‚--gradients‚on‚--run-id‚triage‚--out‚q/root/out/op/triage/work/opinfo-cuda-torch.ops.aten._efficient_attention_forward-float32.opinfo/runs/01-reproducerŒAssertionError÷in the backward: expected size 11==11, stride 32==8 at dim=1; expected size 4==4, stride 8==88 at dim=2
Error in op: torch.ops.aten._efficient_attention_backward.default
This error most often comes from a incorrect fake (aka meta) kernel for a custom op.
Use torch.library.opcheck to test your custom op.
See https://pytorch.org/docs/stable/library.html#torch.library.opcheck