"""The README's worked example runs as written and really fits the data."""
import contextlib
import io
import pathlib
import re


def test_readme_mlp_example_trains():
    text = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
    block = re.search(r"<!-- readme-example[^>]*-->\n```python\n(.*?)```", text, re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    losses = [float(m) for m in re.findall(r"loss ([0-9.]+)", out.getvalue())]
    assert len(losses) == 4
    assert losses[-1] < 0.1 * losses[0], losses
