# The MNIST-sized MLP and its Adam step that the compiler (wasm) and webgpu benchmark pages
# both time: deterministic parameters and batch (jax-js gets the same bytes), the loss, the
# step (jitted with donation), and a trainer that carries (p, m, v) from call to call.
# common.mjs writes this file beside each page's Python half; its jax-js twin is jaxjsMlp there.
import jaxweb as jax
import jaxweb.numpy as jnp

from page_timing import det

B = 1000
SIZES = [784, 256, 128, 10]
LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8


def inputs(dev):
    """params (He-scaled weights, small biases), a batch x and its one-hot labels y, on `dev`."""
    params = [(det(dev, (m, n), 2 * i, (2.0 / m) ** 0.5), det(dev, (n,), 2 * i + 1, 0.01))
              for i, (m, n) in enumerate(zip(SIZES[:-1], SIZES[1:]))]
    x = det(dev, (B, 784), 10)
    with jax.default_device(dev):
        labels = (jnp.arange(B) * 7) % 10
        y = (labels[:, None] == jnp.arange(10)[None, :]).astype(jnp.float32).block_until_ready()
    return {"params": params, "x": x, "y": y}


def loss(p, x, y):
    h = x
    for w, b in p[:-1]:
        h = jnp.maximum(h @ w + b, 0)
    w, b = p[-1]
    return -(jax.nn.log_softmax(h @ w + b) * y).sum() / B


def step(p, m, v, x, y):
    value, g = jax.value_and_grad(loss)(p, x, y)
    m = jax.tree.map(lambda m, g: B1 * m + (1 - B1) * g, m, g)
    v = jax.tree.map(lambda v, g: B2 * v + (1 - B2) * g * g, v, g)
    p = jax.tree.map(lambda p, m, v: p - LR * m / (jnp.sqrt(v) + EPS), p, m, v)
    return value, p, m, v


jstep = jax.jit(step, donate_argnums=(0, 1, 2))


def fresh_state(s):
    """(p, m, v): a copy of the initial parameters (the step donates them) and zero moments."""
    z = jax.tree.map(jnp.zeros_like, s["params"])
    return jax.tree.map(lambda a: a + 0, s["params"]), z, jax.tree.map(jnp.zeros_like, z)


def trainer(fn, dev, s):
    """A call that runs one training step `fn` (step or jstep) and waits for its loss."""
    with jax.default_device(dev):
        st = dict(zip("pmv", fresh_state(s)))

    def one():
        value, st["p"], st["m"], st["v"] = fn(st["p"], st["m"], st["v"], s["x"], s["y"])
        value.block_until_ready()
    return one


def losses(dev, s, steps):
    """The losses of `steps` jitted training steps from the initial parameters (cross-check)."""
    with jax.default_device(dev):
        p, m, v = fresh_state(s)
        out = []
        for _ in range(steps):
            value, p, m, v = jstep(p, m, v, s["x"], s["y"])
            out.append(float(value))
    return out


def input_array(s, name):
    """The array a page asks for by name: params.i.j, or a key of `s`."""
    if name.startswith("params."):
        _, i, j = name.split(".")
        return s["params"][int(i)][int(j)]
    return s[name]
