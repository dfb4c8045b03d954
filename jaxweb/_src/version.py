"""jaxweb's version (pyproject.toml says the same), where the library's own modules can read it."""
__version__ = "0.1.0"
