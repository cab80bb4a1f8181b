"""TIMM suite manifest: the 18 models of the community dashboard, in AMP training and BF16 inference.

Data only (read by suites/common/manifest.py and by the Starlark macro); the schema is documented there.
Sources: the community harness's timm_models_list.txt / timm_models.yaml and timm's pretrained configs
(input sizes: training uses the train size, inference the test size), as summarised in
shared/reference/community-harness.md sections 3.4, 3.5 and 7.3. Weights are random (no hub downloads).
Bump "version" whenever the model list, a batch size, a tolerance or an expectation changes.
"""

MANIFEST = {
    "suite": "timm",
    "version": "1.0.0",
    "accuracy_batch_size": 8,
    "tolerance": {"training": 0.01, "inference": 0.001},
    "models": {
        "adv_inception_v3": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "inception_v3.tf_adv_in1k", "input_size": {"training": [3, 299, 299], "inference": [3, 299, 299]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "optimizer": "sgd",
        },
        "beit_base_patch16_224": {
            "modes": {"training": {"batch_size": 64}, "inference": {"batch_size": 64}},
            "build": {"timm_name": "beit_base_patch16_224.in22k_ft_in22k_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "tolerance": {"training": 0.16},
        },
        "convnextv2_nano.fcmae_ft_in22k_in1k": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "convnextv2_nano.fcmae_ft_in22k_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 288, 288]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "optimizer": "sgd",
        },
        "deit_base_distilled_patch16_224": {
            "modes": {"training": {"batch_size": 64}, "inference": {"batch_size": 64}},
            "build": {"timm_name": "deit_base_distilled_patch16_224.fb_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "tolerance": {"training": 0.08},
        },
        "deit_tiny_patch16_224.fb_in1k": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "deit_tiny_patch16_224.fb_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {"depth": 1, "img_size": 64}, "input_size": [3, 64, 64]}},
        },
        "dm_nfnet_f0": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "dm_nfnet_f0.dm_in1k", "input_size": {"training": [3, 192, 192], "inference": [3, 256, 256]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
        },
        "ghostnet_100": {
            "modes": {"training": {"batch_size": 512}, "inference": {"batch_size": 512}},
            "build": {"timm_name": "ghostnet_100.in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "optimizer": "sgd",
        },
        "inception_v3": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "inception_v3.tv_in1k", "input_size": {"training": [3, 299, 299], "inference": [3, 299, 299]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "tolerance": {"training": 0.04},
            "larger_multiplier_for_smaller_tensor": True,
        },
        "mobilenetv2_100": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "mobilenetv2_100.ra_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
        },
        "mobilenetv3_large_100": {
            "modes": {"training": {"batch_size": 512}, "inference": {"batch_size": 512}},
            "build": {"timm_name": "mobilenetv3_large_100.ra_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "tolerance": {"training": 0.04},
            "larger_multiplier_for_smaller_tensor": True,
        },
        "mobilevit_s": {
            "modes": {"training": {"batch_size": 64}, "inference": {"batch_size": 64}},
            "build": {"timm_name": "mobilevit_s.cvnets_in1k", "input_size": {"training": [3, 256, 256], "inference": [3, 256, 256]}, "loss_scale": 1000.0},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
        },
        "nfnet_l0": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "nfnet_l0.ra2_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 288, 288]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
        },
        "repvgg_a2": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "repvgg_a2.rvgg_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
        },
        "swin_base_patch4_window7_224": {
            "modes": {"training": {"batch_size": 64}, "inference": {"batch_size": 64}},
            "build": {"timm_name": "swin_base_patch4_window7_224.ms_in22k_ft_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
        },
        "tf_efficientnet_b0": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "tf_efficientnet_b0.ns_jft_in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "optimizer": "sgd",
        },
        "visformer_small": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "visformer_small.in1k", "input_size": {"training": [3, 224, 224], "inference": [3, 224, 224]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
        },
        "vit_base_patch14_dinov2.lvd142m": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "vit_base_patch14_dinov2.lvd142m", "input_size": {"training": [3, 518, 518], "inference": [3, 518, 518]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "optimizer": "sgd",
            "larger_multiplier_for_smaller_tensor": True,
            "inductor_config": {"emulate_precision_casts": True},
        },
        "vit_base_patch16_siglip_256": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"timm_name": "vit_base_patch16_siglip_256.v2_webli", "input_size": {"training": [3, 256, 256], "inference": [3, 256, 256]}},
            "smoke": {"batch_size": 2, "build": {"kwargs": {}, "input_size": [3, 64, 64]}},
            "tolerance": {"training": 0.08},
        },
    },
}
