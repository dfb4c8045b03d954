"""A recorded case's arguments and function, for both sides of tests/data/record_jax_nn_scipy.py
(run under JAX) and tests/jax_replay.py (under jaxweb): the array constructor and the root
module are passed in, so this imports neither library."""
import numpy as np


def build(a, asarray):
    """An argument: (dtype, values) -> an array; a list of those -> a list of arrays; else as is."""
    if isinstance(a, tuple):
        return asarray(np.array(a[1], dtype=a[0]))
    if isinstance(a, list) and a and isinstance(a[0], tuple):  # a sequence of arrays
        return [build(v, asarray) for v in a]
    return a


def lookup(root, path):
    """The attribute at dotted `path` under module `root` ("scipy.special.erf")."""
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj
