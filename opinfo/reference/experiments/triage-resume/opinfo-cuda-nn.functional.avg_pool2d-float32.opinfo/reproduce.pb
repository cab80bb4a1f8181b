
@dcfce34416a7d91b890812322e5bd2ff06e6fd2104ee1e9f39c112864344ba0etriage:
opinfo nn.functional.avg_pool2d float32*inductor:cuda*fail_to_run0:ä
a71c6662.11.0"3.6.023.12.3:#
opinfo_tolerances1:f6be35345260:

expecttest0.3.0:
transformers5.17.0BcudaJNVIDIA H100 80GB HBM3Rsm90Zvmb1j@1db3df573e525324448fd73111c40168ae1b113ca1d923a40699d37211369cda‚/work/main/opinfo/run.py‚--device‚cuda‚--ops‚nn.functional.avg_pool2d‚--dtypes‚float32‚--max-samples‚7‚--gradients‚on‚--run-id‚triage‚--out‚[/root/out/triage/work/opinfo-cuda-nn.functional.avg_pool2d-float32.opinfo/runs/01-reproducerÛInductorErrorÇin the backward: LoweringException: AssertionError: 
  target: aten.avg_pool2d_backward.default
  args[0]: TensorBox(StorageBox(
    InputBuffer(name='tangents_1', layout=FixedLayout('cuda:0', torch.float32, size=[2, 3, 9, 9], stride=[243, 81, 9, 1]))
  ))
  args[1]: TensorBox(StorageBox(
    InputBuffer(name='primals_1', layout=FixedLayout('cuda:0', torch.float32, size=[2, 3, 9, 9], stride=[243, 81, 9, 1]))
  ))
  args[2]: [3, 3]
  args[3]: [1, 1]
  args[4]: [1]
  args[5]: True
  args[6]: False
  args[7]: 2AssertionError: 
  target: aten.avg_pool2d_backward.default
  args[0]: TensorBox(StorageBox(
    InputBuffer(name='tangents_1', layout=FixedLayout('cuda:0', torch.float32, size=[2, 3, 9, 9], stride=[243, 81, 9, 1]))
  ))
  args[1]: TensorBox(StorageBox(
    InputBuffer(name='primals_1', layout=FixedLayout('cuda:0', torch.float32, size=[2, 3, 9, 9], stride=[243, 81, 9, 1]))
  ))
  args[2]: [3, 3]
  args[3]: [1, 1]
  args[4]: [1]
  args[5]: True
  args[6]: False
  args[7]: 2
Found from : 
   File "/work/main/opinfo/run_case.py", line 232, in call
    return fn(*args, **kwargs)
