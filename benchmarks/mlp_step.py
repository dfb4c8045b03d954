"""The MNIST MLP step of ../shared/bench/gpu_mlp_step.py, for the benchmarks that time it
(bench_gpu_speed.py on webgpu, bench_wasm_replay.py on wasm): MLP 784-256-128-10, relu,
log_softmax + NLL, hand-written Adam (optax's math) with its two bias corrections passed in
as arguments, the whole step one function to jit. jax-js runs the same model and math in
../shared/bench/jaxjs_gpu_mlp.mjs. Runs in Pyodide (no numpy)."""
import jaxweb as jax
import jaxweb.numpy as jnp

B1, B2, EPS, LR = 0.9, 0.999, 1e-8, 0.005


def mlp_init(key):
    sizes = [784, 256, 128, 10]
    ks = jax.random.split(key, 6)
    p = {}
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        s = 1 / m ** 0.5
        p[f"w{i+1}"] = jax.random.uniform(ks[2 * i], (m, n), minval=-s, maxval=s)
        p[f"b{i+1}"] = jax.random.uniform(ks[2 * i + 1], (n,), minval=-s, maxval=s)
    return p


def predict(p, x):
    a = jax.nn.relu(x @ p["w1"] + p["b1"])
    a = jax.nn.relu(a @ p["w2"] + p["b2"])
    return jax.nn.log_softmax(a @ p["w3"] + p["b3"])


def mlp_loss(p, x, y):
    return -(predict(p, x) * jax.nn.one_hot(y, 10)).sum() / y.shape[0]


def adam_step(p, mu, nu, x, y, bc1, bc2):
    """One training step: (params, mu, nu, loss); bc1, bc2 = 1 / (1 - B1**t), 1 / (1 - B2**t)."""
    l, g = jax.value_and_grad(mlp_loss)(p, x, y)
    mu = jax.tree.map(lambda m, g: B1 * m + (1 - B1) * g, mu, g)
    nu = jax.tree.map(lambda v, g: B2 * v + (1 - B2) * g * g, nu, g)
    p = jax.tree.map(lambda w, m, v: w - LR * (m * bc1) / (jnp.sqrt(v * bc2) + EPS), p, mu, nu)
    return p, mu, nu, l


def mlp_state(B: int) -> tuple:
    """(params, Adam's mu and nu, images, labels) at batch B, on the default device: the state every
    benchmark of this step starts from (the same keys, so the same arrays)."""
    p = mlp_init(jax.random.key(0))
    return (p, jax.tree.map(jnp.zeros_like, p), jax.tree.map(jnp.zeros_like, p),
            jax.random.uniform(jax.random.key(1), (B, 784)), jax.random.randint(jax.random.key(2), (B,), 0, 10))


def bcs(t):
    """Step t's two bias corrections, as the scalars each step makes."""
    return jnp.float32(1 / (1 - B1 ** t)), jnp.float32(1 / (1 - B2 ** t))
