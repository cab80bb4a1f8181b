"""Offline substitutions and synthetic data: applied inside the context, undone after it."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import numpy as np
import pytest

from suites.torchbench import offline, synthetic_data
from suites.torchbench.checkout import ModelUnavailable


def test_hf_config_comes_from_our_table_and_is_restored(tmp_path: Path) -> None:
    import transformers

    package = types.SimpleNamespace(DATA_PATH="upstream")
    with offline.offline_substitutions("hf_Albert", ("hf_config",), package, tmp_path):
        config = transformers.AutoConfig.from_pretrained("albert-base-v2")
        assert isinstance(config, transformers.AlbertConfig) and config.embedding_size == 128
        with pytest.raises(ModelUnavailable, match="no offline copy"):
            transformers.AutoConfig.from_pretrained("gpt2")
        assert package.DATA_PATH == str(tmp_path)
    assert package.DATA_PATH == "upstream"
    assert "from_table" not in repr(transformers.AutoConfig.from_pretrained)


def test_random_weights_force_weights_none_and_are_restored(tmp_path: Path) -> None:
    import torchvision

    original = torchvision.models.vgg16
    with offline.offline_substitutions("Super_SloMo", ("random_weights",), types.SimpleNamespace(DATA_PATH=""), tmp_path):
        assert torchvision.models.vgg16 is not original
        model = torchvision.models.vgg16(weights=torchvision.models.VGG16_Weights.IMAGENET1K_V1)  # no download
        assert model.classifier[-1].out_features == 1000
    assert torchvision.models.vgg16 is original


def test_install_data_stand_in_answers_from_our_folder(tmp_path: Path) -> None:
    with offline.offline_substitutions("pytorch_stargan", ("data",), types.SimpleNamespace(DATA_PATH=""), tmp_path):
        installer = sys.modules[offline.INSTALLER_MODULE]
        assert installer.install_data("pytorch_stargan_inputs") == str(tmp_path)
        with pytest.raises(ModelUnavailable, match="does not generate it yet"):
            installer.install_data("coco2017-minimal")
    assert offline.INSTALLER_MODULE not in sys.modules


def test_stargan_data_is_celeba_shaped_and_generated_once(tmp_path: Path) -> None:
    folder = synthetic_data.ensure_dataset("pytorch_stargan", tmp_path)
    attr = (folder / "data" / "celeba" / "list_attr_celeba.txt").read_text().splitlines()
    assert int(attr[0]) == len(attr) - 2 == 20 and "Black_Hair" in attr[1].split()
    stamp = (folder / "data" / "celeba" / "images" / "000001.jpg").stat().st_mtime_ns
    synthetic_data.ensure_dataset("pytorch_stargan", tmp_path)
    assert (folder / "data" / "celeba" / "images" / "000001.jpg").stat().st_mtime_ns == stamp


def test_a_dataset_from_another_generator_is_made_anew(tmp_path: Path) -> None:
    """A folder left by an older generator (yolov3's coco128 had only coco.names) does not satisfy the new one."""
    stale = tmp_path / "coco128"
    stale.mkdir()
    (stale / "coco.names").write_text("old\n")
    folder = synthetic_data.ensure_dataset("yolov3", tmp_path)
    assert folder == stale and (folder / "coco128.data").is_file()
    assert (folder / "coco.names").read_text().startswith("class0")
    assert [p.name for p in tmp_path.iterdir()] == ["coco128"]  # no scratch or stale copy left behind


def test_in_folder_files_have_the_expected_shapes(tmp_path: Path) -> None:
    import pickle

    import torch

    obs = synthetic_data.write_in_folder_file("drq", tmp_path)
    assert pickle.loads(obs.read_bytes()).shape == (9, 84, 84)
    batch = torch.load(synthetic_data.write_in_folder_file("maml_omniglot", tmp_path), weights_only=False)
    assert [b.shape for b in batch] == [(5, 25, 1, 28, 28), (5, 25), (5, 75, 1, 28, 28), (5, 75)]
    assert batch[1].dtype == np.int64


def test_speech_transformer_data_makes_one_train_minibatch_of_kaldi_matrices(tmp_path: Path) -> None:
    import json

    folder = synthetic_data.ensure_dataset("speech_transformer", tmp_path)
    chars = [line.split(" ")[0] for line in (folder / "input_data/lang_1char/train_chars.txt").read_text().splitlines()]
    assert {"<sos>", "<eos>"} <= set(chars)
    for split in ("train", "dev", "test"):
        utts = json.loads((folder / f"input_data/{split}/data.json").read_text())["utts"]
        assert utts
        for utt in utts.values():
            assert max(map(int, utt["output"][0]["tokenid"].split())) < len(chars) - 2  # no <sos>/<eos> in targets
    train = json.loads((folder / "input_data/train/data.json").read_text())["utts"]
    assert len(train) == 32 and sum(u["input"][0]["shape"][0] for u in train.values()) <= 15000  # batch_frames
    utt = next(iter(train.values()))
    frames, dim = utt["input"][0]["shape"]
    data = (folder / utt["input"][0]["feat"]).read_bytes()  # Kaldi's binary float matrix
    assert data[:6] == b"\0BFM \x04" and data[10:11] == b"\x04"
    assert (np.frombuffer(data[6:10], "<i4")[0], np.frombuffer(data[11:15], "<i4")[0]) == (frames, dim) == (frames, 80)
    assert len(data) == 15 + frames * dim * 4


def test_coco128_has_yolov3_training_files_in_the_loaders_formats(tmp_path: Path) -> None:
    from PIL import Image

    folder = synthetic_data.ensure_dataset("yolov3", tmp_path)
    assert len((folder / "coco.names").read_text().splitlines()) == 80
    data = dict(line.split("=") for line in (folder / "coco128.data").read_text().splitlines())  # parse_data_cfg
    assert int(data["classes"]) == 80
    listed = (folder / "coco128.txt").read_text().splitlines()  # yolo_train's fallback list: <data dir>/coco128.txt
    assert len(listed) == 16 and all(line.startswith("./") and line.endswith(".jpg") for line in listed)
    images = [line.replace("./", str(folder) + "/") for line in listed]  # as LoadImagesAndLabels resolves them
    shapes = [tuple(map(int, line.split())) for line in (folder / "coco128.shapes").read_text().splitlines()]
    for image, shape in zip(images, shapes, strict=True):
        with Image.open(image) as opened:
            assert opened.format == "JPEG" and opened.size == shape
        rows = np.loadtxt(image.replace("images", "labels").replace(".jpg", ".txt"), ndmin=2)
        assert rows.shape[0] >= 1 and rows.shape[1] == 5  # the loader's asserts: 5 columns, >= 0, coordinates <= 1
        assert (rows[:, 0] == rows[:, 0].round()).all() and (0 <= rows[:, 0]).all() and (rows[:, 0] < 80).all()
        x, y, w, h = rows[:, 1:].T
        assert (x - w / 2 >= 0).all() and (x + w / 2 <= 1).all() and (y - h / 2 >= 0).all() and (y + h / 2 <= 1).all()


def test_coco2017_minimal_is_a_coco_instances_file_over_its_images(tmp_path: Path) -> None:
    import json

    from PIL import Image

    folder = synthetic_data.ensure_dataset("vision_maskrcnn", tmp_path)
    assert folder.name == "coco2017-minimal"  # install_data's answer + this name is vision_maskrcnn's DATA_DIR
    coco = json.loads((folder / "coco/annotations/instances_val2017_100.json").read_text())
    files = {image["id"]: image for image in coco["images"]}
    assert coco["annotations"] and {a["image_id"] for a in coco["annotations"]} == set(files)
    for image in files.values():
        with Image.open(folder / "coco/val2017" / image["file_name"]) as opened:
            assert opened.size == (image["width"], image["height"])
    category_ids = {c["id"] for c in coco["categories"]}
    for annotation in coco["annotations"]:
        x, y, w, h = annotation["bbox"]
        image = files[annotation["image_id"]]
        assert w > 0 and h > 0 and x >= 0 and y >= 0 and x + w <= image["width"] and y + h <= image["height"]
        (polygon,) = annotation["segmentation"]
        xs, ys = polygon[0::2], polygon[1::2]
        assert len(polygon) >= 6 and x <= min(xs) and max(xs) <= x + w and y <= min(ys) and max(ys) <= y + h
        assert annotation["iscrowd"] == 0 and annotation["category_id"] in category_ids  # the loader keeps these


def test_background_matting_csv_names_eight_images_of_one_size_per_row(tmp_path: Path) -> None:
    from PIL import Image

    folder = synthetic_data.ensure_dataset("Background_Matting", tmp_path)
    header, *rows = (folder / "Video_data_train.csv").read_text().format(scriptdir=folder).splitlines()
    assert len(header.split(";")) == 8 and len(rows) == 4  # one batch of the model's fixed batch size 4
    for row in rows:
        paths = row.split(";")
        assert len(paths) == 8
        modes = []
        for path in paths:
            with Image.open(path) as opened:
                assert opened.size == (640, 480)
                modes.append(opened.mode)
        assert modes[2] == "L" and all(mode == "RGB" for i, mode in enumerate(modes) if i != 2)
        assert np.asarray(Image.open(paths[2])).max() == 255  # the loader crops around the mask's blob


def test_cyclegan_has_the_unaligned_horse2zebra_layout(tmp_path: Path) -> None:
    folder = synthetic_data.ensure_dataset("pytorch_CycleGAN_and_pix2pix", tmp_path)
    for split in ("trainA", "trainB", "testA"):
        assert sorted(p.suffix for p in (folder / "datasets/horse2zebra" / split).iterdir()) == [".jpg", ".jpg"]


def test_tacotron2_filelists_point_at_22khz_wavs_from_the_data_root(tmp_path: Path) -> None:
    import wave

    folder = synthetic_data.ensure_dataset("tacotron2", tmp_path)
    for split, minimum in (("train", 64), ("val", 1)):  # the train loader drops a partial batch of 64
        lines = (folder / f"filelists/ljs_audio_text_{split}_filelist.txt").read_text().splitlines()
        assert len(lines) >= minimum
        for line in lines:
            path, text = line.split("|")
            assert text.strip()
            with wave.open(str(tmp_path / path)) as audio:  # relative to install_data's folder, as the model joins
                assert (audio.getframerate(), audio.getnchannels(), audio.getsampwidth()) == (22050, 1, 2)
                assert audio.getnframes() >= 22050
