"""generate(seed, max_dim) -> Case: one random valid ONNX graph and the inputs to run it on.

The seed decides everything: the opset (7-17), the domain of the graph's inputs (an image, a
sequence, token ids, an audio frame, a vector, a video clip), and a chain of 2-13 idioms drawn
by weight among those its opset has (idioms_*.py). max_dim caps every size the idioms draw
without changing the draws, so the shrinker can ask for the same graph with smaller shapes.
"""
from dataclasses import dataclass, field

import numpy as np
import onnx

import idioms_integer  # noqa: F401  (each idioms module fills the table on import)
import idioms_math  # noqa: F401
import idioms_sequence  # noqa: F401
import idioms_tensor  # noqa: F401
import idioms_vision  # noqa: F401
from grammar import Builder, TooLarge, draw_feeds
from idioms_registry import IDIOMS, Skip

OPSETS = list(range(7, 18))
# Newer opsets are what exporters write today; older ones still come from paddle2onnx and
# keras2onnx, and their forms differ most.
OPSET_WEIGHTS = np.array([1, 1, 2, 2, 3, 3, 4, 4, 2, 2, 3], dtype=np.float64)


@dataclass
class Case:
    seed: int
    model: onnx.ModelProto
    feeds: dict
    idioms: list = field(default_factory=list)
    max_dim: int = 64

    @property
    def opset(self):
        return self.model.opset_import[0].version


def _inputs(b, domain):
    n = b.choice([1, 1, 2])
    if domain == "image":
        x = b.add_input(np.float32, [n, b.dim(1, 16), b.dim(1, 24), b.dim(1, 24)])
    elif domain == "sequence":
        x = b.add_input(np.float32, [n, b.dim(1, 12), b.dim(2, 48)])
    elif domain == "text":
        vocab = b.dim(2, 40)
        b.add_input(np.int64, [n, b.dim(1, 12)], dist="ids", param=vocab, mag=vocab)
        return
    elif domain == "audio":
        x = b.add_input(np.float32, [n, b.dim(1, 8), b.dim(4, 64)])
    elif domain == "video":
        x = b.add_input(np.float32, [n, b.dim(1, 4), b.dim(1, 4), b.dim(1, 8), b.dim(1, 8)])
    else:
        x = b.add_input(np.float32, [n, b.dim(1, 64)])
    if b.chance(0.25):  # a second input: the same shape, or one that broadcasts against it
        shape = list(x.shape) if b.chance(0.5) else [d if b.chance(0.5) else 1 for d in x.shape]
        b.add_input(np.float32, shape, dist=b.choice(["normal", "uniform"]))


def generate(seed, max_dim=64):
    rng = np.random.default_rng(seed)
    opset = OPSETS[int(rng.choice(len(OPSETS), p=OPSET_WEIGHTS / OPSET_WEIGHTS.sum()))]
    b = Builder(rng, opset, max_dim)
    _inputs(b, b.choice(["image", "image", "image", "sequence", "sequence", "text", "audio",
                         "video", "vector"]))
    names = sorted(n for n, (_, _, (lo, hi)) in IDIOMS.items() if lo <= opset <= hi)
    weights = np.array([IDIOMS[n][1] for n in names], dtype=np.float64)
    steps = int(rng.integers(2, 14))
    applied = 0
    for _ in range(steps * 4):
        if applied == steps:
            break
        name = names[int(rng.choice(len(names), p=weights / weights.sum()))]
        state = b.checkpoint()
        try:
            IDIOMS[name][0](b)
        except (Skip, TooLarge):
            b.rollback(state)
            continue
        b.idioms.append(name)
        applied += 1
    produced = [t for t in b.live if t.name not in b.input_dists]
    if not produced:
        return None  # nothing applied (every idiom skipped): the caller draws another seed
    outputs = [produced[-1]]
    for t in produced[:-1]:
        if len(outputs) < 3 and rng.random() < 0.15:
            outputs.append(t)
    model = b.model(outputs)
    onnx.checker.check_model(model)
    return Case(seed, model, draw_feeds(model, b.input_dists, seed + 1), b.idioms, max_dim)
