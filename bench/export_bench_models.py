#!/usr/bin/python3
"""Export the benchmark models (issue #5) with torch, random weights, eval mode.

Writes OUTDIR/<name>/{model.onnx, input_0.npy, expected_0.npy} and OUTDIR/manifest.json, reusing
test/e2e/export_models.py's exporter and model classes with the benchmark sizes:

  resnet18, mobilenet_v2, squeezenet1_1,
  shufflenet_v2, efficientnet_b0          torchvision, [1,3,224,224], opset 13
  encoder                                  BERT-style post-LN encoder, d=256, 4 heads, FFN 1024,
                                           4 layers, sequence 128: input [1,128,256], opset 17
  mlp                                      784-512-512-10, ReLU, input [1,784]
  kws_cnn                                  DS-CNN keyword spotter, [1,1,49,10]
  resnet50                                 torchvision, [1,3,224,224] (the GPU benchmark only)
  NAME_b32                                 NAME at batch 32, for resnet18, mobilenet_v2,
                                           efficientnet_b0, resnet50, encoder (GPU only)

Usage: export_bench_models.py OUTDIR [--only NAME[,NAME...]]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "e2e"))

import torchvision  # noqa: E402

import export_models as em  # noqa: E402

em.MODELS = {
    "resnet18": em.MODELS["resnet18"][:3] + (False,),
    "mobilenet_v2": em.MODELS["mobilenet_v2"][:3] + (False,),
    "squeezenet1_1": em.MODELS["squeezenet1_1"][:3] + (False,),
    "shufflenet_v2": (em.cnn(torchvision.models.shufflenet_v2_x1_0), [1, 3, 224, 224], 13, False),
    "efficientnet_b0": em.MODELS["efficientnet_b0"][:3] + (False,),
    "encoder": (lambda: em.Encoder(layers=4, hidden=256, heads=4, ffn=1024), [1, 128, 256], 17,
                False),
    "mlp": (lambda: em.MLP(d_in=784, d_hidden=512, d_out=10), [1, 784], 13, False),
    "kws_cnn": em.MODELS["kws_cnn"],
}
# bench/run_bench.py's models (the CPU comparison with ONNX Runtime).
CPU_MODELS = list(em.MODELS)

# The GPU benchmark's too (bench/gpu/prepare.py, issue #7): ResNet-50, and
# batch 32 of the models it times at both batch sizes.
em.MODELS["resnet50"] = (em.cnn(torchvision.models.resnet50), [1, 3, 224, 224], 13, False)
GPU_BATCHED = ["resnet18", "mobilenet_v2", "efficientnet_b0", "resnet50", "encoder"]
for _name in GPU_BATCHED:
    _build, _shape, _opset, _ = em.MODELS[_name]
    em.MODELS[_name + "_b32"] = (_build, [32] + _shape[1:], _opset, False)

if __name__ == "__main__":
    em.main()
