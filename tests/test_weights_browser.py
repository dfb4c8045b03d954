"""fetch_weights in a real page (headless Chromium, offline): the first load downloads
and stores the file in the Origin Private File System; a reload reads it from there (the
server sees no second request); clearing the cache makes the next load download again."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("jaxweb_pyodide_harness_w", ROOT / "tests" / "pyodide" / "harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)
serve = harness.serve
assets = harness.assets


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if harness.chromium_available():
        pytest.skip(harness.chromium_available())
    try:
        pyodide_dir = assets.ensure_pyodide(offline=True)
    except assets.FetchError as e:
        pytest.skip(str(e))
    base = tmp_path_factory.mktemp("weights_site")
    wheel = assets.build_wheel(base / "wheels", offline=True)  # our own copy: the shared one may be rebuilt
    weights = base / "weights"
    weights.mkdir()
    import jaxweb.io as jio
    import jaxweb.numpy as jnp
    jio.save(str(weights / "model.safetensors"), {"w": jnp.arange(6.0).reshape(2, 3),
                                                  "b": jnp.asarray([0.5, -1.0, 2.0], jnp.bfloat16)})
    hits = []

    class Counting(serve.Handler):
        def do_GET(self):
            if self.path.startswith("/weights/"):
                hits.append(self.path)
            super().do_GET()

    mounts = {"/": ROOT / "tests" / "pyodide", "/js_shim/": ROOT / "js_shim", "/pyodide/": pyodide_dir,
              "/wheels/": wheel.parent, "/weights/": weights}
    srv = serve.start("127.0.0.1", 0, mounts)
    srv.RequestHandlerClass = Counting
    driver = harness._chrome()
    yield {"srv": srv, "driver": driver, "hits": hits, "wheel": f"/wheels/{wheel.name}",
           "size": (weights / "model.safetensors").stat().st_size}
    driver.quit()
    srv.shutdown()
    srv.server_close()


def load_page(site, clear=False, refetch=False):
    driver = site["driver"]
    driver.get(f"{site['srv'].url}weights_page.html?wheel={site['wheel']}&weights=/weights/model.safetensors"
               + ("&clear=1" if clear else "") + ("&refetch=1" if refetch else ""))
    r = harness.page_result(driver, "__weightsResult", timeout=180)
    assert "error" not in r, r["error"] + "\n" + "\n".join(r.get("console", [])[-20:])
    return r


def test_second_load_reads_opfs_not_the_network(site):
    first = load_page(site, clear=True)
    assert first["w"] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert first["b"] == [0.5, -1.0, 2.0] and first["b_dtype"] == "bfloat16"
    assert first["last_event"] == [site["size"], site["size"]] and first["n_events"] >= 1
    assert len(first["opfs_keys"]) == 1 and first["opfs_keys"][0].endswith(".bin")
    assert len(site["hits"]) == 1  # the second fetch_weights in the same page came from OPFS too
    reloaded = load_page(site, refetch=True)  # a new page: Pyodide and jaxweb start again
    assert reloaded["w"] == first["w"] and reloaded["again_b_dtype"] == "bfloat16"
    assert reloaded["opfs_keys"] == first["opfs_keys"]
    assert len(site["hits"]) == 2, site["hits"]  # only the fetch after clear_cache reached the server
