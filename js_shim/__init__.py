"""jaxweb's JS shim as package data (`jaxweb.js_shim` in the wheel, `js_shim/` in git).

Its ES modules are what the loader (`jaxweb.mjs`) imports in a page and what
`jaxweb._src.shim_loader` evaluates in any other Pyodide; this file only makes the
folder a package, so `pkgutil.get_data("jaxweb.js_shim", ...)` finds them in a wheel,
a zip on sys.path or an unpacked install alike.
"""
