"""jaxweb.random\x27s implementation: threefry2x32 keys and JAX\x27s samplers (see ../../random.py)."""
