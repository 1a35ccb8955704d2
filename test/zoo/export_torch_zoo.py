#!/usr/bin/python3
"""Exports the zoo's torch models (zoo_models.TORCH) to OUTDIR/<name>/model.onnx.

Random weights, made informative: BatchNorm running statistics are set from a few batches of
noise in train mode (momentum None: a cumulative average), and layers that torchvision
initialises to zero (the last BN of residual blocks with zero_init_residual, ViT's head,
ConvNeXt/Swin heads) are re-drawn, so outputs are neither constant nor vanishing. AlexNet and
VGG keep their layers but narrow their classifier (narrow_head); their adaptive pools need
224 x 224 inputs to export. Attention
modules are exported outside torch.no_grad() (inside it torch takes a fused path with no ONNX
form). Inputs take the names and shapes zoo_models gives; opset 13 unless a model needs more.

Usage: export_torch_zoo.py OUTDIR [--only NAME,...]
"""
import argparse
import math
import os
import sys
import warnings

import torch
import torch.nn as nn
import torchvision
from torchvision.models.convnext import CNBlockConfig, ConvNeXt
from torchvision.models.swin_transformer import SwinTransformer
from torchvision.models.vision_transformer import VisionTransformer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "e2e"))
import export_models  # noqa: E402 - calibrate_bn, shared with the end-to-end tests
import zoo_models  # noqa: E402


def calibrate_bn(model, example):
    """BatchNorm statistics from data: the end-to-end tests' calibration (cumulative average over a
    few noise batches in train mode), for the models with BatchNorm (all take one image input)."""
    if not any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules()):
        return
    assert len(example) == 1 and example[0].is_floating_point(), "BN models take one image"
    export_models.calibrate_bn(model, list(example[0].shape))


def redraw_zeros(model):
    """Re-draws parameters that are all zero (zero-initialised layers) from N(0, 0.02)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.numel() > 1 and not p.any() and not name.endswith("bias"):
                p.normal_(0, 0.02)
            elif name.endswith("bias") and p.numel() > 1 and not p.any():
                p.uniform_(-0.05, 0.05)
            # BN weights set to zero (zero_init_residual) -> around 1.
            if name.endswith("weight") and p.dim() == 1 and not p.any():
                p.uniform_(0.5, 1.5)


class GruStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(32, 64, num_layers=2, batch_first=True)
        self.head = nn.Linear(64, 8)

    def forward(self, x):
        y, h = self.rnn(x)
        return self.head(y), h


class LstmBidirectional(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(32, 48, num_layers=2, bidirectional=True)

    def forward(self, x):
        y, (h, c) = self.rnn(x)
        return y, h, c


def causal_mask(n):
    return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)


class Encoder(nn.Module):
    """nn.TransformerEncoder (pre-LN and post-LN layers) with a causal mask."""

    def __init__(self):
        super().__init__()
        self.post = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True), 1)
        self.pre = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True,
                                       norm_first=True, activation="gelu"), 1)

    def forward(self, x):
        mask = causal_mask(x.shape[1])
        return self.pre(self.post(x, mask=mask), mask=mask)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.dec = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(64, 4, 128, dropout=0.0, batch_first=True), 2)

    def forward(self, tgt, memory):
        return self.dec(tgt, memory, tgt_mask=causal_mask(tgt.shape[1]))


class TextClassifier(nn.Module):
    """Token ids (int64) -> embedding + positions -> 2 encoder layers -> mean pool -> classes."""

    def __init__(self, vocab=1000, d=64, n=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, n, d) * 0.1)
        self.enc = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d, 4, 128, dropout=0.0, batch_first=True), 2)
        self.head = nn.Linear(d, 5)

    def forward(self, tokens):
        return self.head(self.enc(self.embed(tokens) + self.pos).mean(dim=1))


class DcganGenerator(nn.Module):
    """A DCGAN-style generator: a latent vector up to a 64 x 64 image by transposed convs
    (k 4 stride 1, k 4 stride 2 pad 1, and an autoencoder's k 3 stride 2 pad 1
    output_padding 1), each with BatchNorm and ReLU, then Tanh."""

    def __init__(self):
        super().__init__()
        def up(cin, cout, k, s, p, op=0):
            return [nn.ConvTranspose2d(cin, cout, k, s, p, output_padding=op, bias=False),
                    nn.BatchNorm2d(cout), nn.ReLU()]
        self.net = nn.Sequential(*up(64, 128, 4, 1, 0), *up(128, 64, 4, 2, 1),
                                 *up(64, 32, 4, 2, 1), *up(32, 16, 3, 2, 1, 1),
                                 nn.ConvTranspose2d(16, 3, 4, 2, 1), nn.Tanh())

    def forward(self, z):
        return self.net(z)


class VocoderUpsampler(nn.Module):
    """A HiFi-GAN-like 1-d upsampler: mel frames to samples by transposed convs (k 16
    stride 8 pad 4, k 4 stride 2 pad 1) between dilated residual convs, LeakyReLU."""

    def __init__(self):
        super().__init__()
        self.pre = nn.Conv1d(80, 96, 7, padding=3)
        self.up1 = nn.ConvTranspose1d(96, 48, 16, 8, padding=4)
        self.res1 = nn.Conv1d(48, 48, 3, dilation=3, padding=3)
        self.up2 = nn.ConvTranspose1d(48, 24, 4, 2, padding=1)
        self.res2 = nn.Conv1d(24, 24, 3, dilation=1, padding=1)
        self.post = nn.Conv1d(24, 1, 7, padding=3)
        self.act = nn.LeakyReLU(0.1)

    def forward(self, mel):
        x = self.up1(self.act(self.pre(mel)))
        x = x + self.res1(self.act(x))
        x = self.up2(self.act(x))
        x = x + self.res2(self.act(x))
        return torch.tanh(self.post(self.act(x)))


def tv(name, **kw):
    return lambda: getattr(torchvision.models, name)(weights=None, **kw)


def narrow_head(name, width=256):
    """AlexNet and VGG with their classifier's two hidden layers narrowed from 4096 to `width`
    (the same layers otherwise): the 4096-wide heads are 60-120 M weights, a gigabyte of C++."""
    def build():
        m = getattr(torchvision.models, name)(weights=None)
        layers = list(m.classifier)
        linears = [i for i, l in enumerate(layers) if isinstance(l, nn.Linear)]
        first, mid, last = (layers[i] for i in linears)
        layers[linears[0]] = nn.Linear(first.in_features, width)
        layers[linears[1]] = nn.Linear(width, width)
        layers[linears[2]] = nn.Linear(width, last.out_features)
        m.classifier = nn.Sequential(*layers)
        return m
    return build


class Detections(nn.Module):
    """A torchvision detector on one image ([3, H, W]): boxes, scores, labels (their count is
    data-dependent: tractc bounds it by the detector's detections_per_img)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, image):
        r = self.m([image])[0]
        return r["boxes"], r["scores"], r["labels"]


def calibrate_detector_bn(m, size, head=False):
    """BatchNorm statistics from data for a detector: its backbone (and with `head`, its head:
    SSDlite's has BatchNorm) in train mode on noise (the detector itself wants targets in train
    mode)."""
    for b in m.modules():
        if isinstance(b, nn.modules.batchnorm._BatchNorm):
            b.reset_running_stats()
            b.momentum = None
    m.train()
    with torch.no_grad():
        for _ in range(3):
            feats = m.backbone(torch.rand(2, 3, size, size))
            if head:
                m.head(list(feats.values()))
    m.eval()


def scale_to(layer, out, std, zero_bias=True):
    """Scales a layer's weights so that its output `out` (computed with them) has spread `std`:
    random heads give logits either all equal (every score ties, NMS order is arbitrary) or so
    large that every score saturates, and box deltas that collapse every box to the image."""
    with torch.no_grad():
        layer.weight.mul_(std / float(out.std()))
        if zero_bias:
            layer.bias.zero_()


def ssdlite():
    m = torchvision.models.detection.ssdlite320_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=5)
    calibrate_detector_bn(m, 320, head=True)
    # The class logits' last 1x1 convs re-drawn: torchvision's init leaves every score at
    # 1/classes (all ties); these spread them over (0.5, 0.9).
    with torch.no_grad():
        for mod in m.head.classification_head.modules():
            if isinstance(mod, nn.Conv2d) and mod.kernel_size == (1, 1) and \
                    mod.out_channels % 5 == 0:
                mod.weight.normal_(0, 0.01)
    return Detections(m)


def detector_image():
    return torch.rand(3, 320, 320, generator=torch.Generator().manual_seed(1))


def fasterrcnn():
    """Faster R-CNN, MobileNetV3-Large 320 FPN: two stages (RPN proposals -> NMS -> RoIAlign ->
    box head -> per-class NMS). The box head's hidden layers narrowed from 1024 to 128 (as
    narrow_head: its 12.8 M weights would be two thirds of the model); the rest as torchvision
    builds it."""
    from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
    m = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, num_classes=5)
    m.roi_heads.box_head = TwoMLPHead(256 * 7 * 7, 128)
    m.roi_heads.box_predictor = FastRCNNPredictor(128, 5)
    calibrate_detector_bn(m, 320)
    with torch.no_grad():
        images, _ = m.transform([detector_image()])
        feats = m.backbone(images.tensors)
        rpn = m.rpn.head
        towers = [torch.relu(rpn.conv(f)) for f in feats.values()]
        scale_to(rpn.cls_logits, torch.cat([rpn.cls_logits(t).flatten() for t in towers]), 1.5)
        scale_to(rpn.bbox_pred, torch.cat([rpn.bbox_pred(t).flatten() for t in towers]), 0.2)
        proposals, _ = m.rpn(images, feats)
        roi = m.roi_heads
        hidden = roi.box_head(roi.box_roi_pool(feats, proposals, images.image_sizes))
        scale_to(roi.box_predictor.cls_score, roi.box_predictor.cls_score(hidden), 1.5)
        scale_to(roi.box_predictor.bbox_pred, roi.box_predictor.bbox_pred(hidden), 0.2)
    # Fewer detections than the bound of 100 (scores here run from 0.8 down to 0.24 at the
    # hundredth), so the zoo also sees the padded rows.
    roi.score_thresh = 0.3
    return Detections(m)


def retinanet():
    """RetinaNet as torchvision's retinanet_resnet50_fpn builds it (FPN P3-P7 with P6/P7 from P5,
    9 anchors a place, focal-loss head, per-level top-k then batched NMS) on ResNet-18: the
    ResNet-50 version is 34 M weights, half a gigabyte of C++, and ResNet-50 is in the zoo already
    (resnext50_32x4d, wide_resnet50_2)."""
    from torchvision.models.detection.backbone_utils import _resnet_fpn_extractor
    from torchvision.ops.feature_pyramid_network import LastLevelP6P7
    backbone = _resnet_fpn_extractor(torchvision.models.resnet18(weights=None), 5,
                                     returned_layers=[2, 3, 4],
                                     extra_blocks=LastLevelP6P7(256, 256))
    m = torchvision.models.detection.RetinaNet(backbone, num_classes=5, min_size=320,
                                               max_size=320)
    calibrate_detector_bn(m, 320)
    with torch.no_grad():
        images, _ = m.transform([detector_image()])
        feats = list(m.backbone(images.tensors).values())
        cls, reg = m.head.classification_head, m.head.regression_head
        # (the class logits keep their focal-loss prior bias: most anchors score below 0.05)
        scale_to(cls.cls_logits, torch.cat([cls.cls_logits(cls.conv(f)).flatten()
                                            for f in feats]), 1.5, zero_bias=False)
        scale_to(reg.bbox_reg, torch.cat([reg.bbox_reg(reg.conv(f)).flatten() for f in feats]),
                 0.2)
    return Detections(m)


class LastFlow(nn.Module):
    """RAFT's last flow estimate (it returns one per update), after 4 updates."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, image1, image2):
        return self.m(image1, image2, num_flow_updates=4)[-1]


BUILDERS = {
    "alexnet": narrow_head("alexnet"),
    "vgg11_bn": narrow_head("vgg11_bn"),
    "resnext50_32x4d": tv("resnext50_32x4d"),
    "wide_resnet50_2": tv("wide_resnet50_2"),
    "squeezenet1_0": tv("squeezenet1_0"),
    "densenet121": tv("densenet121"),
    "inception_v3": tv("inception_v3", aux_logits=False, init_weights=True),
    "googlenet": tv("googlenet", aux_logits=False, init_weights=True),
    "shufflenet_v2_x0_5": tv("shufflenet_v2_x0_5"),
    "mobilenet_v3_small": tv("mobilenet_v3_small"),
    "mnasnet0_5": tv("mnasnet0_5"),
    "efficientnet_v2_s": tv("efficientnet_v2_s"),
    "regnet_y_400mf": tv("regnet_y_400mf"),
    "vit_small": lambda: VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4,
                                           hidden_dim=64, mlp_dim=128, num_classes=10),
    "convnext_small_cfg": lambda: ConvNeXt([CNBlockConfig(32, 64, 2), CNBlockConfig(64, None, 2)],
                                           num_classes=10),
    "swin_small_cfg": lambda: SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2],
                                              num_heads=[2, 4], window_size=[4, 4],
                                              num_classes=10),
    "lraspp_mobilenet_v3_large": lambda: torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=4),
    "deeplabv3_mobilenet_v3_large": lambda: (
        torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
            weights=None, weights_backbone=None, num_classes=4, aux_loss=False)),
    "mc3_18": lambda: torchvision.models.video.mc3_18(weights=None),
    "r2plus1d_18": lambda: torchvision.models.video.r2plus1d_18(weights=None),
    "ssdlite320_mobilenet_v3_large": ssdlite,
    "fasterrcnn_mobilenet_v3_large_320_fpn": fasterrcnn,
    "retinanet_resnet18_fpn": retinanet,
    "raft_small": lambda: LastFlow(torchvision.models.optical_flow.raft_small(weights=None)),
    "gru_stack": GruStack,
    "lstm_bidirectional": LstmBidirectional,
    "transformer_encoder": Encoder,
    "transformer_decoder": Decoder,
    "text_classifier": TextClassifier,
    "dcgan_generator": DcganGenerator,
    "vocoder_upsampler": VocoderUpsampler,
}
OPSET = {"swin_small_cfg": 14, "transformer_encoder": 14, "transformer_decoder": 14,
         "text_classifier": 14, "vit_small": 14, "convnext_small_cfg": 14,
         "raft_small": 16}  # GridSample


class FirstOutput(nn.Module):
    """Segmentation models return a dict; the zoo compares its "out"."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


def example_inputs(entry):
    gen = torch.Generator().manual_seed(0)
    xs = []
    for i in entry.inputs:
        if i.dist == "tokens":
            xs.append(torch.randint(0, int(i.scale), i.shape, generator=gen, dtype=torch.int64))
        elif i.dist == "uniform01":
            xs.append(torch.rand(i.shape, generator=gen))
        else:
            xs.append(torch.randn(i.shape, generator=gen))
    return xs


def export(name, outdir):
    entry = zoo_models.BY_NAME[name]
    torch.manual_seed(0)
    model = BUILDERS[name]()
    if name.startswith(("lraspp", "deeplab")):
        model = FirstOutput(model)
    xs = example_inputs(entry)
    if not isinstance(model, Detections):  # (a detector calibrates itself: ssdlite())
        redraw_zeros(model)
        calibrate_bn(model, xs)
    model.eval()
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(xs), path + ".tmp", opset_version=OPSET.get(name, 13),
                          input_names=[i.name for i in entry.inputs],
                          output_names=entry.output_names or None)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n] or [m.name for m in zoo_models.TORCH]
    failed = 0
    for name in names:
        try:
            export(name, args.outdir)
            print(f"exported {name}", flush=True)
        except Exception as e:  # one model's export failing must not stop the others
            print(f"EXPORT FAILED {name}: {type(e).__name__}: {str(e).splitlines()[0][:300]}",
                  flush=True)
            failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
