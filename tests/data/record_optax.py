"""Record optax's outputs for the cases in optax_cases.py (run once, with optax installed):

    /work/jaxref/bin/python tests/data/record_optax.py     # optax 0.2.8, JAX 0.10.2

writes optax_reference.json beside this file. The tests never import optax or JAX: they
compare jaxweb.optax against this file.
"""
import json
import math
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import optax_cases as C  # noqa: E402

REFS = {"__mask_w__": lambda tree: {"b": False, "w": True}}


def tree_of(flat: dict) -> dict:
    return {k: jnp.asarray(np.asarray(v, np.float32).reshape(C.PARAM_SHAPES[k])) for k, v in flat.items()}


def num(x):
    x = float(x)
    return x if not math.isfinite(x) else float(f"{x:.9g}")


def leaves_with_paths(tree) -> list:
    out = []
    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        a = np.asarray(leaf)
        vals = a.reshape(-1).tolist()
        vals = [num(v) if a.dtype.kind == "f" else (bool(v) if a.dtype.kind == "b" else int(v)) for v in vals]
        out.append([jax.tree_util.keystr(path), str(a.dtype), list(a.shape), vals])
    return out


def run_case(spec, nonfinite_at=None) -> dict:
    opt = C.build(optax, spec, REFS)
    params = tree_of(C.params0())
    state = opt.init(params)
    steps = []
    for t in range(C.STEPS):
        g = tree_of(C.grads(t, nonfinite_at))
        updates, state = opt.update(g, state, params)
        params = optax.apply_updates(params, updates)
        steps.append(leaves_with_paths(updates))
    return {"spec": spec, "nonfinite_at": nonfinite_at, "updates": steps,
            "params": leaves_with_paths(params), "state": leaves_with_paths(state)}


def run_schedule(spec, steps) -> dict:
    sched = C.build(optax, spec)
    py = [num(sched(s)) for s in steps]
    arr = [num(sched(jnp.asarray(s, jnp.int32))) for s in steps]
    return {"spec": spec, "steps": steps, "python_int": py, "int32": arr}


def loss_input(x):
    if isinstance(x, dict) and "int" in x:
        return jnp.asarray(x["int"], jnp.int32)
    if isinstance(x, dict) and "lit" in x:
        return jnp.asarray(x["lit"], jnp.float32)
    if isinstance(x, dict) and "log_softmax" in x:
        return jax.nn.log_softmax(jnp.asarray(x["log_softmax"], jnp.float32))
    return jnp.asarray(x, jnp.float32) if isinstance(x, list) else x


def run_loss(name, args, kwargs) -> dict:
    fn = getattr(optax.losses, name)
    xs = [loss_input(a) for a in args]
    out = fn(*xs, **kwargs)
    grad = jax.grad(lambda first: jnp.sum(fn(first, *xs[1:], **kwargs)))(xs[0]) \
        if xs[0].dtype == jnp.float32 else None
    flat = lambda a: [num(v) for v in np.asarray(a).reshape(-1).tolist()]  # noqa: E731
    return {"fn": name, "args": args, "kwargs": kwargs, "shape": list(np.shape(out)), "value": flat(out),
            "grad": None if grad is None else flat(grad)}


def main() -> None:
    data = {"versions": {"optax": optax.__version__, "jax": jax.__version__}, "steps": C.STEPS,
            "cases": {}, "schedules": {}, "losses": {}}
    for name, spec in {**C.OPTIMIZERS, **C.TRANSFORMS}.items():
        data["cases"][name] = run_case(spec)
    for name, spec in C.NONFINITE.items():
        data["cases"][name] = run_case(spec, nonfinite_at=1)
    for name, (spec, steps) in C.SCHEDULES.items():
        data["schedules"][name] = run_schedule(spec, steps)
    for name, (fn, args, kwargs) in C.LOSSES.items():
        data["losses"][name] = run_loss(fn, args, kwargs)
    text = json.dumps(data, separators=(",", ":"), sort_keys=True)
    (HERE / "optax_reference.json").write_text(text + "\n")
    print(f"wrote {len(data['cases'])} cases, {len(data['schedules'])} schedules, "
          f"{len(data['losses'])} losses ({len(text)} bytes)")


if __name__ == "__main__":
    main()
