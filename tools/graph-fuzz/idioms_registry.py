"""The table of idioms: name -> (function, weight, opset range), filled by @idiom.

An idiom takes the Builder, picks operands among its live tensors, adds the nodes an exporter
would write for one piece of a model, and raises Skip when nothing live fits it.
"""

IDIOMS = {}


class Skip(Exception):
    """The idiom does not apply to the graph as it is (no operand of the kind it needs)."""


def idiom(weight=1.0, opsets=(7, 17)):
    def register(fn):
        IDIOMS[fn.__name__] = (fn, weight, opsets)
        return fn
    return register


def need(t):
    """The operand an idiom picked, or Skip when there was none."""
    if t is None:
        raise Skip()
    return t
