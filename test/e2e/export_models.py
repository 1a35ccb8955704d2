#!/usr/bin/python3
"""Export the end-to-end test models to ONNX with torch/torchvision (no network, random weights).

For every model writes OUTDIR/<name>/{model.onnx, input_0.npy, expected_0.npy} where expected_0.npy
is torch's own output for input_0.npy, plus OUTDIR/manifest.json
({name: {"input": name, "shape": [...], "opset": N}}).

Models (all float32, eval mode, torch.manual_seed(0) before each is built):
  resnet18, mobilenet_v2, squeezenet1_1   [1,3,224,224], opset 13, batch dim symbolic ("batch")
  efficientnet_b0                         [1,3,224,224], opset 13 (SiLU written as x * sigmoid(x))
  kws_cnn                                 [1,1,49,10], a DS-CNN keyword spotter, opset 13, exported
                                          with its BatchNormalization nodes (no torch folding)
  mlp                                     [4,64], Linear-ReLU-Linear-ReLU-Linear, opset 13
  bert_opset17, bert_opset13              [1,16,64] hidden states, 2 post-LN encoder layers with
                                          4-head self-attention (matmul/reshape/transpose/softmax),
                                          torch.nn.LayerNorm, erf GELU, residuals; opset 17 exports
                                          LayerNormalization as a real op, opset 13 decomposes it.

The CNNs' BatchNorm running statistics are calibrated on a few random batches (train-mode forward
passes without gradient) before switching to eval mode, so BN is not an identity and activations
stay O(1) through the network (random init otherwise lets them grow layer after layer).

Usage: export_models.py OUTDIR [--only NAME[,NAME...]]
"""

import argparse
import json
import math
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


# ------------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------------
class MLP(nn.Module):
    def __init__(self, d_in=64, d_hidden=128, d_out=10):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_hidden)
        self.fc3 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        assert hidden % heads == 0
        self.heads = heads
        self.head_dim = hidden // heads
        self.q = nn.Linear(hidden, hidden)
        self.k = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)

    def split(self, x):  # [B,S,H*D] -> [B,H,S,D]
        b, s, _ = x.shape
        return x.reshape(b, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v)                       # [B,H,S,D]
        ctx = ctx.transpose(1, 2).reshape(b, s, h)         # [B,S,H*D]
        return self.out(ctx)


class EncoderLayer(nn.Module):
    """BERT-style (post-LayerNorm) transformer encoder layer."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attn = SelfAttention(hidden, heads)
        self.ln1 = nn.LayerNorm(hidden, eps=1e-12)
        self.fc1 = nn.Linear(hidden, ffn)
        self.fc2 = nn.Linear(ffn, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        # erf GELU, written out so that every exporter/opset produces Erf
        h = self.fc1(x)
        h = 0.5 * h * (1.0 + torch.erf(h / math.sqrt(2.0)))
        return self.ln2(x + self.fc2(h))


class Encoder(nn.Module):
    def __init__(self, layers=2, hidden=64, heads=4, ffn=256):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, ffn) for _ in range(layers))
        # non-trivial LayerNorm affine parameters (default init is weight=1, bias=0)
        with torch.no_grad():
            for m in self.modules():
                if isinstance(m, nn.LayerNorm):
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class KwsCnn(nn.Module):
    """A small keyword-spotting CNN (DS-CNN style) on 49 frames x 10 MFCCs, 12 classes."""

    def __init__(self, width=64, classes=12):
        super().__init__()

        def block(cin, cout, k, stride, groups=1):
            return [nn.Conv2d(cin, cout, k, stride, padding=(k[0] // 2, k[1] // 2),
                              groups=groups, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

        layers = block(1, width, (9, 3), (2, 1))
        for _ in range(2):
            layers += block(width, width, (3, 3), (1, 1), groups=width)  # depthwise
            layers += block(width, width, (1, 1), (1, 1))                # pointwise
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        x = self.features(x).mean(dim=(2, 3))
        return self.head(x)


def calibrate_bn(model, shape, steps=3, batch=4):
    """Give BatchNorm layers data-derived running statistics (cumulative average)."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None
    model.train()
    with torch.no_grad():
        for _ in range(steps):
            model(torch.randn(batch, *shape[1:]))
    model.eval()


def cnn(ctor, shape=(1, 3, 224, 224)):
    def build():
        m = ctor(weights=None) if ctor is not KwsCnn else ctor()
        calibrate_bn(m, list(shape))
        return m
    return build


# name -> (builder, input shape, opset, dynamic batch)
MODELS = {
    "resnet18": (cnn(torchvision.models.resnet18), [1, 3, 224, 224], 13, True),
    "mobilenet_v2": (cnn(torchvision.models.mobilenet_v2), [1, 3, 224, 224], 13, True),
    "squeezenet1_1": (cnn(torchvision.models.squeezenet1_1), [1, 3, 224, 224], 13, True),
    "efficientnet_b0": (cnn(torchvision.models.efficientnet_b0), [1, 3, 224, 224], 13, True),
    "kws_cnn": (cnn(KwsCnn, (1, 1, 49, 10)), [1, 1, 49, 10], 13, False),
    "mlp": (MLP, [4, 64], 13, False),
    "bert_opset17": (Encoder, [1, 16, 64], 17, False),
    "bert_opset13": (Encoder, [1, 16, 64], 13, False),
}
# Exported without torch's constant folding, which would fold BatchNormalization
# into the convs itself: these keep their BatchNormalization nodes for tractc's
# optimizer to fold.
KEEP_BATCHNORM = {"kws_cnn"}
INPUT_NAME = "input"
OUTPUT_NAME = "output"


def export(name, outdir, seed=0):
    build, shape, opset, dynamic = MODELS[name]
    torch.manual_seed(0)
    model = build()
    model.eval()
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    with torch.no_grad():
        y = model(torch.from_numpy(x)).numpy()
    kwargs = {}
    if name in KEEP_BATCHNORM:
        # torch folds BatchNormalization into convs when exporting in eval mode;
        # PRESERVE exports the (eval-mode) model as it is.
        kwargs["training"] = torch.onnx.TrainingMode.PRESERVE
    if dynamic:
        kwargs["dynamic_axes"] = {INPUT_NAME: {0: "batch"}, OUTPUT_NAME: {0: "batch"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, torch.from_numpy(x), os.path.join(d, "model.onnx"),
                          opset_version=opset, input_names=[INPUT_NAME],
                          output_names=[OUTPUT_NAME],
                          do_constant_folding=name not in KEEP_BATCHNORM, **kwargs)
    np.save(os.path.join(d, "input_0.npy"), x)
    np.save(os.path.join(d, "expected_0.npy"), np.ascontiguousarray(y))
    return {"input": INPUT_NAME, "shape": shape, "opset": opset, "dynamic_batch": dynamic,
            "output_shape": list(y.shape), "output_absmax": float(np.abs(y).max())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--only", action="append", default=[],
                    help="model name(s), comma-separated or repeated (default: all): "
                         + ", ".join(MODELS))
    args = ap.parse_args()
    names = [n for o in args.only for n in o.split(",") if n] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit("unknown model(s): %s (known: %s)" % (", ".join(unknown), ", ".join(MODELS)))
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    os.makedirs(args.outdir, exist_ok=True)
    manifest_path = os.path.join(args.outdir, "manifest.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    for n in names:
        info = export(n, args.outdir)
        manifest[n] = info
        print("exported %-14s input %s %s opset %d  output %s |y|max %.3g"
              % (n, info["input"], info["shape"], info["opset"], info["output_shape"],
                 info["output_absmax"]), flush=True)
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
