"""Complex-number cases shared by tests/test_complex.py and tests/data/record_jax_complex.py.

Each case is an expression over `jax`, `jnp`, `lax` and the operands below; JAX's result
(dtype, weak type, shape, values) or its error (type, message) is recorded once from a
JAX install into tests/data/jax_complex_reference.json, and jaxweb must give the same.
Operands avoid the branch cuts (where signed zeros decide, and XLA and numpy disagree).
"""

PRELUDE = """
z = jnp.array([1.5+0.5j, -0.3+2.0j, 0.7-1.1j, -2.0-0.4j, 0.05+0.02j, 3.0+0.0j], jnp.complex64)
w = jnp.array([0.4-1.0j, 2.0+2.0j, -1.0+0.5j, 1.5-3.0j, -0.6+0.2j, 1.0j], jnp.complex64)
x = jnp.array([0.5, -1.5, 2.0, 0.25, -0.75, 1.0], jnp.float32)
m = z.reshape(2, 3)
a = jnp.array([[1+1j, 2-1j], [0.5j, 3+0j], [-1+2j, 0.25-0.5j]], jnp.complex64)
z0 = jnp.array(1.5+0.5j, jnp.complex64)
"""

CASES = {
    # dtypes and promotion
    "promote.f32_c64": "x + z",
    "promote.f32_pycomplex": "x + 1j",
    "promote.i32_pycomplex": "jnp.arange(3) * 1j",
    "promote.c64_pyfloat": "z * 2.5",
    "promote.f16_pycomplex": "jnp.ones(2, jnp.float16) + 2j",
    "promote.bf16_c64": "jnp.ones(6, jnp.bfloat16) + z",
    "promote.weak_scalar": "jnp.asarray(1 + 2j)",
    "promote.list": "jnp.array([1, 2.5, 3j])",
    "promote.result_type": "jnp.zeros(1, jnp.result_type(jnp.float32, jnp.complex64))",
    "create.zeros": "jnp.zeros((2, 2), jnp.complex64)",
    "create.astype": "x.astype(jnp.complex64)",
    "create.complex_lax": "lax.complex(x, x * 2)",
    "create.complex_lax_weak": "lax.complex(1.0, 2.0)",
    "create.linspace": "jnp.linspace(0, 1 + 1j, 3)",
    # parts
    "part.real": "jnp.real(z)",
    "part.imag": "jnp.imag(z)",
    "part.conj": "jnp.conj(z)",
    "part.lax_conj_real": "lax.conj(x)",
    "part.imag_real": "jnp.imag(x)",
    "part.angle": "jnp.angle(z)",
    "part.angle_deg": "jnp.angle(z, deg=True)",
    "part.abs": "jnp.abs(z)",
    "part.iscomplex": "jnp.iscomplex(jnp.array([1 + 1j, 2 + 0j]))",
    "part.isreal": "jnp.isreal(jnp.array([1 + 1j, 2 + 0j]))",
    "part.to_real": "z.astype(jnp.float32)",
    "part.to_int": "z.astype(jnp.int32)",
    "part.to_bool": "jnp.array([1 + 2j, 0j, 1j]).astype(bool)",
    # arithmetic
    "arith.add": "z + w", "arith.sub": "z - w", "arith.mul": "z * w", "arith.div": "z / w",
    "arith.neg": "-z", "arith.sign": "jnp.sign(z)", "arith.square": "jnp.square(z)",
    "arith.reciprocal": "jnp.reciprocal(z)", "arith.ipow3": "z ** 3", "arith.ipow_neg": "z ** -2",
    "arith.pow": "z ** w", "arith.pow_float": "z ** 0.5", "arith.pow_zero": "jnp.array([0j, 1j]) ** 2.0",
    "arith.div_real": "z / x",
    # functions
    "fn.exp": "jnp.exp(z)", "fn.exp2": "jnp.exp2(z)", "fn.log": "jnp.log(z)",
    "fn.log1p": "jnp.log1p(z)", "fn.expm1": "jnp.expm1(z)", "fn.sqrt": "jnp.sqrt(z)",
    "fn.rsqrt": "lax.rsqrt(z)", "fn.sin": "jnp.sin(z)", "fn.cos": "jnp.cos(z)", "fn.tan": "jnp.tan(z)",
    "fn.sinh": "jnp.sinh(z)", "fn.cosh": "jnp.cosh(z)", "fn.tanh": "jnp.tanh(z)",
    "fn.arcsin": "jnp.arcsin(z)", "fn.arccos": "jnp.arccos(z)", "fn.arctan": "jnp.arctan(z)",
    "fn.arcsinh": "jnp.arcsinh(z)", "fn.arccosh": "jnp.arccosh(z)", "fn.arctanh": "jnp.arctanh(z)",
    "fn.logistic": "lax.logistic(z)", "fn.log10": "jnp.log10(z)", "fn.sqrt_neg": "jnp.sqrt(jnp.array([-4 + 0j]))",
    "fn.exp_inf": "jnp.exp(jnp.array([complex('inf'), complex('-inf')], jnp.complex64))",
    # comparisons and tests
    "cmp.eq": "z == jnp.array([1.5+0.5j, 0j, 0.7-1.1j, 1, 2, 3], jnp.complex64)",
    "cmp.ne": "z != w",
    "cmp.less": "jnp.less(z, w)", "cmp.greater_equal": "z >= w",
    "cmp.maximum": "jnp.maximum(z, w)", "cmp.minimum": "jnp.minimum(z, w)",
    "test.isfinite": "jnp.isfinite(jnp.array([1j, complex('inf'), complex('nan'), 2], jnp.complex64))",
    "test.isnan": "jnp.isnan(jnp.array([1j, complex('inf'), complex('nan'), 2], jnp.complex64))",
    "test.isinf": "jnp.isinf(jnp.array([1j, complex('inf'), complex('nan'), 2], jnp.complex64))",
    # reductions
    "red.sum": "jnp.sum(m, axis=1)", "red.prod": "jnp.prod(z)", "red.prod_axis": "jnp.prod(m, axis=0)",
    "red.mean": "jnp.mean(z)", "red.var": "jnp.var(z)", "red.std": "jnp.std(m, axis=1)",
    "red.max": "jnp.max(m, axis=1)", "red.min": "jnp.min(z)", "red.cumsum": "jnp.cumsum(z)",
    "red.cumprod": "jnp.cumprod(m, axis=1)", "red.norm": "jnp.linalg.norm(z)",
    # products
    "dot.matmul": "m @ a", "dot.real_lhs": "x.reshape(2, 3) @ a", "dot.vdot": "jnp.vdot(z, w)",
    "dot.einsum": "jnp.einsum('ij,kj->ik', m, jnp.conj(m))", "dot.outer": "jnp.outer(z[:2], w[:3])",
    "dot.convolve": "jnp.convolve(z, w[:2])", "dot.correlate": "jnp.correlate(z, w[:3], 'full')",
    "dot.conv_lax": "lax.conv_general_dilated(m[None], a.T[:, None, :2], (1,), 'SAME')",
    "red.cov": "jnp.cov(m)", "red.corrcoef": "jnp.corrcoef(m)",
    "red.lax_max": "lax.max(m, m[::-1])", "red.reduce_max": "lax.reduce_max(m, (1,))",
    "red.cummin": "lax.cummin(m, axis=0)",
    "red.window_max": "lax.reduce_window(m, -jnp.inf + 0j, lax.max, (1, 2), (1, 1), 'VALID')",
    "ad.grad_reduce_max": "jax.grad(lambda v: jnp.real(lax.reduce_max(v, (0, 1))))(m)",
    # numpy helpers
    "np.round": "jnp.round(z * 1.37, 1)", "np.nan_to_num": "jnp.nan_to_num(jnp.array([complex('nan'), complex('inf')]))",
    "np.sort_complex": "jnp.sort_complex(jnp.array([3, 1j, -2]))", "np.fmax": "jnp.fmax(z, w)",
    "np.init_normal": "jax.nn.initializers.normal(1.0)(jax.random.PRNGKey(1), (2, 2), jnp.complex64)",
    "err.clip": "jnp.clip(z, 0, 1)", "err.median": "jnp.median(z)",
    # structure
    "st.where": "jnp.where(jnp.abs(z) > 1, z, 0)", "st.concat": "jnp.concatenate([m, m * 1j], axis=0)",
    "st.transpose": "m.T", "st.gather": "z[jnp.array([4, 0, 2])]", "st.set": "z.at[1].set(9j)",
    "st.add": "z.at[jnp.array([0, 0, 3])].add(1 + 1j)", "st.pad": "lax.pad(z, jnp.complex64(1j), [(1, 2, 1)])",
    "st.dynamic_update": "lax.dynamic_update_slice(z, w[:2], (3,))", "st.sort": "jnp.sort(z)",
    "st.flip_reshape": "jnp.flip(m, 1).reshape(3, 2)", "st.roll": "jnp.roll(z, 2)",
    "st.gather_fill": "z.at[jnp.array([7, 1])].get(mode='fill')",
    # transformations
    "ad.grad_abs2": "jax.grad(lambda v: jnp.abs(v) ** 2)(z0)",
    "ad.grad_real_exp": "jax.grad(lambda v: jnp.real(jnp.exp(v) * jnp.conj(v)))(z0)",
    "ad.grad_holo": "jax.grad(lambda v: jnp.sin(v) * v, holomorphic=True)(z0)",
    "ad.grad_sum_abs_log": "jax.grad(lambda v: jnp.sum(jnp.abs(jnp.log(v))))(z)",
    "ad.grad_real_input": "jax.grad(lambda v: jnp.abs(jnp.sum(v * (1 + 2j))) ** 2)(x)",
    "ad.grad_parts": "jax.grad(lambda v: jnp.real(v) * jnp.imag(v))(z0)",
    "ad.grad_lax_complex": "jax.grad(lambda p, q: jnp.abs(lax.complex(p, q)), argnums=(0, 1))(1.0, 2.0)",
    "ad.grad_matmul": "jax.grad(lambda v: jnp.sum(jnp.abs(a @ v[:2]) ** 2))(z)",
    "ad.grad_prod": "jax.grad(lambda v: jnp.real(jnp.prod(v)))(z[:3])",
    "ad.grad_angle": "jax.grad(lambda v: jnp.sum(jnp.angle(v)))(z)",
    "ad.jacfwd_holo": "jax.jacfwd(lambda v: v ** 2 + jnp.tanh(v), holomorphic=True)(z[:3])",
    "ad.jacrev_holo": "jax.jacrev(lambda v: v ** 2 + jnp.sqrt(v), holomorphic=True)(z[:3])",
    "ad.jacrev_real_out": "jax.jacrev(lambda v: jnp.abs(v) ** 2)(z[:3])",
    "ad.vjp": "jax.vjp(lambda v: jnp.exp(v) * 2j, z)[1](w)[0]",
    "ad.jvp": "jax.jvp(lambda v: jnp.cos(v) * jnp.conj(v), (z,), (w,))[1]",
    "ad.hessian_holo": "jax.hessian(lambda v: jnp.sum(v ** 3), holomorphic=True)(z[:2])",
    "map.vmap": "jax.vmap(lambda u, v: jnp.vdot(u, v))(m, m * 1j)",
    "map.jit": "jax.jit(lambda u: jnp.prod(u) / jnp.sum(u))(z)",
    "map.scan": "lax.scan(lambda c, u: (c * u, c + u), 1 + 0j, z)[0]",
    "map.fori": "lax.fori_loop(0, 3, lambda i, c: c * 1j + i, z)",
    # errors
    "err.lax_lt": "lax.lt(z, w)", "err.floor": "jnp.floor(z)", "err.argmax": "jnp.argmax(z)",
    "err.float": "float(z0)", "err.lax_complex": "lax.complex(z, z)", "err.lax_real": "lax.real(x)",
    "err.grad_complex_out": "jax.grad(lambda v: v * 2)(z0)",
    "err.grad_holo_real_in": "jax.grad(lambda v: v * 2, holomorphic=True)(1.0)",
    "err.grad_holo_real_out": "jax.grad(lambda v: jnp.abs(v), holomorphic=True)(z0)",
    "err.jacfwd_complex": "jax.jacfwd(lambda v: v * 2)(z)",
    "err.jacrev_complex_out": "jax.jacrev(lambda v: v * 2)(z)",
    "err.jacfwd_holo_real": "jax.jacfwd(lambda v: v * 2, holomorphic=True)(x)",
}
