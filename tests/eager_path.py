"""The route of an eager `jnp.add(x, 1.0)` down to the backend's `submit`, and its climbs.

`python tests/eager_path.py [PLATFORM] [--expr=scalar|asarray|device_put]` (default: the default
platform, `jnp.add(x, 1.0)`) runs the expression and observes the result, recording every call between jaxweb modules
until the backend's `submit` is entered. A *move* is a call into another module; a *climb* is
a move to a higher floor (tests/floors.py) through a name the caller imported — the code
reaching up the floors. A call up through a value handed down (a rule in a registry, a
callback, a method) is an *up-call*: that is how lower floors are meant to reach the rules of
higher ones, and it is counted apart.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.append(str(Path(__file__).resolve().parents[1]))  # jaxweb, unless PYTHONPATH names another tree
from floors import FLOORS, floor_of  # noqa: E402


EXPRS = {"scalar": "jnp.add(x, 1.0)", "asarray": "jnp.add(x, jnp.asarray([1.0, 1.0, 1.0, 1.0]))",
         "device_put": "jnp.add(x, jaxweb.device_put(1.0))"}


def trace(platform: str | None = None, expr: str = "scalar") -> dict:
    import jaxweb
    import jaxweb.numpy as jnp
    import contextlib
    import import_graph
    imports = {(e.src, e.dst) for e in import_graph.edges(import_graph.parse(Path(jaxweb.__file__).parents[1]))}
    on = jaxweb.default_device(jaxweb.devices(platform)[0]) if platform else contextlib.nullcontext()
    with on:
        return _trace(jaxweb, jnp, imports, expr)


def _trace(jaxweb, jnp, imports: set, expr: str) -> dict:
    x = jnp.arange(4.0)
    x.block_until_ready()
    moves, climbs, upcalls, visits = [], [], [], {}
    done = []

    def prof(frame, event, arg):
        if event != "call" or done:
            return
        callee = frame.f_globals.get("__name__", "")
        back = frame.f_back
        caller = back.f_globals.get("__name__", "") if back else ""
        if not callee.startswith("jaxweb"):
            return
        if frame.f_code.co_name == "submit" and callee.startswith("jaxweb._src.backends"):
            done.append(callee)
        if not caller.startswith("jaxweb") or caller == callee:
            return
        fc, fe = floor_of(caller), floor_of(callee)
        move = (caller, callee, frame.f_code.co_name)
        moves.append(move)
        name = FLOORS[fe][0]
        visits[name] = visits.get(name, 0) + 1
        if fe > fc:
            (climbs if (caller, callee) in imports else upcalls).append(move)

    sys.setprofile(prof)
    try:
        y = eval(EXPRS[expr], {"jnp": jnp, "jaxweb": jaxweb, "x": x})
        y.block_until_ready()
    finally:
        sys.setprofile(None)
    assert y.tolist() == [1.0, 2.0, 3.0, 4.0]
    return {"platform": x.device.platform, "moves": moves, "climbs": climbs, "upcalls": upcalls,
            "visits": visits, "reached_submit": bool(done)}


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    expr = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--expr=")), "scalar")
    r = trace(args[0] if args else None, expr)
    print(f"route of {EXPRS[expr]}:")
    short = lambda m: m.removeprefix("jaxweb._src.")  # noqa: E731
    print(f"platform {r['platform']}: {len(r['moves'])} moves between modules, {len(r['climbs'])} climbs, "
          f"{len(r['upcalls'])} up-calls through registries/callbacks, submit reached: {r['reached_submit']}")
    print("moves into each floor:", ", ".join(f"{k} {v}" for k, v in r["visits"].items()))
    for kind in ("climbs", "upcalls"):
        for a, b, fn in r[kind]:
            print(f"  {kind[:-1]}: {short(a)} -> {short(b)}.{fn}")


if __name__ == "__main__":
    main()
