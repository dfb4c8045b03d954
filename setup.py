"""The wheel's layout (metadata is in pyproject.toml): jaxweb's packages, plus `js_shim/`
(the JS shim, one copy in git) as the subpackage `jaxweb.js_shim` with its ES modules,
so that jaxweb installed by micropip into any Pyodide carries its shim."""
from setuptools import find_namespace_packages, setup

setup(packages=[*find_namespace_packages(include=["jaxweb", "jaxweb.*"]), "jaxweb.js_shim"],
      package_dir={"jaxweb.js_shim": "js_shim"},
      package_data={"jaxweb.js_shim": ["*.mjs"]})
