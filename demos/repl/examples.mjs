// The REPL's examples menu: small programs that show one idea each.
// `jax`, `jnp`, `display` and `plot` are already in the namespace.

export const EXAMPLES = [
  ['Arrays', `x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
print(x.sum(axis=0), x.mean())
x.T @ x`],
  ['grad', `def f(x):
    return jnp.sum(jnp.tanh(x) ** 2)

x = jnp.linspace(-2.0, 2.0, 5)
jax.grad(f)(x)`],
  ['vmap', `def dot(a, b):
    return jnp.dot(a, b)

a = jnp.arange(6.0).reshape(3, 2)
b = jnp.ones((3, 2))
jax.vmap(dot)(a, b)   # one dot product per row`],
  ['jit + kernel count', `def gelu(x):
    return 0.5 * x * (1 + jnp.tanh(0.79788456 * (x + 0.044715 * x ** 3)))

fast = jax.jit(gelu)
x = jnp.linspace(-3.0, 3.0, 1 << 16)
print("kernels per call:", int(fast.lower(x).compile().cost_analysis()["kernels"]))
fast(x)[:4]`],
  ['random', `key = jax.random.key(0)
k1, k2 = jax.random.split(key)
print(jax.random.normal(k1, (3,)))
jax.random.uniform(k2, (2, 3))`],
  ['training loop', `import jaxweb.optax as optax

key = jax.random.key(1)
x = jax.random.normal(key, (256, 1))
y = jnp.sin(3 * x) + 0.1 * jax.random.normal(jax.random.key(2), (256, 1))
params = {"w1": jax.random.normal(key, (1, 32)) * 0.5, "b1": jnp.zeros(32),
          "w2": jax.random.normal(jax.random.key(3), (32, 1)) * 0.2, "b2": jnp.zeros(1)}

def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)

opt = optax.adam(0.03)
state = opt.init(params)

@jax.jit
def step(p, s, x, y):
    l, g = jax.value_and_grad(loss)(p, x, y)
    u, s = opt.update(g, s, p)
    return optax.apply_updates(p, u), s, l

losses = []
for i in range(200):
    params, state, l = step(params, state, x, y)
    losses.append(float(l))
print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")
plot(losses, title="training loss")`],
  ['ONNX model', `import _jaxweb_worker, jaxweb.onnx
# a ResNet-18-shaped CNN exported from torch (small widths), served by serve.py
data = await _jaxweb_worker.fetch_bytes("/models/onnx/resnet18.onnx")
model = jaxweb.onnx.load(data)
print(model)
x = jax.random.normal(jax.random.key(0), (2, 3, 64, 64))
logits = jax.jit(model.apply)(model.params, x)   # an ordinary jaxweb function
print("classes:", jnp.argmax(logits, axis=1))
jax.nn.softmax(logits)[0]`],
  ['plot + image', `t = jnp.linspace(0, 6.283, 200)
plot(jnp.sin(t), jnp.cos(t), x=t, labels=["sin", "cos"], title="sin and cos")
u = jnp.linspace(-1, 1, 64)
display(jnp.sin(8 * u[:, None]) * jnp.cos(8 * u[None, :]), title="an array as an image")`],
  ['sentence similarity', `# all-MiniLM-L6-v2, the /embed/ page's model (demos/embed/minilm.py), weights cached in OPFS
import _jaxweb_worker as page
await page.import_url("/embed/wordpiece.py", "wordpiece")
minilm = await page.import_url("/embed/minilm.py", "minilm")
model = await minilm.fetch("/models/minilm/")
sentences = ["A cat sleeps on the warm sofa.", "A kitten naps on the couch.",
             "Stock prices fell sharply today.", "The market dropped after the news."]
emb = model.encode(sentences)      # (4, 384), L2-normalized
sim = emb @ emb.T                  # cosine similarities
display(sim, title="cosine similarity")
print(model.tokenize(sentences[0]))
sim`],
  ['error (trimmed traceback)', `a = jnp.ones((2, 3))
b = jnp.ones((2, 3))
a @ b   # shapes do not match: only your line is shown`],
];
