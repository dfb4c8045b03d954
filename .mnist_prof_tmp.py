import sys, time, collections
sys.path.insert(0, "benchmarks/browser")
import compiler_bench as cb
import jaxweb as jax
from jaxweb._src.backends.wasm.backend import WasmBackend
jax.devices("wasm")[0].backend.rt.batch = None
s = cb._inputs()
p = s["params"]; m = jax.tree.map(lambda t: t * 0, p); v = jax.tree.map(lambda t: t * 0, p)
st = [p, m, v]
def one():
    val, *st[:] = cb._jstep(*st, s["x"], s["y"]); val.block_until_ready()
for _ in range(3): one()
times = collections.defaultdict(float); counts = collections.Counter()
real = WasmBackend.execute
def timed(self, program, outs, inputs):
    t = time.perf_counter(); real(self, program, outs, inputs); dt = time.perf_counter() - t
    k = (program.mode, program.rows, program.size, program.work)
    times[k] += dt; counts[k] += 1
WasmBackend.execute = timed
N = 5
t0 = time.perf_counter()
for _ in range(N): one()
tot = (time.perf_counter() - t0) / N
WasmBackend.execute = real
print("step ms %.2f; kernel sum ms %.2f" % (tot * 1e3, sum(times.values()) / N * 1e3))
for k, t in sorted(times.items(), key=lambda kv: -kv[1]):
    print("%8.3f ms  %s x%d" % (t / N * 1e3, k, counts[k] // N))
exe_txt = cb._jstep.lower(*st, s["x"], s["y"]).compile()
for kk in exe_txt._executable.schedule.kernels if hasattr(exe_txt, "_executable") else []:
    print(kk.name, kk.shape)
