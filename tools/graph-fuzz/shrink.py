"""Shrinks a failing case to a small one that fails the same way (delta debugging).

shrink(case, outcome, check) -> (case, outcome), where check(cases) -> [Outcome] is the
differential runner and "the same way" is Outcome.signature() (the kind of failure, and for
a crash or refusal the start of the message):

1. shapes: the same seed generated again with every drawn size capped lower (max_dim 1, 2, 4,
   ...; generate.py draws the same numbers, so the graph keeps its structure);
2. outputs: one output alone, then an earlier value alone as the output (earliest first);
3. nodes: ranges of nodes, halving in length down to one, cut out: the values they produced
   become graph inputs fed with what ONNX Runtime computed for them in the case being shrunk
   (so every shrunk graph is valid and sees realistic values), and whatever no output needs any
   more goes. Repeated until no cut keeps the failure.
Candidates are checked in batches, one runner round each.
"""
import os
import tempfile

import onnx
from onnx import helper, shape_inference

from generate import Case, generate


def _node_cut(model, feeds, values, cut):
    """The model without nodes `cut` (indices); None when nothing is left to compute."""
    g = model.graph
    kept = [n for i, n in enumerate(g.node) if i not in cut]
    produced = {o for n in kept for o in n.output}
    cut_outputs = {o for i in cut for o in g.node[i].output}
    outputs = [o for o in g.output if o.name in produced]
    if not outputs:
        return None
    # What the outputs still need.
    producer = {o: n for n in kept for o in n.output}
    needed, stack = set(), [o.name for o in outputs]
    while stack:
        name = stack.pop()
        if name in needed or not name:
            continue
        needed.add(name)
        if name in producer:
            stack.extend(producer[name].input)
    kept = [n for n in kept if any(o in needed for o in n.output)]
    if not kept:
        return None
    inits = [i for i in g.initializer if i.name in needed]
    inputs, new_feeds = [], {}
    for vi in g.input:
        if vi.name in needed:
            inputs.append(vi)
            new_feeds[vi.name] = feeds[vi.name]
    for name in sorted(cut_outputs & needed):
        if name not in values:
            return None  # a value ORT did not report (an optional output): keep the node
        v = values[name]
        inputs.append(helper.make_tensor_value_info(
            name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[v.dtype], list(v.shape)))
        new_feeds[name] = v
    graph = helper.make_graph(kept, g.name, inputs, outputs, initializer=inits)
    m = helper.make_model(graph, producer_name=model.producer_name,
                          opset_imports=list(model.opset_import))
    m.ir_version = model.ir_version
    return m, new_feeds


def intermediate_values(model, feeds, run_values):
    """Every tensor's value, by running the model with all of them as outputs."""
    inferred = shape_inference.infer_shapes(model)
    typed = {vi.name: vi for vi in inferred.graph.value_info}
    extra = helper.make_model(inferred.graph, opset_imports=list(model.opset_import))
    extra.ir_version = model.ir_version
    names = []
    for n in model.graph.node:
        for o in n.output:
            if o in typed and o not in {x.name for x in extra.graph.output}:
                extra.graph.output.append(typed[o])
                names.append(o)
    outs = run_values(extra, feeds)
    if outs is None:
        return {}
    base = len(model.graph.output)
    values = {o.name: v for o, v in zip(model.graph.output, outs[:base])}
    values.update(zip(names, outs[base:]))
    return values


def shrink(case, outcome, check, run_values, log=lambda s: None):
    want = outcome.signature()

    def first_failing(candidates):
        if not candidates:
            return None
        results = check(candidates)
        for c, o in zip(candidates, results):
            if o.signature() == want:
                return c, o
        return None

    # 1. shapes
    if case.seed is not None:
        tries = []
        for cap in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32):
            if cap >= case.max_dim:
                break
            try:
                c = generate(case.seed, max_dim=cap)
            except Exception:  # noqa: BLE001 (a capped draw the generator cannot build)
                c = None
            if c is not None:
                tries.append(c)
        hit = first_failing(tries)
        if hit:
            case, outcome = hit
            log(f"  shapes capped at {case.max_dim}")

    # 2. one output
    outs = list(case.model.graph.output)
    if len(outs) > 1:
        cands = []
        for o in outs:
            m = onnx.ModelProto()
            m.CopyFrom(case.model)
            del m.graph.output[:]
            m.graph.output.append(o)
            cands.append(_as_case(case, m, case.feeds))
        hit = first_failing(cands)
        if hit:
            case, outcome = hit

    # 2b. an earlier value as the only output (the failure may start upstream of the outputs)
    typed = {vi.name: vi for vi in shape_inference.infer_shapes(case.model).graph.value_info}
    cands = []
    for node in case.model.graph.node:
        for o in node.output:
            if o in typed and all(o != x.name for x in case.model.graph.output):
                m = onnx.ModelProto()
                m.CopyFrom(case.model)
                del m.graph.output[:]
                m.graph.output.append(typed[o])
                cut = _node_cut(m, case.feeds, {}, set())
                if cut is not None:
                    cands.append(_as_case(case, *cut))
    hit = first_failing(cands)
    if hit:
        case, outcome = hit
        log(f"  an earlier value as the output: {len(case.model.graph.node)} nodes")

    # 3. nodes
    while True:
        values = intermediate_values(case.model, case.feeds, run_values)
        n = len(case.model.graph.node)
        progress = False
        size = max(1, n // 2)
        while size >= 1 and not progress:
            cands = []
            for start in range(0, n, size):
                cut = _node_cut(case.model, case.feeds, values, set(range(start, min(n, start + size))))
                if cut is not None:
                    cands.append(_as_case(case, *cut))
            hit = first_failing(cands)
            if hit:
                case, outcome = hit
                progress = True
                log(f"  {n} -> {len(case.model.graph.node)} nodes")
            size //= 2
        if not progress:
            break
    return case, outcome


def _as_case(case, model, feeds):
    # The shrunk model stands alone: no seed to regenerate it from.
    return Case(None, model, dict(feeds), list(case.idioms), case.max_dim)


def describe(model):
    """The graph in a line per node, for the regression's finding.txt."""
    lines = [f"opset {model.opset_import[0].version}"]
    for vi in model.graph.input:
        dims = [d.dim_value for d in vi.type.tensor_type.shape.dim]
        lines.append(f"input {vi.name}: {onnx.TensorProto.DataType.Name(vi.type.tensor_type.elem_type)} {dims}")
    inits = {i.name: list(i.dims) for i in model.graph.initializer}
    for n in model.graph.node:
        attrs = ", ".join(f"{a.name}={helper.get_attribute_value(a)!r}"[:80] for a in n.attribute
                          if a.name != "value")
        args = ", ".join(f"{i}{inits[i]}" if i in inits else i for i in n.input)
        lines.append(f"{', '.join(n.output)} = {n.op_type}({args}){' ' + attrs if attrs else ''}")
    lines.append("outputs: " + ", ".join(o.name for o in model.graph.output))
    return "\n".join(lines)


def values_from_ort(ort, oracle):
    """run_values for shrink(): the model's outputs from ORT, or None if it refuses."""
    def run(model, feeds):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.onnx")
            onnx.save(model, path)
            try:
                return oracle.run_ort(ort, path, feeds)
            except oracle.OracleError:
                return None
    return run

