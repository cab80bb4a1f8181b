"""TIMM suite manifest: the 18 models of the community dashboard, in AMP training and BF16 inference.

Data only (read by suites/common/manifest.py and by the Starlark macro); the schema is documented there.
Sources: the community harness's timm_models_list.txt / timm_models.yaml and timm's pretrained configs
(input sizes: training uses the train size, inference the test size), as summarised in
shared/reference/community-harness.md sections 3.4, 3.5 and 7.3. Weights are random (no hub downloads).
Smoke variants: the same timm class scaled down by constructor kwargs (fewer blocks, narrower) on a small
input; models whose entrypoint fixes its structure (inception, ghostnet, efficientnet, mobilevit, repvgg)
keep full depth. repvgg_a2 uses width_factor 0.5: at 0.25 its compiled CPU training crashed the process
(heap corruption) in 4 of 5 probes on torch 2.14.1, a suspected Inductor CPU bug not yet reduced.
presubmit_compile names the modes CPU presubmit compiles with Inductor: inference for one model per op family,
training (forward and backward, the costly compile) for deit_tiny only.
convnextv2_nano and vit_base_patch14_dinov2 use SGD in timing too: upstream picks SGD for them only in CUDA Inductor
accuracy runs (CUDA_INDUCTOR_ACCURACY_USE_SGD) and times them with Adam; one process has one optimizer, chosen for
the check, so their timed step is SGD's.
Bump "version" whenever the model list, a batch size, a tolerance or an expectation changes.
"""

MANIFEST = {
    "suite": "timm",
    "version": "1.3.0",
    "accuracy_batch_size": 8,
    "tolerance": {"training": 0.01, "inference": 0.001},
    "models": {
        "adv_inception_v3": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "inception_v3.tf_adv_in1k", "input_size": {"training": [3, 299, 299], "inference": [3, 299, 299]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"num_classes": 10}, "input_size": [3, 75, 75]}},
            "optimizer": "sgd",
        },
        "beit_base_patch16_224": {
            "modes": {"training": {"batch_size": 64}, "inference": {"batch_size": 64}},
            "build": {"timm_name": "beit_base_patch16_224.in22k_ft_in22k_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depth": 1, "embed_dim": 64, "num_heads": 2, "img_size": 64, "num_classes": 10}, "input_size": [3, 64, 64]}},
            "tolerance": {"training": 0.16},
            "presubmit_compile": ["inference"],
        },
        "convnextv2_nano.fcmae_ft_in22k_in1k": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "convnextv2_nano.fcmae_ft_in22k_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 288, 288]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depths": [1, 0, 0, 1], "dims": [16, 32, 64, 128], "num_classes": 10}, "input_size": [3, 64, 64]}},
            "optimizer": "sgd",
            "presubmit_compile": ["inference"],
        },
        "deit_base_distilled_patch16_224": {
            "modes": {"training": {"batch_size": 64}, "inference": {"batch_size": 64}},
            "build": {"timm_name": "deit_base_distilled_patch16_224.fb_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depth": 1, "embed_dim": 64, "num_heads": 2, "img_size": 32, "num_classes": 10}, "input_size": [3, 32, 32]}},
            "tolerance": {"training": 0.08},
            "presubmit_compile": ["inference"],
        },
        "deit_tiny_patch16_224.fb_in1k": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "deit_tiny_patch16_224.fb_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depth": 1, "embed_dim": 48, "num_heads": 3, "img_size": 32, "num_classes": 10}, "input_size": [3, 32, 32]}},
            "presubmit_compile": ["training", "inference"],
        },
        "dm_nfnet_f0": {
            "accuracy_optimizer": "sgd",
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "dm_nfnet_f0.dm_in1k", "input_size": {"training": [3, 192, 192], "inference": [3, 256, 256]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depths": [1, 1], "channels": [32, 64], "stem_chs": 16, "group_size": 16, "num_features": 128, "num_classes": 10}, "input_size": [3, 64, 64]}},
        },
        "ghostnet_100": {
            "modes": {"training": {"batch_size": 512}, "inference": {"batch_size": 512}},
            "build": {"timm_name": "ghostnet_100.in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"num_classes": 10}, "input_size": [3, 64, 64]}},
            "optimizer": "sgd",
        },
        "inception_v3": {
            "accuracy_optimizer": "sgd",
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "inception_v3.tv_in1k", "input_size": {"training": [3, 299, 299], "inference": [3, 299, 299]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"num_classes": 10}, "input_size": [3, 75, 75]}},
            "tolerance": {"training": 0.04},
            "larger_multiplier_for_smaller_tensor": True,
        },
        "mobilenetv2_100": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "mobilenetv2_100.ra_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depth_multiplier": 0.1, "num_classes": 10}, "input_size": [3, 64, 64]}},
            "presubmit_compile": ["inference"],
        },
        "mobilenetv3_large_100": {
            "modes": {"training": {"batch_size": 512}, "inference": {"batch_size": 512}},
            "build": {"timm_name": "mobilenetv3_large_100.ra_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depth_multiplier": 0.1, "num_classes": 10}, "input_size": [3, 64, 64]}},
            "tolerance": {"training": 0.04},
            "larger_multiplier_for_smaller_tensor": True,
        },
        "mobilevit_s": {
            "accuracy_optimizer": "sgd",
            "modes": {"training": {"batch_size": 64}, "inference": {"batch_size": 64}},
            "build": {"timm_name": "mobilevit_s.cvnets_in1k", "input_size": {"training": [3, 256, 256], "inference": [3, 256, 256]}, "loss_scale": 1000.0},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"width_factor": 0.5, "num_classes": 10}, "input_size": [3, 64, 64]}},
        },
        "nfnet_l0": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "nfnet_l0.ra2_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 288, 288]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depths": [1, 1], "channels": [32, 64], "stem_chs": 16, "group_size": 8, "num_features": 96, "num_classes": 10}, "input_size": [3, 64, 64]}},
            "expected": [{"device": "cuda", "mode": "training", "backend": "inductor_cudagraphs", "plan": "accuracy", "status": "fail_accuracy", "reason": "accuracy-only at batch 8 the compiled loss is off: RMSE against fp64 0.719 compiled, 0.093 eager (tolerance 0.01, multiplier 3); seen on an H100 at 5a25f7f (torch 2.11); at batch 128 (the timed run's check) it passes, and Inductor on the CPU (torch 2.14.1) passes at batch 8 with the same seed and random weights, though there the step has no optimizer (upstream's rule off CUDA) where CUDA steps Adam; cause not found yet; the community reports pass"}],
            "presubmit_compile": ["inference"],
        },
        "repvgg_a2": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "repvgg_a2.rvgg_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"width_factor": 0.5, "num_classes": 10}, "input_size": [3, 64, 64]}},
        },
        "swin_base_patch4_window7_224": {
            "modes": {"training": {"batch_size": 64}, "inference": {"batch_size": 64}},
            "build": {"timm_name": "swin_base_patch4_window7_224.ms_in22k_ft_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"embed_dim": 32, "depths": [2, 1], "num_heads": [1, 2], "window_size": 4, "img_size": 32, "num_classes": 10}, "input_size": [3, 32, 32]}},
            "presubmit_compile": ["inference"],
        },
        "tf_efficientnet_b0": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "tf_efficientnet_b0.ns_jft_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"num_classes": 10}, "input_size": [3, 64, 64]}},
            "optimizer": "sgd",
        },
        "visformer_small": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "visformer_small.in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depth": [1, 1, 1], "embed_dim": 64, "num_heads": 2, "img_size": 64, "num_classes": 10}, "input_size": [3, 64, 64]}},
            "presubmit_compile": ["inference"],
        },
        "vit_base_patch14_dinov2.lvd142m": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "vit_base_patch14_dinov2.lvd142m", "input_size": {"training": [3, 518, 518], "inference": [3, 518, 518]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depth": 2, "embed_dim": 64, "num_heads": 2, "img_size": 56, "num_classes": 0}, "input_size": [3, 56, 56]}},
            "optimizer": "sgd",
            "larger_multiplier_for_smaller_tensor": True,
            "inductor_config": {"emulate_precision_casts": True},
            "expected": [{"device": "cuda", "mode": "training", "backend": "inductor_cudagraphs", "plan": "accuracy", "status": "pass", "reason": "the community's expected status moves between fail_accuracy (pytorch 02b9a98) and pass (copies of its file of other dates); ours, with random weights, passed accuracy-only at batch 8 on an H100 at 5a25f7f"}],
            "presubmit_compile": ["inference"],
        },
        "vit_base_patch16_siglip_256": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "vit_base_patch16_siglip_256.v2_webli", "input_size": {"training": [3, 256, 256], "inference": [3, 256, 256]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depth": 2, "embed_dim": 64, "num_heads": 2, "img_size": 64, "num_classes": 0}, "input_size": [3, 64, 64]}},
            "tolerance": {"training": 0.08},
            "presubmit_compile": ["inference"],
        },
    },
}
