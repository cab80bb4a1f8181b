"""OpInfo op groups: which ops of torch's op_db each Bazel target runs, and the lowering family it exercises.

One source of truth, read by Starlark (opinfo/BUILD makes //opinfo:group_<name>_<device>) and by Python
(opinfo/catalog.py, through compiler/starlark_data.py). An op belongs to the FIRST group, in list order,
whose `ops` fnmatch patterns match its OpInfo name, or else whose `classes` contain its OpInfo class;
`other` takes the rest. `family` is a compiler/lowering/<family> library: the group target depends on it,
so `bazel query 'rdeps(//opinfo/..., //compiler/lowering/norm)'` names the groups a norm change affects.
`presubmit`: the CPU target is small enough for presubmit (cold, 2 cores); the others are tagged nightly.
"""

GROUPS = [
    {
        "name": "attention",
        "family": "attention",
        "presubmit": True,
        "ops": [
            "nn.functional.scaled_dot_product_attention",
            "nn.functional.multi_head_attention_forward",
            "torch.ops.aten._efficient_attention_forward",
            "torch.ops.aten._flash_attention_forward",
            "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu",
        ],
    },
    {
        "name": "conv",
        "family": "conv",
        "presubmit": False,
        "ops": ["nn.functional.conv*"],
    },
    {
        "name": "matmul",
        "family": "matmul",
        "presubmit": False,
        "ops": [
            "mm", "bmm", "addmm", "addmv", "addbmm", "baddbmm", "addr", "matmul", "__rmatmul__", "mv", "dot",
            "vdot", "inner", "outer", "einsum", "tensordot", "kron", "chain_matmul", "cdist",
            "nn.functional.linear", "nn.functional.bilinear", "linalg.multi_dot", "linalg.vecdot",
            "torch._scaled_mm*", "sparse.mm", "sparse.sampled_addmm",
        ],
    },
    {
        "name": "norm",
        "family": "norm",
        "presubmit": True,
        "ops": [
            "nn.functional.batch_norm", "nn.functional.layer_norm", "nn.functional.group_norm",
            "nn.functional.instance_norm", "nn.functional.rms_norm", "nn.functional.local_response_norm",
            "native_batch_norm", "native_layer_norm", "native_group_norm", "_native_batch_norm_legit",
            "_batch_norm_with_update",
        ],
    },
    {
        "name": "pooling",
        "family": "pooling",
        "presubmit": False,
        "ops": [
            "nn.functional.*pool*", "max_pool2d_with_indices_backward", "nn.functional.max_unpool*",
            "nn.functional.interpolate", "nn.functional.upsample_*", "_upsample_bilinear2d_aa",
        ],
    },
    {
        "name": "rng",
        "family": "rng",
        "presubmit": True,
        "ops": [
            "bernoulli", "cauchy", "exponential", "geometric", "log_normal", "normal", "uniform", "multinomial",
            "rand_like", "randn", "randn_like", "randint", "randint_like", "nn.functional.*dropout*",
            "native_dropout_backward",
        ],
    },
    {
        "name": "linalg",
        "family": "other",
        "presubmit": False,
        "ops": [
            "linalg.*", "cholesky*", "lu", "lu_solve", "lu_unpack", "svd", "svd_lowrank", "pca_lowrank",
            "pinverse", "logdet", "matrix_exp", "triangular_solve", "geqrf", "ormqr", "qr", "det", "inverse",
            "slogdet", "eig*", "symeig",
        ],
    },
    {
        "name": "fft",
        "family": "other",
        "presubmit": False,
        "ops": ["fft.*", "stft", "istft"],
    },
    {
        "name": "special",
        "family": "pointwise",
        "presubmit": False,
        "ops": ["special.*"],
    },
    {
        "name": "masked",
        "family": "reduction",
        "presubmit": False,
        "ops": ["masked.*"],
    },
    {
        "name": "signal",
        "family": "other",
        "presubmit": False,
        "ops": ["signal.*"],
    },
    {
        "name": "reduction",
        "family": "reduction",
        "presubmit": False,
        "classes": ["ReductionOpInfo"],
        "ops": [
            "sum*", "mean", "std*", "var*", "max", "min", "max.*", "min.*", "amax", "amin", "argmax", "argmin",
            "aminmax", "cum*", "logcumsumexp", "logsumexp", "prod", "norm", "dist", "median", "nanmedian", "mode",
            "kthvalue", "quantile", "nanquantile", "histc", "histogram*", "bincount", "softmax", "log_softmax",
            "nn.functional.softmin", "_softmax_backward_data", "torch.ops.aten._safe_softmax.default",
            "nn.functional.*loss*", "nn.functional.cross_entropy", "nn.functional.normalize",
            "nn.functional.cosine_similarity", "nn.functional.pairwise_distance", "nn.functional.pdist",
            "trace", "_segment_reduce", "count_nonzero", "all", "any", "sort", "argsort", "msort", "topk",
            "cov", "corrcoef", "renorm", "trapz", "trapezoid", "cumulative_trapezoid", "diff", "gradient",
        ],
    },
    {
        "name": "indexing",
        "family": "indexing",
        "presubmit": False,
        "ops": [
            "__getitem__", "index_*", "gather", "scatter*", "take", "take_along_dim", "masked_fill",
            "masked_scatter", "masked_select", "put", "nonzero*", "argwhere", "where", "select", "select_scatter",
            "slice", "slice_scatter", "diagonal_scatter", "as_strided_scatter", "_unsafe_masked_index*",
            "nn.functional.embedding*", "nn.functional.one_hot", "searchsorted", "bucketize", "isin", "unique*",
            "repeat_interleave", "unravel_index", "tril_indices", "triu_indices", "nn.functional.grid_sample",
            "grid_sampler_*",
        ],
    },
    {
        "name": "pointwise",
        "family": "pointwise",
        "presubmit": False,
        "classes": ["UnaryUfuncInfo", "BinaryUfuncInfo"],
        "ops": [
            "addcmul", "addcdiv", "clamp", "lerp", "nn.functional.gelu", "nn.functional.hardswish",
            "nn.functional.leaky_relu", "nn.functional.glu", "logaddexp2", "jiterator_*", "cross",
            "linalg.cross", "polar",
        ],
    },
    {
        "name": "layout",
        "family": "layout",
        "presubmit": False,
        "classes": ["ShapeFuncInfo"],
        "ops": [
            "view*", "reshape*", "permute*", "transpose*", "t", "t_copy", "T", "H", "mT", "mH", "squeeze*",
            "unsqueeze*", "expand*", "flatten", "unflatten", "ravel", "cat", "_chunk_cat", "stack", "*stack",
            "split*", "chunk", "unsafe_*", "*split", "tensor_split", "unbind*", "movedim", "flip*", "rot90", "roll",
            "tril", "triu", "diag*", "narrow*", "constant_pad_nd", "nn.functional.pad", "nn.functional.pixel_*",
            "nn.functional.channel_shuffle", "unfold*", "nn.functional.unfold", "block_diag", "meshgrid",
            "broadcast_*", "atleast_*", "as_strided*", "clone", "contiguous", "to", "alias_copy", "resolve_*",
            "repeat", "tile", "empty*", "zeros*", "ones*", "full*", "new_*", "eye", "arange", "linspace",
            "logspace", "scalar_tensor", "zero_", "resize_*", "combinations", "cartesian_prod", "to_sparse",
        ],
    },
    {
        "name": "other",
        "family": "other",
        "presubmit": False,
        "ops": ["*"],
    },
]

# Devices a group target exists for; the device's expectation table is opinfo/expectations/<device>.json.
DEVICES = ["cpu", "cuda", "npu"]
