
@0aab7cd7138f164b08e944628dfeee69f3f2fc9da1bc73701fa77512bdcfc74btriage:
opinfo nn.functional.avg_pool1d float32*inductor:cuda*fail_accuracy0:ä
a71c6662.11.0"3.6.023.12.3:

expecttest0.3.0:
transformers5.17.0:#
opinfo_tolerances1:f6be35345260BcudaJNVIDIA H100 80GB HBM3Rsm90Zvmb1j@1db3df573e525324448fd73111c40168ae1b113ca1d923a40699d37211369cda‚/work/main/opinfo/run.py‚--device‚cuda‚--ops‚nn.functional.avg_pool1d‚--dtypes‚float32‚--max-samples‚9‚--gradients‚on‚--run-id‚triage‚--out‚[/root/out/triage/work/opinfo-cuda-nn.functional.avg_pool1d-float32.opinfo/runs/01-reproduceB=2;gradient_check: AssertionError: Tensor-likes are not close!r£žTensor-likes are not close!

Mismatched elements: 6 / 27 (22.2%)
Greatest absolute difference: 0.034072279930114746 at index (0, 1, 7) (up to 1.5e-05 allowed)
Greatest relative difference: 0.08531836420297623 at index (0, 1, 7) (up to 1.3e-05 allowed)

The failure occurred for item [0]