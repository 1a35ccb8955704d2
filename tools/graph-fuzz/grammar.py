"""The graph builder the idioms write into: random valid ONNX graphs, one idiom at a time.

A `Builder` holds the graph being grown: its inputs (with the distribution their values are
drawn from), constants, nodes and the live tensors an idiom may take as operands. Every node's
output shapes come from ONNX's own shape inference, run on the node alone with its constant
operands (strict mode: a node the generator got wrong fails here, at the idiom that made it,
not later in ONNX Runtime). Idioms live in idioms_*.py; `generate(seed, max_dim)` in
generate.py picks them.

Each tensor carries two facts the idioms use to stay valid and well-conditioned:
  exact  its values are the same in every correct implementation (graph inputs, integers, and
         what order-free ops make of them: Relu, Max, Transpose, Slice, ...). Ops whose result
         jumps on a rounding difference (comparisons, ArgMax, Floor, Cast to integers) take only
         exact operands, so a correct compiler never mismatches on them.
  mag    a rough bound of its magnitude; Exp, Pow and divisions bound their operands first.
"""
import numpy as np
from onnx import helper, mapping, numpy_helper, shape_inference


class GenerationError(Exception):
    """The generator built a node ONNX rejects: a bug in an idiom, never in the compiler."""


class Tensor:
    __slots__ = ("name", "dtype", "shape", "exact", "mag")

    def __init__(self, name, dtype, shape, exact=False, mag=1.0):
        self.name, self.dtype, self.shape = name, np.dtype(dtype), tuple(int(d) for d in shape)
        self.exact, self.mag = exact, float(mag)

    @property
    def rank(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def is_float(self):
        return self.dtype.kind == "f"

    def __repr__(self):
        return f"{self.name}:{self.dtype}{list(self.shape)}"


class Builder:
    # Elements per tensor the generator stays under: graphs stay small and fast to run.
    MAX_ELEMENTS = 1 << 15

    def __init__(self, rng, opset, max_dim=64):
        self.rng, self.opset, self.max_dim = rng, opset, max_dim
        self.nodes, self.initializers, self.inputs = [], [], []
        self.input_dists = {}     # input name -> (distribution, parameter)
        self.constants = {}       # name -> ndarray, for initializers and Constant outputs
        self.live = []            # tensors an idiom may use
        self.idioms = []          # names of the idioms applied, in order
        self._count = 0
        # Exporters differ in how constants appear: torch and paddle2onnx write initializers,
        # older converters and torch's scalar constants Constant nodes.
        self.constant_nodes = rng.random() < 0.3

    # ---- random choices ------------------------------------------------------------------
    def dim(self, lo, hi):
        """A size in [lo, hi], capped at max_dim (the shrinker lowers it; the draw is the same)."""
        v = int(self.rng.integers(lo, hi + 1))
        return min(v, max(lo, self.max_dim))

    def choice(self, options, p=None):
        return options[int(self.rng.choice(len(options), p=p))]

    def chance(self, p):
        return bool(self.rng.random() < p)

    def axis(self, axis, rank, p=0.3):
        """axis, or the same axis counted from the end (ONNX allows that from opset 11 on)."""
        return axis - rank if self.opset >= 11 and self.chance(p) else axis

    def pick(self, pred=lambda t: True):
        """A live tensor satisfying pred (recent ones more often), or None."""
        cands = [t for t in self.live if pred(t)]
        if not cands:
            return None
        w = np.arange(1, len(cands) + 1, dtype=np.float64) ** 2
        return cands[int(self.rng.choice(len(cands), p=w / w.sum()))]

    def fresh(self, hint):
        self._count += 1
        return f"{hint}_{self._count}"

    # ---- graph pieces --------------------------------------------------------------------
    def add_input(self, dtype, shape, dist="normal", param=1.0, exact=True, mag=3.0):
        t = Tensor(self.fresh("in"), dtype, shape, exact=exact, mag=mag)
        self.inputs.append(helper.make_tensor_value_info(
            t.name, mapping.NP_TYPE_TO_TENSOR_TYPE[t.dtype], list(t.shape)))
        self.input_dists[t.name] = (dist, param)
        self.live.append(t)
        return t

    def const(self, value, hint="c", as_node=None):
        """A constant tensor: an initializer or a Constant node, as the graph's style says."""
        value = np.asarray(value)
        name = self.fresh(hint)
        if as_node is None:
            as_node = self.constant_nodes
        tensor = numpy_helper.from_array(value, name)
        if as_node:
            self.nodes.append(helper.make_node("Constant", [], [name], value=tensor))
        else:
            self.initializers.append(tensor)
        self.constants[name] = value
        mag = float(np.abs(value).max()) if value.size and value.dtype.kind in "fiu" else 1.0
        return Tensor(name, value.dtype, value.shape, exact=True, mag=mag)

    def weight(self, shape, fan_in, hint="w"):
        """Float weights N(0, 1/fan_in): activations keep their scale through a product."""
        w = self.rng.standard_normal(shape) / np.sqrt(max(1, fan_in))
        return self.const(w.astype(np.float32), hint, as_node=False)

    def ints(self, values, hint="shape"):
        return self.const(np.asarray(values, dtype=np.int64), hint)

    def op(self, op_type, inputs, n_out=1, exact=False, mag=1.0, live=True, known=None,
           hint=None, **attrs):
        """Adds a node; returns its outputs as Tensors with inferred shapes.

        inputs: Tensors, or "" for an omitted optional input. known: [(dtype, shape)] per
        output, for a node whose shape comes from a value computed in the graph (a Reshape
        whose target is built from Shape -> Gather -> Concat), which one node alone cannot
        tell; the whole model's inference checks it at the end."""
        names = [t if isinstance(t, str) else t.name for t in inputs]
        outs = [self.fresh(hint or op_type.lower()) for _ in range(n_out)]
        node = helper.make_node(op_type, names, outs, **attrs)
        if known is not None:
            shapes = dict(zip(outs, known))
        else:
            shapes = self._infer(node, [t for t in inputs if not isinstance(t, str)])
        self.nodes.append(node)
        result = []
        for name in outs:
            dtype, shape = shapes[name]
            t = Tensor(name, dtype, shape, exact=exact, mag=mag)
            if t.size > self.MAX_ELEMENTS:
                raise TooLarge(f"{op_type} makes {t}")
            result.append(t)
            if live:
                self.live.append(t)
        return result

    def op1(self, op_type, inputs, **kw):
        return self.op(op_type, inputs, **kw)[0]

    def checkpoint(self):
        return (len(self.nodes), len(self.initializers), list(self.live), dict(self.constants),
                self._count)

    def rollback(self, state):
        n, i, live, consts, count = state
        del self.nodes[n:]
        del self.initializers[i:]
        self.live, self.constants, self._count = live, consts, count

    def retire(self, *tensors):
        """Takes tensors out of the live set (an idiom consumed them, e.g. before a residual)."""
        names = {t.name for t in tensors}
        self.live = [t for t in self.live if t.name not in names]

    def _infer(self, node, inputs):
        graph_inputs, inits = [], []
        for t in inputs:
            if t.name in self.constants:
                inits.append(numpy_helper.from_array(self.constants[t.name], t.name))
            graph_inputs.append(helper.make_tensor_value_info(
                t.name, mapping.NP_TYPE_TO_TENSOR_TYPE[t.dtype], list(t.shape)))
        outputs = [helper.make_tensor_value_info(o, 0, None) for o in node.output]
        graph = helper.make_graph([node], "infer", graph_inputs, outputs, initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        try:
            inferred = shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
        except Exception as e:  # onnx raises several exception types here
            raise GenerationError(f"{node.op_type} at opset {self.opset}: {e}") from None
        known = {}
        for vi in list(inferred.graph.output) + list(inferred.graph.value_info):
            tt = vi.type.tensor_type
            if not tt.elem_type or not tt.HasField("shape"):
                continue
            dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim]
            if any(d < 0 for d in dims):
                continue
            known[vi.name] = (mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type], dims)
        missing = [o for o in node.output if o not in known]
        if missing:
            raise GenerationError(f"{node.op_type} at opset {self.opset}: no static shape "
                                  f"inferred for {', '.join(missing)}")
        return known

    # ---- the finished model --------------------------------------------------------------
    def model(self, outputs):
        used = self._prune([t.name for t in outputs])
        nodes = [n for n in self.nodes if any(o in used for o in n.output)]
        inits = [i for i in self.initializers if i.name in used]
        # An input nothing reads stays: exporters keep them, and tractc must too.
        graph = helper.make_graph(
            nodes, "fuzz", self.inputs,
            [helper.make_tensor_value_info(t.name, mapping.NP_TYPE_TO_TENSOR_TYPE[t.dtype],
                                           list(t.shape)) for t in outputs],
            initializer=inits)
        model = helper.make_model(graph, producer_name="tractc-graph-fuzz",
                                  opset_imports=[helper.make_opsetid("", self.opset)])
        # IR version 7 is what ONNX 1.8+ writes for opsets 12-13; any version ORT reads works.
        model.ir_version = 7 if self.opset < 15 else 8
        return model

    def _prune(self, wanted):
        producer = {o: n for n in self.nodes for o in n.output}
        used, stack = set(), list(wanted)
        while stack:
            name = stack.pop()
            if name in used or not name:
                continue
            used.add(name)
            n = producer.get(name)
            if n is not None:
                stack.extend(n.input)
                used.update(n.output)
        return used


class TooLarge(Exception):
    """An idiom would make a tensor past Builder.MAX_ELEMENTS; the idiom is skipped."""


def draw_feeds(model, dists, seed):
    """The inputs' values, from their distributions, seeded apart from the graph's shape."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for vi in model.graph.input:
        tt = vi.type.tensor_type
        dtype = mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type]
        shape = [d.dim_value for d in tt.shape.dim]
        dist, p = dists[vi.name]
        if dist == "ids":
            v = rng.integers(0, int(p), size=shape)
        elif dist == "positive":
            v = rng.uniform(0.5, 2.0, size=shape) * p
        elif dist == "bool":
            v = rng.random(shape) < 0.5
        elif dist == "uniform":
            v = rng.uniform(-p, p, size=shape)
        else:
            v = rng.standard_normal(shape) * p
        feeds[vi.name] = np.asarray(v).astype(dtype)
    return feeds
