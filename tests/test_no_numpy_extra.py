"""The newer library code runs without numpy (as in Pyodide): linalg, callbacks, printing,
dtype helpers, check_grads, device_get's list fallback."""
import subprocess
import sys
import textwrap


def test_new_functions_without_numpy():
    code = textwrap.dedent("""
        import sys
        sys.modules['numpy'] = None  # make `import numpy` fail
        import jaxweb as jax, jaxweb.numpy as jnp
        a = jnp.asarray([[4.0, 1.0], [1.0, 3.0]])
        assert abs(float(jnp.linalg.det(a)) - 11.0) < 1e-5
        assert abs(float(jnp.linalg.eigvalsh(a)[0]) - (7 - 5 ** 0.5) / 2) < 1e-5
        seen = []
        jax.jit(lambda x: jax.debug.callback(lambda v: seen.append(v.tolist()), x))(jnp.arange(2))
        assert seen == [[0, 1]]
        assert jax.device_get({'a': jnp.arange(2)}) == {'a': [0, 1]}
        assert jnp.float32.dtype is jnp.dtype('float32') and repr(jnp.asarray([1.5], jnp.bfloat16)) == \\
            "Array([1.5], dtype=bfloat16)"
        jax.test_util.check_grads(jnp.sin, (jnp.asarray([0.5]),), order=1)
        with jnp.printoptions(precision=3):
            assert jnp.get_printoptions()['precision'] == 3
        assert jnp.gcd(12, 18).tolist() == 6 and jnp.can_cast(jnp.int8, jnp.int16)
        print('ok')
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         cwd=__file__.rsplit("/tests/", 1)[0])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")
