"""``python -m acl_bridge detect`` and ``python -m acl_bridge run-tflite``.

``acl_bridge/cli.py`` calls :func:`register` with its subparsers; each subcommand sets
``handler(args, out, err) -> exit code``. Errors are this library's exceptions, which the
CLI reports on one line.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ndarray.errors import UnsupportedOptionError

BACKENDS = ("acl", "cl", "numpy")


def register(subparsers) -> None:
    d = subparsers.add_parser(
        "detect", help="find faces in a picture with MediaPipe's BlazeFace on ACL",
        description="Detect faces with a BlazeFace TFLite model run on the bridge's ACL functions. Models come "
                    "from the cache filled by `python -m acl_bridge.models.fetch`.")
    d.add_argument("image", metavar="IMAGE", help="picture to search (any format Pillow reads)")
    d.add_argument("--out", metavar="OUT.png", help="write the picture with the boxes drawn")
    d.add_argument("--json", action="store_true", help="print the detections as JSON: [{score, box}] (box: "
                   "[xmin, ymin, xmax, ymax] in pixels of IMAGE), highest score first")
    d.add_argument("--model", default="face_detection_front", help="face_detection_front (default), "
                   "face_detection_back or face_detection_full_range (anchors per the model's published options)")
    d.add_argument("--model-file", metavar="PATH", help="the .tflite file (default: the cached --model)")
    d.add_argument("--plain-nms", action="store_true", help="plain NMS instead of MediaPipe's weighted NMS")
    d.add_argument("--landmarks", action="store_true", help="also run MediaPipe's face mesh (face_landmark.tflite) "
                   "on every face: 468 points per face, drawn with --out, listed with --json")
    d.add_argument("--backend", choices=BACKENDS, default="acl",
                   help="acl (default: the bridge's ACL functions on NEON), cl (ACL's OpenCL functions; "
                        "ACL_NDARRAY_CL_LAYER=1 for software devices) or numpy (the same plan on any machine)")
    d.set_defaults(handler=cmd_detect)

    r = subparsers.add_parser(
        "run-tflite", help="run a TFLite model on ACL on an input saved with numpy",
        description="Run MODEL on INPUT.npy with the bridge's ACL functions and write every output under its "
                    "tensor name in the model to OUT.npz.")
    r.add_argument("model", metavar="MODEL", help=".tflite file")
    r.add_argument("input", metavar="INPUT.npy", help="the model's input (numpy .npy)")
    r.add_argument("--out", metavar="OUT.npz", required=True, help="where to write the outputs")
    r.add_argument("--backend", choices=BACKENDS, default="acl", help="acl (default, NEON), cl (OpenCL) or numpy")
    r.set_defaults(handler=cmd_run_tflite)


def make_executor(model_file, backend: str):
    """A callable x -> outputs by name, for ``backend``."""
    if backend == "numpy":
        from .numpy_executor import run_plan
        from .tflite_plan import plan_model
        from .tflite_reader import fold_constant_dequantize, read_model

        plan = plan_model(fold_constant_dequantize(read_model(model_file)))
        return lambda x: run_plan(plan, x), plan
    if backend not in ("acl", "cl"):
        raise UnsupportedOptionError(f"backend is {backend!r}, expected one of {list(BACKENDS)}")
    from .tflite_runner import TfliteRunner

    runner = TfliteRunner(model_file, backend="cl" if backend == "cl" else "neon")
    return runner.run, runner.plan


def detect_faces(image_path, model: str = "face_detection_front", model_file=None, backend: str = "acl",
                 weighted: bool = True):
    """(image, detections in pixels of the image, highest score first)."""
    from . import blazeface, fetch, images

    if model not in blazeface.MODELS:
        raise UnsupportedOptionError(f"model is {model!r}, expected one of {sorted(blazeface.MODELS)}")
    options = blazeface.MODELS[model]
    run, _ = make_executor(model_file or fetch.model_path(model), backend)
    img = images.load_rgb(image_path)
    x, box = images.model_input(img, options.anchors.input_size)
    outputs = run(x)
    found = blazeface.detect(*blazeface.split_outputs(outputs), options, weighted=weighted)
    return img, [d.scaled(img.size[0], img.size[1], box.as_tuple()) for d in found]


def face_meshes(image, found, backend: str = "acl"):
    """MediaPipe's face mesh for each detection (picture pixels), on ``backend``."""
    from . import face_mesh, fetch

    if not found:
        return []
    run, _ = make_executor(fetch.model_path("face_landmark"), backend)
    return [face_mesh.face_mesh(run, image, d) for d in found]


def cmd_detect(args, out, err) -> int:
    from . import images

    img, found = detect_faces(args.image, args.model, args.model_file, args.backend, not args.plain_nms)
    meshes = face_meshes(img, found, args.backend) if args.landmarks else []
    if args.out:
        images.draw_boxes(img, [d.box for d in found], args.out, [f"{d.score:.2f}" for d in found],
                          [m.points for m in meshes])
    if args.json:
        rows = [{"score": round(d.score, 6), "box": [round(v, 2) for v in d.box]} for d in found]
        for row, m in zip(rows, meshes):
            row.update(face_score=round(m.face_score, 6), landmarks=np.round(m.points, 2).tolist())
        print(json.dumps(rows), file=out)
    else:
        for k, d in enumerate(found):
            print(f"face {d.score:.3f} at [{', '.join(f'{v:.1f}' for v in d.box)}]", file=out)
            if k < len(meshes):
                print(f"  face mesh: {len(meshes[k].points)} points, face flag {meshes[k].face_score:.3f}", file=out)
        if args.out:
            print(f"wrote {args.out}", file=out)
    return 0


def cmd_run_tflite(args, out, err) -> int:
    from .images import ImageError

    try:
        x = np.load(args.input, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise ImageError(f"cannot read {args.input!r} as a numpy .npy file: {e}") from None
    run, plan = make_executor(args.model, args.backend)
    shape = tuple(plan.model.tensors[plan.model.inputs[0]].shape)
    if tuple(x.shape) != shape:
        raise UnsupportedOptionError(f"{args.input} holds {x.dtype}{list(x.shape)}, the model's input is float32{list(shape)}")
    outputs = {k: np.array(v) for k, v in run(x.astype(np.float32)).items()}
    np.savez(Path(args.out), **outputs)
    print(f"wrote {args.out}: " + ", ".join(f"{k} {list(v.shape)}" for k, v in outputs.items()), file=out)
    return 0
