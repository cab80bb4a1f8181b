"""Small synthetic stand-ins for the data that TorchBench's installers would download from S3.

Only shapes and formats matter to the benchmarks (values are random either way); the formats are those
recorded in shared/reference/torchbench-offline.md. Two kinds of location:
  DATA_ROOT datasets  looked up through torchbenchmark.DATA_PATH / install_data(name); generated into a
                      folder of ours (suites/torchbench/offline.py points the checkout there);
  in-folder files     read from the model's own folder, so they exist only in a checkout we made
                      (suites/torchbench/trim_checkout.py writes them into its copy).
Generation is seeded and idempotent: a dataset is written into a temporary folder and renamed into place.
"""

from __future__ import annotations

import hashlib
import inspect
import pickle
import shutil
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

SEED = 1337
VERSION_FILE = ".parity-generator"  # in each generated dataset: which generator made it


def _images(folder: Path, names: list[str], size: tuple[int, int], rng: np.random.Generator) -> None:
    from PIL import Image  # torchvision's dependency

    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        pixels = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
        Image.fromarray(pixels).save(folder / name)


def _stargan(root: Path, rng: np.random.Generator) -> None:
    # CelebA attribute list: a count line, a header of attribute names, then "file v1 v2 ..." with +-1.
    base = root / "pytorch_stargan_inputs" / "data" / "celeba"
    attributes = ["Black_Hair", "Blond_Hair", "Brown_Hair", "Male", "Young", "Smiling"]
    files = [f"{i:06d}.jpg" for i in range(1, 21)]
    _images(base / "images", files, (178, 218), rng)
    rows = [" ".join([f, *(str(v) for v in rng.choice([-1, 1], len(attributes)))]) for f in files]
    (base / "list_attr_celeba.txt").write_text("\n".join([str(len(files)), " ".join(attributes), *rows]) + "\n")


def _super_slomo(root: Path, rng: np.random.Generator) -> None:
    # Clips of 12 frames at 640x360 under dataset/train/<clip>/ (the loader crops 352x352 from 9 of them).
    train = root / "Super_SloMo_inputs" / "dataset" / "train"
    for clip in range(6):
        _images(train / f"clip{clip:02d}", [f"frame{i:02d}.png" for i in range(12)], (640, 360), rng)


def _coco128(root: Path, rng: np.random.Generator) -> None:
    # yolov3 inference reads only coco.names (its inputs are random tensors). Training reads coco128.data, then
    # (its train= entry being resolved against the model folder, where it is absent) the list <data dir>/coco128.txt
    # of images; a "./" there means the list's own folder, so the list survives ensure_dataset's rename. Each label
    # file is the image path with "images" -> "labels" and the suffix -> .txt: rows "class x y w h", normalised.
    base = root / "coco128"
    base.mkdir(parents=True, exist_ok=True)
    (base / "coco.names").write_text("".join(f"class{i}\n" for i in range(80)))
    (base / "coco128.data").write_text("classes=80\ntrain=coco128.txt\nvalid=coco128.txt\nnames=coco.names\n")
    size, names = (320, 240), [f"{i:012d}.jpg" for i in range(16)]
    _images(base / "images" / "train2017", names, size, rng)
    labels = base / "labels" / "train2017"
    labels.mkdir(parents=True)
    for name in names:
        count = int(rng.integers(1, 5))
        centres, sides = rng.uniform(0.3, 0.7, (count, 2)), rng.uniform(0.05, 0.4, (count, 2))  # boxes stay inside
        rows = [f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n"
                for c, (x, y), (w, h) in zip(rng.integers(0, 80, count), centres, sides)]
        (labels / name).with_suffix(".txt").write_text("".join(rows))
    (base / "coco128.txt").write_text("".join(f"./images/train2017/{name}\n" for name in names))
    # The loader's image-size cache ("w h" a line); written here so that loading never writes into our folder.
    (base / "coco128.shapes").write_text(f"{size[0]} {size[1]}\n" * len(names))


def _kaldi_matrix(path: Path, matrix: np.ndarray) -> None:
    # One binary Kaldi float matrix, as kaldi_io.read_mat reads a plain (offset-free) path: "\0B", "FM ",
    # then rows and columns, each an int32 after a size byte of 4, then the float32 values.
    path.parent.mkdir(parents=True, exist_ok=True)
    rows, cols = matrix.shape
    header = b"\0BFM " + np.array([(4, rows, 4, cols)], dtype="i1,<i4,i1,<i4").tobytes()
    path.write_bytes(header + matrix.astype("<f4").tobytes())


# speech_transformer's character dictionary: "<unk>", the characters, "<sos>", "<eos>" (the model reads only the
# first word of each line; a token id is its line number). The size is an assumption: TorchBench's own file was
# not available offline, and 4233 is the size we recall for AISHELL-1's character dictionary (not verified).
_SPEECH_VOCAB = 4233


def _speech_transformer(root: Path, rng: np.random.Generator) -> None:
    # espnet-style json lists ({"utts": {id: {"input": [{"feat", "shape"}], "output": [{"tokenid", "shape"}]}}}) over
    # 80-dim filterbank matrices. The train list must make exactly one minibatch of at most 15 000 frames
    # (batch_frames): 32 utterances of 300-460 frames. dev feeds the cross-validation loader, test the first
    # utterance that eval decodes.
    import json

    base = root / "speech_transformer_inputs"
    chars = [f"c{i}" for i in range(_SPEECH_VOCAB - 3)]
    lang = base / "input_data" / "lang_1char"
    lang.mkdir(parents=True)
    (lang / "train_chars.txt").write_text(
        "".join(f"{token} {i}\n" for i, token in enumerate(["<unk>", *chars, "<sos>", "<eos>"])))
    for split, count in (("train", 32), ("dev", 4), ("test", 2)):
        utts = {}
        for i in range(count):
            name = f"{split}{i:03d}"
            frames, length = int(rng.integers(300, 461)), int(rng.integers(10, 31))
            feat = f"input_data/{split}/feats/{name}.ark"
            _kaldi_matrix(base / feat, rng.standard_normal((frames, 80), dtype=np.float32))
            tokens = rng.integers(1, _SPEECH_VOCAB - 2, length)
            utts[name] = {"input": [{"feat": feat, "name": "input1", "shape": [frames, 80]}],
                          "output": [{"name": "target1", "shape": [length, _SPEECH_VOCAB],
                                      "tokenid": " ".join(map(str, tokens))}]}
        (base / "input_data" / split / "data.json").write_text(json.dumps({"utts": utts}))


def _coco2017_minimal(root: Path, rng: np.random.Generator) -> None:
    # vision_maskrcnn: torchvision's CocoDetection over coco/val2017 with the instances file of 100 images. Each image
    # gets a few objects, each a box and its polygon (a quadrilateral inside the box), COCO's category ids (1-90).
    import json

    base = root / "coco2017-minimal" / "coco"
    size, names = (640, 480), [f"{i:012d}.jpg" for i in range(1, 5)]
    _images(base / "val2017", names, size, rng)
    images, annotations = [], []
    for image_id, name in enumerate(names, start=1):
        images.append({"id": image_id, "file_name": name, "width": size[0], "height": size[1]})
        for _ in range(int(rng.integers(1, 4))):
            w, h = (float(v) for v in rng.uniform(60, 240, 2))
            x, y = float(rng.uniform(0, size[0] - w)), float(rng.uniform(0, size[1] - h))
            polygon = [x + w / 2, y, x + w, y + h / 2, x + w / 2, y + h, x, y + h / 2]
            annotations.append({"id": len(annotations) + 1, "image_id": image_id, "category_id": int(rng.integers(1, 91)),
                                "bbox": [x, y, w, h], "area": w * h / 2, "iscrowd": 0, "segmentation": [polygon]})
    categories = [{"id": i, "name": f"class{i}", "supercategory": "none"} for i in range(1, 91)]
    (base / "annotations").mkdir(parents=True)
    (base / "annotations" / "instances_val2017_100.json").write_text(
        json.dumps({"images": images, "annotations": annotations, "categories": categories}))


def _background_matting(root: Path, rng: np.random.Generator) -> None:
    # A ';'-separated CSV with a header; each row: image, background, segmentation (a grey mask with one blob, which
    # the loader crops around), four colour frames of the motion cue, a random background. Paths are
    # "{scriptdir}/..." (the model formats them with the data folder). One row per image of its batch of 4.
    from PIL import Image

    base = root / "Background_Matting_inputs"
    size = (640, 480)
    colour = ["image", "back", "fr1", "fr2", "fr3", "fr4", "back_rnd"]
    rows = []
    for row in range(4):
        names = {key: f"row{row}_{key}.jpg" for key in colour}
        _images(base, list(names.values()), size, rng)
        mask = np.zeros((size[1], size[0]), dtype=np.uint8)
        top, left = int(rng.integers(60, 140)), int(rng.integers(120, 240))
        mask[top:top + 240, left:left + 200] = 255
        Image.fromarray(mask).save(base / f"row{row}_seg.png")
        ordered = [names["image"], names["back"], f"row{row}_seg.png", names["fr1"], names["fr2"], names["fr3"],
                   names["fr4"], names["back_rnd"]]
        rows.append(";".join("{scriptdir}/" + name for name in ordered))
    header = "img;bg;seg;fr1;fr2;fr3;fr4;back_rnd"
    (base / "Video_data_train.csv").write_text("\n".join([header, *rows]) + "\n")


def _cyclegan(root: Path, rng: np.random.Generator) -> None:
    # horse2zebra in the unaligned layout: trainA/trainB are read at construction in training, testA by the test
    # options; the loader scales to 286 and crops 256.
    base = root / "pytorch_CycleGAN_and_pix2pix_inputs" / "datasets" / "horse2zebra"
    for split in ("trainA", "trainB", "testA", "testB"):
        _images(base / split, [f"{split}_{i}.jpg" for i in range(2)], (256, 256), rng)


def _tacotron2(root: Path, rng: np.random.Generator) -> None:
    # LJSpeech-shaped: 16-bit mono wavs at 22.05 kHz and "path|text" filelists whose paths are relative to the data
    # root (install_data's folder). The training loader drops the last partial batch of 64, so the train list has 64.
    import wave

    base = root / "tacotron2-minimal"
    (base / "wavs").mkdir(parents=True)
    (base / "filelists").mkdir()
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    for split, count in (("train", 64), ("val", 4)):
        lines = []
        for i in range(count):
            name = f"wavs/{split}{i:03d}.wav"
            samples = (rng.standard_normal(int(rng.integers(22050, 44100))) * 3000).clip(-32768, 32767).astype("<i2")
            with wave.open(str(base / name), "wb") as out:
                out.setnchannels(1)
                out.setsampwidth(2)
                out.setframerate(22050)
                out.writeframes(samples.tobytes())
            words = ["".join(rng.choice(letters, int(rng.integers(2, 9)))) for _ in range(int(rng.integers(5, 15)))]
            lines.append(f"tacotron2-minimal/{name}|{' '.join(words).capitalize()}.\n")
        (base / "filelists" / f"ljs_audio_text_{split}_filelist.txt").write_text("".join(lines))


DATA_ROOT_DATASETS: dict[str, tuple[str, Callable[[Path, np.random.Generator], None]]] = {
    # model: (dataset folder name under the data root, generator)
    "pytorch_stargan": ("pytorch_stargan_inputs", _stargan),
    "Super_SloMo": ("Super_SloMo_inputs", _super_slomo),
    "yolov3": ("coco128", _coco128),
    "speech_transformer": ("speech_transformer_inputs", _speech_transformer),
    "vision_maskrcnn": ("coco2017-minimal", _coco2017_minimal),
    "Background_Matting": ("Background_Matting_inputs", _background_matting),
    "pytorch_CycleGAN_and_pix2pix": ("pytorch_CycleGAN_and_pix2pix_inputs", _cyclegan),
    "tacotron2": ("tacotron2-minimal", _tacotron2),
}


def _made_by(folder: Path, version: str) -> bool:
    marker = folder / VERSION_FILE
    return marker.is_file() and marker.read_text() == version


def ensure_dataset(model: str, root: Path) -> Path | None:
    """Generates the model's dataset under `root` unless present; None when the model has none of ours."""
    if model not in DATA_ROOT_DATASETS:
        return None
    name, generate = DATA_ROOT_DATASETS[model]
    target = root / name
    # A folder made by another version of its generator (say, yolov3's before it had training images) is made anew.
    version = hashlib.sha256(f"{SEED}\n{inspect.getsource(generate)}".encode()).hexdigest()
    if _made_by(target, version):
        return target
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
    try:
        generate(scratch, np.random.default_rng(SEED))
        (scratch / name / VERSION_FILE).write_text(version)
        if target.is_dir() and not _made_by(target, version):  # stale (and not just made by another process)
            target.rename(scratch / "stale")  # removed with the scratch folder
        try:
            (scratch / name).rename(target)
        except OSError:
            if not target.is_dir():  # another process won the race; anything else is a real error
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def _maml_omniglot_batch(folder: Path, rng: np.random.Generator) -> None:
    # batch.pt: (support images, support labels, query images, query labels) as numpy arrays,
    # 5 tasks x 5-way (5 and 15 shots), 28x28 grey images, loaded with weights_only=True.
    import torch

    batch = (rng.standard_normal((5, 25, 1, 28, 28), dtype=np.float32), rng.integers(0, 5, (5, 25), dtype=np.int64),
             rng.standard_normal((5, 75, 1, 28, 28), dtype=np.float32), rng.integers(0, 5, (5, 75), dtype=np.int64))
    torch.save(batch, folder / "batch.pt")


def _drq_obs(folder: Path, rng: np.random.Generator) -> None:
    # obs.pkl: only its shape and dtype matter (uint8 (9, 84, 84)); drq re-randomises the values.
    with open(folder / "obs.pkl", "wb") as handle:
        pickle.dump(rng.integers(0, 256, (9, 84, 84), dtype=np.uint8), handle)


IN_FOLDER_FILES: dict[str, tuple[str, Callable[[Path, np.random.Generator], None]]] = {
    # model: (file inside the model folder, generator)
    "maml_omniglot": ("batch.pt", _maml_omniglot_batch),
    "drq": ("obs.pkl", _drq_obs),
}


def write_in_folder_file(model: str, model_dir: Path) -> Path | None:
    """Writes the model's in-folder data file into `model_dir` (a checkout we own) unless present."""
    if model not in IN_FOLDER_FILES:
        return None
    name, generate = IN_FOLDER_FILES[model]
    target = model_dir / name
    if not target.exists():
        generate(model_dir, np.random.default_rng(SEED))
    return target
