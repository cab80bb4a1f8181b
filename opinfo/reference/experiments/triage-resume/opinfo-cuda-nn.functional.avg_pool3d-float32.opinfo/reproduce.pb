
@f2ee9220160611505660e812b1b7c1d5fcc9960a4a622c90fb7abd48170cb232triage:
opinfo nn.functional.avg_pool3d float32*inductor:cuda*fail_accuracy0:ä
5a25f7f2.11.0"3.6.023.12.3:

expecttest0.3.0:#
opinfo_tolerances1:f6be35345260:
transformers5.17.0BcudaJNVIDIA H100 80GB HBM3Rsm90Zvmb1j@1db3df573e525324448fd73111c40168ae1b113ca1d923a40699d37211369cda‚/work/main/opinfo/run.py‚--device‚cuda‚--ops‚nn.functional.avg_pool3d‚--dtypes‚float32‚--max-samples‚8‚--gradients‚on‚--run-id‚triage‚--out‚[/root/out/triage/work/opinfo-cuda-nn.functional.avg_pool3d-float32.opinfo/runs/01-reproduceB=2;gradient_check: AssertionError: Tensor-likes are not close!r¯ªTensor-likes are not close!

Mismatched elements: 36 / 180 (20.0%)
Greatest absolute difference: 0.025470413267612457 at index (0, 0, 2, 4, 2) (up to 1.5e-05 allowed)
Greatest relative difference: 4.366805076599121 at index (0, 0, 0, 4, 4) (up to 1.3e-05 allowed)

The failure occurred for item [0]