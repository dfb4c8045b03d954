"""The Python behind the pages, in CPython: the worker's cell runner (js_shim/worker_runtime.py),
the MNIST trainer (demos/mnist/trainer.py) and the benchmark cases (demos/bench/bench.py).
The browser tests (tests/test_pages.py) run the same code inside Pyodide."""
import asyncio
import importlib.util
import json
import struct
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # trainer.py imports `_jaxweb_worker` only inside fetch_mnist
    spec.loader.exec_module(mod)
    return mod


runtime = _load("_jaxweb_worker", ROOT / "js_shim" / "worker_runtime.py")
trainer = _load("mnist_trainer", ROOT / "demos" / "mnist" / "trainer.py")
bench = _load("jaxweb_bench_page", ROOT / "demos" / "bench" / "bench.py")


def run(session, code, **kw):
    return json.loads(asyncio.run(session.run_cell(code, **kw)))


@pytest.fixture
def session():
    return runtime.Session()


def test_last_expression_is_echoed_with_repr(session):
    r = run(session, "x = jnp.arange(3) * 2\nx")
    assert r["ok"] and r["repr"] == "Array([0, 2, 4], dtype=int32)" and r["cell"] == 1
    assert r["device"] == runtime.default_device_name()
    assert run(session, "y = 1")["repr"] is None  # an assignment echoes nothing
    assert run(session, "None")["repr"] is None  # as IPython: None is not echoed


def test_state_and_output_across_cells(session, capsys):
    run(session, "total = 40")
    r = run(session, "print('hello', total + 2)\ntotal + 2")
    assert r["repr"] == "42" and capsys.readouterr().out == "hello 42\n"
    assert run(session, "_ * 2")["repr"] == "84"  # `_` is the last echoed value


def test_top_level_await(session):
    r = run(session, "import asyncio\nawait asyncio.sleep(0)\n7")
    assert r["ok"] and r["repr"] == "7"


def test_traceback_is_trimmed_to_the_users_cells(session):
    run(session, "def f(a):\n    return a @ a")
    r = run(session, "a = jnp.ones((2, 3))\nf(a)")
    err = r["error"]
    assert not r["ok"] and err["type"] == "TypeError"
    lines = err["text"].splitlines()
    assert lines[0].startswith("TypeError: dot_general requires contracting dimensions")
    assert lines[1:5] == ["  cell [2], line 2", "    f(a)", "  cell [1], line 2, in f", "    return a @ a"]
    assert lines[5].endswith("inside jaxweb/Python hidden)") and err["hidden"] > 0
    assert "jaxweb" in err["full"] and "worker_runtime" not in err["text"]
    assert [f["cell"] for f in err["frames"]] == ["<cell 2>", "<cell 1>"]


def test_syntax_error_shows_line_and_caret(session):
    err = run(session, "x = (1,\ny = 2")["error"]
    assert err["type"] == "SyntaxError" and "line" in err["text"] and "^" in err["text"]


def test_the_page_numbers_cells(session):
    r = run(session, "1 / 0", cell=7)
    assert r["cell"] == 7 and "cell [7], line 1" in r["error"]["text"]
    assert run(session, "2")["cell"] == 8


def test_keyboard_interrupt_is_an_error_result(session):
    r = run(session, "raise KeyboardInterrupt")
    assert not r["ok"] and r["error"]["type"] == "KeyboardInterrupt"
    assert run(session, "1 + 1")["repr"] == "2"  # the session goes on


def test_device_choice_and_json(session):
    r = run(session, "{'a': jnp.arange(2), 'b': float('nan')}", device="wasm", want_json=True)
    assert r["device"] == "wasm" and r["json"] == {"a": [0, 1], "b": None}
    bad = run(session, "1", device="nope")
    assert not bad["ok"] and "Unknown backend 'nope'" in bad["error"]["message"]


def test_set_vars_binds_json_values(session):
    session.set_vars(json.dumps({"PIXELS": [0.5, 1.0], "NAME": "x"}))
    assert run(session, "sum(PIXELS), NAME")["repr"] == "(1.5, 'x')"


def test_display_and_plot_payloads(session, monkeypatch):
    sent = []
    monkeypatch.setattr(runtime, "emit", lambda kind, payload: sent.append((kind, json.loads(payload))))
    run(session, "display(jnp.array([[0.0, 1.0], [2.0, 4.0]]), title='t')\nplot([1, 4, 9], title='sq')\n"
                 "display('text')")
    (k1, img), (k2, plt), (k3, txt) = sent
    assert k1 == "image" and img["data"] == [0, 64, 128, 255] and (img["height"], img["width"], img["channels"]) == (2, 2, 1)
    assert k2 == "plot" and plt["x"] == [0.0, 1.0, 2.0] and plt["series"] == [[1.0, 4.0, 9.0]] and plt["labels"] == ["y"]
    assert k3 == "text" and txt["text"] == "'text'"


# ---------------------------------------------------------------- MNIST trainer
def idx_bytes(magic, shape, payload):
    return struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in shape) + bytes(payload)


def synthetic_mnist(n_train=256, n_test=64):
    """Images whose class is where a bright 4x4 block sits: learnable in a few steps."""
    def images(n):
        out = bytearray(n * 784)
        for i in range(n):
            c = i % 10
            for r in range(4):
                base = i * 784 + (2 + 2 * c + r) * 28 + 2 + 2 * c
                out[base:base + 4] = b"\xff" * 4
        return out
    return {"train_x": idx_bytes(2051, (n_train, 28, 28), images(n_train)),
            "train_y": idx_bytes(2049, (n_train,), [i % 10 for i in range(n_train)]),
            "test_x": idx_bytes(2051, (n_test, 28, 28), images(n_test)),
            "test_y": idx_bytes(2049, (n_test,), [i % 10 for i in range(n_test)])}


def test_parse_idx_and_errors():
    shape, payload = trainer.parse_idx(idx_bytes(2051, (1, 2, 2), [1, 2, 3, 4]))
    assert shape == (1, 2, 2) and bytes(payload) == b"\x01\x02\x03\x04"
    assert trainer.to_device(idx_bytes(2051, (1, 2, 2), [1, 2, 3, 4])).tolist() == [[1, 2, 3, 4]]
    with pytest.raises(ValueError, match="not an MNIST IDX file"):
        trainer.parse_idx(b"\x00\x00\x00\x07")


def test_model_code_must_define_init_and_apply():
    with pytest.raises(NameError, match="must define apply"):
        trainer.load_model("def init(key):\n    return {}\n")


def test_trainer_learns_and_predicts():
    source = (ROOT / "demos" / "mnist" / "models" / "mlp.py").read_text()
    t = trainer.Trainer(synthetic_mnist(), source, batch=32, lr=3e-3, eval_batch=32)
    first = t.train(2)
    assert first["step"] == 2 and len(first["losses"]) == 2 and first["ms_per_step"] > 0
    for _ in range(4):
        r = t.train(4)
    assert r["step"] == 18 and r["epoch"] == 2 and t.steps_per_epoch == 8
    assert r["losses"][-1] < 0.5 * first["losses"][0], (first, r)
    assert t.evaluate() == 1.0
    image = [0.0] * 784
    for row in range(4):
        for col in range(4):
            image[(8 + row) * 28 + 8 + col] = 1.0  # class 3's block
    probs = t.predict(image)
    assert len(probs) == 10 and abs(sum(probs) - 1) < 1e-5 and probs.index(max(probs)) == 3


def test_trainer_losses_past_its_history(monkeypatch):
    """A chunk longer than the step's loss history reads it back as it fills: the same losses,
    in order, as a history that holds the whole chunk."""
    source = (ROOT / "demos" / "mnist" / "models" / "mlp.py").read_text()
    runs = []
    for size in (trainer.HISTORY, 3):
        monkeypatch.setattr(trainer, "HISTORY", size)
        t = trainer.Trainer(synthetic_mnist(), source, batch=32, lr=3e-3, eval_batch=32)
        runs.append(t.train(7)["losses"] + t.train(1)["losses"])
    assert len(runs[0]) == 8 and runs[0] == runs[1]


def test_trainer_steps_replay_on_webgpu():
    """Each step gets whole arrays (the epoch, a batch index, the loss history), no views, and
    its donated parameters and optimizer state give each output the same buffer every call, so a
    steady chunk replays the step's recorded commands (webgpu replay.py) instead of running its
    kernels one by one from Python."""
    import jaxweb
    try:
        gpu = jaxweb.devices("webgpu")[0]
    except RuntimeError as e:
        pytest.skip(f"no webgpu device: {e}")
    source = (ROOT / "demos" / "mnist" / "models" / "mlp.py").read_text()
    with jaxweb.default_device(gpu):
        t = trainer.Trainer(synthetic_mnist(n_train=512), source, batch=32, lr=3e-3, eval_batch=32)
        t.train(4)
        t.train(4)  # the step's recordings: one per set of buffers (a loop alternates two)
        before, old = gpu.backend.stats["replays"], jaxweb.tree.leaves((t.params, t.opt_state))
        r = t.train(3)
        assert gpu.backend.stats["replays"] - before == 3 and len(r["losses"]) == 3
        assert all(a.is_deleted() for a in old)  # donated


def test_bench_cases():
    assert [n for n, _ in bench.cases(quick=True)] == list(bench.QUICK)
    r = bench.run("reduction", min_s=0.0)
    assert r["unit"] == "GB/s" and r["value"] > 0 and r["calls"] >= 3


def test_readme_snippet_is_the_served_snippet_page():
    """The README's page for one's own site is demos/snippet.html (tests/test_pages.py runs it)."""
    import re
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Using it in a page.*?```html\n(.*?)```", readme, re.S).group(1)
    page = (ROOT / "demos" / "snippet.html").read_text()
    page = re.sub(r"<!--.*?-->\n", "", page, flags=re.S)
    assert block == page


def test_repl_examples_run(monkeypatch):
    """Every example in the REPL's menu runs (the last one is meant to fail, trimmed); the
    sentence-similarity one fetches its model from the page's server: tests/test_pages.py runs
    it in a page."""
    import re
    text = (ROOT / "demos" / "repl" / "examples.mjs").read_text()
    examples = re.findall(r"\['([^']+)', `(.*?)`\]", text, re.S)
    assert len(examples) == 10
    monkeypatch.setattr(runtime, "emit", lambda kind, payload: None)

    async def fetch_bytes(url):  # serve.py's /models/onnx/ mount, read from disk
        assert url.startswith("/models/onnx/"), url
        return (ROOT / "tests" / "data" / "onnx" / url[len("/models/onnx/"):]).read_bytes()
    monkeypatch.setattr(runtime, "fetch_bytes", fetch_bytes)
    session = runtime.Session()
    for name, code in examples:
        if name == "sentence similarity":
            continue
        r = run(session, code)
        if name.startswith("error"):
            assert r["error"]["text"].startswith("TypeError: dot_general"), r
            assert "cell [9], line 3" in r["error"]["text"]  # the 9th run here
        else:
            assert r["ok"], (name, r["error"]["text"])
