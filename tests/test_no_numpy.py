"""jaxweb must import and work without numpy, as in Pyodide (no numpy wheel offline)."""
import subprocess
import sys
import textwrap


def test_import_and_pure_python_parts_without_numpy():
    code = textwrap.dedent("""
        import sys
        sys.modules['numpy'] = None  # make `import numpy` fail
        import jaxweb, jaxweb.numpy as jnp, jaxweb.lax, jaxweb.tree_util
        assert jnp.promote_types(jnp.int8, jnp.uint8) == jnp.int16
        assert jaxweb.tree_util.tree_leaves({'a': [1, 2], 'b': None}) == [1, 2]
        from jaxweb._src import hostdata, dtypes
        data = hostdata.pack([1.5, -2.0, float('inf')], dtypes.float32)
        assert hostdata.unpack(data, dtypes.float32, 3) == [1.5, -2.0, float('inf')]
        assert hostdata.unpack(hostdata.pack([1.0, 3.14159], dtypes.bfloat16), dtypes.bfloat16, 2) == [1.0, 3.140625]
        data = hostdata.pack([1 + 2j, -3.5j], dtypes.complex64)  # interleaved (re, im) float32 pairs
        assert len(data) == 16 and hostdata.unpack(data, dtypes.complex64, 2) == [1 + 2j, -3.5j]
        from jaxweb._src.array_repr import _plain_format
        assert _plain_format([1 + 2j, -3.5j], (2,), dtypes.complex64, ", ", "Array(") == "[ 1.+2.j , -0.-3.5j]"
        x = jnp.array([1 + 2j, -3.5j])
        assert (x * x + 1).tolist() == [-2 + 4j, -11.25 + 0j] and repr(x) == "Array([ 1.+2.j , -0.-3.5j], dtype=complex64)"
        print('ok')
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")
