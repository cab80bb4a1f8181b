
@3f8d197aa1553889a839ccfc4a3ce12769adcc2784b741d2b53bd9be2d0f86bctriage&
opinfotake float32*inductor:cuda*fail_to_run0:½
a71c6662.11.0"3.6.023.12.3:
transformers5.17.0:#
opinfo_tolerances1:f6be35345260:

expecttest0.3.0BcudaJNVIDIA H100 80GB HBM3Rsm90Zvmb1j@1db3df573e525324448fd73111c40168ae1b113ca1d923a40699d37211369cda‚/work/main/opinfo/run.py‚--device‚cuda‚--ops‚take‚--dtypes‚float32‚--max-samples‚10‚--gradients‚on‚--run-id‚triage‚--out‚G/root/out/triage/work/opinfo-cuda-take-float32.opinfo/runs/01-reproducer¸	BackendCompilerFailedœ	backend='backend' raised:
GuardOnDataDependentSymNode: Could not extract specialized integer from data-dependent expression u0 (unhinted: u0).  (Size-like symbols: none)


Caused by: (_decomp/decompositions.py:5453 in take)
For more information, run with TORCH_LOGS="dynamic"
For extended logs when we create symbols, also add TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL="u0"
If you suspect the guard was triggered from C++, add TORCHDYNAMO_EXTENDED_DEBUG_CPP=1
For more debugging help, see https://docs.google.com/document/d/1HSuTTVvYH1pTew89Rtpeu84Ht3nQEFTYhAX3Ypa_xJs/edit?usp=sharing

For C++ stack trace, run with TORCHDYNAMO_EXTENDED_DEBUG_CPP=1

While executing %take : [num_users=1] = call_function[target=torch.take](args = (%l_args_0_, %l_args_1_), kwargs = {})
Original traceback:
  File "/work/main/opinfo/run_case.py", line 232, in call
    return fn(*args, **kwargs)

Use tlparse to see full graph. (https://github.com/pytorch/tlparse?tab=readme-ov-file#tlparse-parse-structured-pt2-logs)

Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting a bug to PyTorch). For even more developer context, set TORCH_LOGS="+dynamo"
