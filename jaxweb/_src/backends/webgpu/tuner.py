"""Pick the GEMM tiling for this adapter by timing the candidates on it, once per page load.

The best tile shape depends on the GPU (its SM count, registers, clocks) and even on
the machine of the day: on H200 hosts 128x128 tiles (8x8 per invocation) beat 64x64
tiles (4x4) by 22-29 % at n = 4096-8192 on one run and lost by 5 % on another, while
64x64 won at n = 1024 every time (`benchmarks/bench_webgpu_gemm_sweep.py`). So the
backend does not guess: before its first schedule it runs each candidate's kernel on an
n x n x n product (n = SIZE), interleaved, and keeps the fastest (GPU timestamps where
the adapter has them, else wall-clock to the end of each submit). This costs a few
pipeline compilations and about 20 GEMMs of that size; software adapters skip it (they
run `matmul._build_direct`).

The tiling fixes the strip width `nr` the scheduler stages B with, which is why it is
chosen before any schedule rather than per kernel.

Products whose C has few tiles (an MLP's 1000 x 256 layers and 256 x 128 weight gradients:
2 to 16 tiles of 128 x 128 on a GPU of 132 SMs) leave most of the GPU idle. For them the plan
(`Planner`, the scheduler's `GemmCaps.plan`) may take `SMALL` tiles and split K. Which of
these pays depends on the shape, the operands' layout and the device, and a rule of thumb (split
until about `want` workgroups run; `want` timed once by `tune_splits` on one 256 x 256 x 2048
product) only guesses it. So the planner times the candidates on each product's real shape and
layout the first time it meets it (`Planner.time`: about 20 submits of that product, the split
variants with a pass adding their partial sums), and keeps the fastest, a split charged the host
time of its sums' launch (`DISPATCH`) where the unsplit routine writes the outputs itself;
products whose big tiles already make `want` workgroups are not timed. What that costs a model's
first call is mostly compiling: every split count (and one split, timing the unsplit product) runs
on one pipeline of the product (matmul.split_from_grid), the partial sums of every product and
count on one (`SUM_CODE`), and big tiles are timed only where they come near filling the device
(`BIG_FILL`): one pipeline per product (two where big tiles are timed) and one for all the sums,
the MLP step's candidates 37 -> 6 pipelines. On the H200 the MLP
step's GPU time was 0.31 ms per step timed, 0.32 by the rule and 0.73 with the plan off (in one
process, interleaved). Timings are taken after `warm`, in interleaved rounds (`_best`): an idle
GPU starts at a low clock (the H200 read 345 of its 1980 MHz at rest), and that host also had
spells of tens of seconds in which everything ran 2-3x slower with no reason the driver reported
(they, not the plan, made the plan look slower in the first H200 comparisons).
`JAXWEB_GEMM_PLAN=0` turns the plan off (128 x 128 tiles, no splits), `=1` takes the rule of
thumb untimed (`heuristic`).
"""
from __future__ import annotations

import array
import dataclasses
import time
from typing import Any, Callable

from ...compiler.gemm import GemmSpec, split_k
from . import matmul

SMALL = matmul.Tiling(64, 64, 8, 4, 4)  # tiles of products with few (and the tuner's second candidate)
CANDIDATES = (matmul.HARDWARE, SMALL)
SIZE = 2048
ROUNDS = 3
SPLITS = (1, 2, 4, 8, 16)  # the split counts timed for the few-tiles class ...
SPLIT_M, SPLIT_K = 256, 2048  # ... on an M x M x K product (16 small tiles)
WANT = 256  # workgroups a product should launch, where the split timing fails
MIN_KC = 64  # the shortest K range a split is given
MAX_SPLITS = 16


REPEATS = 8  # dispatches of one candidate per timed run (a run's time: first begin to last end)
WARM_BUDGET = 0.5  # seconds the planner may spend bringing the GPU's clocks up before it times
WARM_FRESH = 0.5  # ... unless it had the GPU busy this recently (a model's products come in a row)
MAX_STAMPS = 4096  # timestamps one timed submit may take (a query set's limit)
PRUNE = 1.5  # candidates slower than this x the fastest in the first round are not timed again
#: big tiles are a candidate only where they make want / BIG_FILL workgroups or more: on the
#: H200 they lost to small tiles by 1.8-2x on every MLP product timed (2-16 big tiles, want 256),
#: and their pipeline and runs took the most of a first call's timing
BIG_FILL = 4
#: seconds a launch costs besides its GPU time (which the timings hold): the host's, encoding
#: it into the step's commands each call (setPipeline + setBindGroup + dispatchWorkgroups: ~7-8 us
#: on the H200's Dawn, s34 host.md). A split's partial-sums pass is such a launch where the
#: unsplit routine would write the outputs itself; counted in full, since the MLP step's host
#: time (0.43 ms a call) exceeds its GPU time (0.30 ms): that is what a step then waits for
DISPATCH = 7.5e-6


def fold_bytes(want: int | None) -> int:
    """GemmCaps.fold_bytes of a GPU that `want` workgroups fill: the bytes a split product's
    readers may re-read to add its partial sums themselves (a launch less). It grows with the
    GPU: the H200's 256 give 32 MB, which its memory streams in ~7 us (4.8 TB/s), the host time
    of the launch it saves; the re-reads mostly hit its 60 MB L2."""
    return (want or 0) << 17


def heuristic(big: matmul.Tiling, want: int, b: int, m: int, n: int, k: int) -> tuple[int, int]:
    """(nr, splits) of a (b, m, n, k) product by rule of thumb: big tiles where they make `want`
    workgroups; else small ones, K split to make up (each split >= MIN_KC, <= MAX_SPLITS)."""
    if b * -(-m // big.BM) * -(-n // big.BN) >= want:
        return big.BN, 1
    tiles = b * -(-m // SMALL.BM) * -(-n // SMALL.BN)
    return SMALL.BN, max(1, min(-(-want // tiles), k // MIN_KC, MAX_SPLITS))


def key(spec: GemmSpec) -> tuple:
    """What a product's timing depends on: its shape, its operands' layout and alignment."""
    return (spec.B, spec.M, spec.N, spec.K, spec.a_si, spec.a_sk, spec.a_sb, spec.a_off % 4, spec.packed,
            spec.b_sk, spec.b_sb, spec.b_off % 4, spec.bi, spec.a_sbo, spec.b_sbo)


class Planner:
    """GemmCaps.plan of a hardware adapter whose GEMM tiling is `big`: (nr, splits) per product.

    mode "timed": a product whose big tiles make fewer than `want` workgroups gets the fastest
    of its candidates (`candidates`), timed on its own shape and layout the first time it is
    met (`time`); "heuristic": the rule of thumb, untimed. `pipeline(code)` compiles a shader
    (the backend's cached one: the winner's pipeline is the one its routine runs later)."""

    def __init__(self, rt: Any, big: matmul.Tiling, want: int, mode: str = "timed",
                 pipeline: Callable[[str], Any] | None = None,
                 pipelines: Callable[[list], list] | None = None):
        self.rt, self.big, self.want, self.mode = rt, big, want, mode
        self.pipeline = pipeline or rt.pipeline
        self.pipelines = pipelines or (lambda codes: [self.pipeline(c) for c in codes])
        self.chosen: dict[tuple, tuple[int, int]] = {}
        self.timings: dict[tuple, dict] = {}  # key(spec) -> {(nr, splits): seconds, partial sums' pass included}
        # what timing cost a model's first call (seconds): compiling candidates, warming the GPU, running them
        self.spent = {"products": 0, "compile": 0.0, "warm": 0.0, "run": 0.0}
        self._busy = -float("inf")  # perf_counter when the planner last had the GPU busy

    def __call__(self, spec: GemmSpec, after: int = 1) -> tuple[int, int]:
        """(nr, splits) of `spec`; `after`: the passes its routine needs after it unsplit (GemmCaps.plan)."""
        b, m, n, k = spec.B, spec.M, spec.N, spec.K
        guess = heuristic(self.big, self.want, b, m, n, k)
        if self.mode != "timed" or guess == (self.big.BN, 1):
            return guess
        kk = key(spec)
        if kk not in self.timings:
            try:
                times = self.time(spec, self.candidates(spec))
            except Exception:  # noqa: BLE001  (a failed timing must not break the schedule)
                times = {}
            self.spent["products"] += 1
            self.timings[kk] = times
        times = self.timings[kk]
        if (kk, after) not in self.chosen:  # a split adds its partial sums' pass where `after` is 0
            self.chosen[(kk, after)] = min(times, key=lambda c: times[c] + DISPATCH * (c[1] > 1 and not after)) \
                if times else guess
        return self.chosen[(kk, after)]

    def candidates(self, spec: GemmSpec) -> list[tuple[int, int]]:
        """Big tiles where they make at least want / BIG_FILL workgroups; small tiles unsplit;
        small tiles with K split 2, 4, 8, 16 ways and as the rule of thumb says, where each split
        keeps MIN_KC of K and the grid stays within 2 x `want` workgroups (distinct split counts
        only). The split ones share one pipeline (matmul: the count is read from the grid)."""
        b, m, n, k = spec.B, spec.M, spec.N, spec.K
        tiles = b * -(-m // SMALL.BM) * -(-n // SMALL.BN)
        big = b * -(-m // self.big.BM) * -(-n // self.big.BN) * BIG_FILL >= self.want
        out, counts = [(self.big.BN, 1)] * big + [(SMALL.BN, 1)], {1}
        for s in (2, 4, 8, 16, heuristic(self.big, self.want, b, m, n, k)[1]):
            c = split_k(k, s).get("splits", 1)
            if s <= min(k // MIN_KC, MAX_SPLITS) and c * tiles <= 2 * self.want and c not in counts:
                counts.add(c)
                out.append((SMALL.BN, s))
        return out

    def time(self, spec: GemmSpec, cands: list[tuple[int, int]]) -> dict:
        """{(nr, splits): seconds} of `spec` run as each candidate (best of ROUNDS interleaved runs
        of REPEATS dispatches), a split one plus the pass adding its partial sums.

        What a first call pays for this is kept small (`spent` says how much it was): the
        candidates' pipelines are compiled together (`pipelines`: concurrently where the host
        can), the GPU warmed only if the planner has not just had it busy, and the runs go in two
        timed submits, the slow candidates left out of the second (`_best`): two waits, not one
        per run and round."""
        t0 = time.perf_counter()
        specs = [dataclasses.replace(spec, nr=nr, packed=spec.packed or spec.N % nr != 0,
                                     **{"splits": 1, "kc": 0, **split_k(spec.K, s)}) for nr, s in cands]
        shaders = [_candidate_shader(c, self.big) for c in specs]
        out = 4 * spec.B * spec.M * specs[-1].N8
        n4 = out // 16
        counts = sorted({c.splits for c in specs if c.splits > 1})
        codes = list(dict.fromkeys([sh.code for sh in shaders] + [SUM_CODE] * bool(counts)))  # split ones share
        pipes = dict(zip(codes, self.pipelines(codes)))
        t1 = time.perf_counter()
        self.spent["compile"] += t1 - t0
        if t1 - self._busy > WARM_FRESH:
            warm(self.rt, WARM_BUDGET, self.pipeline)
        t2 = time.perf_counter()
        self.spent["warm"] += t2 - t1
        a_elems = spec.a_span + 3
        b_elems = max(c.b_span + (0 if c.packed else 4) for c in specs)
        sizes = [max(sh.out_nbytes[0] for sh in shaders), 4 * a_elems, 4 * b_elems, out]
        bufs = [self.rt.create_buffer(-(-n // 16) * 16) for n in sizes]
        sums: dict = {}  # split count -> the sums pass's uniform (n4, count)
        try:
            for c in counts:
                sums[c] = self.rt.create_uniform(array.array("I", (n4, c, 0, 0)).tobytes())
            runs, groups = [], []
            for c, sh in zip(specs, shaders):
                pipe = pipes[sh.code]
                groups.append([len(runs)])
                runs.append([("dispatch", pipe, self.rt.bind_group(pipe, bufs[:3]), *sh.grid)] * REPEATS)
                if c.splits > 1:
                    pipe = pipes[SUM_CODE]
                    groups[-1].append(len(runs))
                    group = self.rt.bind_group(pipe, [bufs[3], bufs[0], sums[c.splits]])
                    runs.append([("dispatch", pipe, group, min(-(-n4 // 256), SUM_GROUPS), 1, 1)] * REPEATS)
            best = _best(self.rt, runs, groups)
        finally:
            for buf in bufs + list(sums.values()):
                self.rt.destroy_buffer(buf)
            self._busy = time.perf_counter()
            self.spent["run"] += self._busy - t2
        times, i = {}, 0
        for cand, c in zip(cands, specs):
            times[cand] = best[i] + (best[i + 1] if c.splits > 1 else 0.0)
            i += 2 if c.splits > 1 else 1
        return {c: t / REPEATS for c, t in times.items()}


SUM_GROUPS = 65535  # workgroups of the timed partial sums' pass at most (a grid dimension's limit)
#: the timed pass adding `splits` partial C's of n4 vec4s each, as the scheduler's split-sum kernel
#: does (without its epilogue): (n4, splits) in a uniform, so one pipeline serves every product
SUM_CODE = """@group(0) @binding(0) var<storage, read_write> O: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> P: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> dims: vec4<u32>;  // (n4, splits)

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let n4 = dims.x;
  for (var i = g.x; i < n4; i += nwg.x * 256u) {
    var v = P[i];
    for (var s = 1u; s < dims.y; s++) { v += P[s * n4 + i]; }
    O[i] = v;
  }
}
"""


def _candidate_shader(spec: GemmSpec, big: matmul.Tiling) -> Any:
    """The shader timing candidate `spec`: small tiles unsplit run as the kernel its split
    counts share (matmul.split_from_grid) with one split, so that one pipeline times them all
    (its chosen routine, with an epilogue, is compiled anyway); else its own kernel."""
    tiling = tiling_for(spec, big)
    shader = matmul.build(spec, tiling)
    two = dataclasses.replace(spec, **split_k(spec.K, 2))
    if spec.splits == 1 and tiling == SMALL and two.splits > 1 and matmul.split_from_grid(two):
        return dataclasses.replace(matmul.build(two, tiling), grid=shader.grid, out_nbytes=shader.out_nbytes)
    return shader


def tiling_for(spec: GemmSpec, big: matmul.Tiling) -> matmul.Tiling:
    """The tiling a planned spec runs with (its strip width names it)."""
    return big if spec.nr == big.BN else SMALL


def _fits(t: matmul.Tiling, limits: dict) -> bool:
    shared = 4 * t.BK * (t.BM + t.BN)
    return (t.threads <= int(limits.get("maxComputeInvocationsPerWorkgroup", 256))
            and shared <= int(limits.get("maxComputeWorkgroupStorageSize", 16384)))


def _seconds(rt: Any, cmds: list) -> float:
    """Seconds `cmds` ran: GPU timestamps from the first dispatch's begin to the last one's end
    where the adapter has them, else wall-clock to the end of the submit."""
    if getattr(rt, "can_time", False):
        stamps = rt.submit_timed(cmds)
        if stamps:
            return (stamps[-1] - stamps[0]) * 1e-9
    t = time.perf_counter()
    rt.submit(cmds)
    rt.finish()
    return time.perf_counter() - t


def _best(rt: Any, runs: list, groups: list | None = None) -> list[float]:
    """The best seconds of each command list over ROUNDS interleaved runs (after a warm-up:
    first dispatches pay for driver work), every other round in reverse order, so that a clock
    still rising favours no candidate. Where the adapter has timestamps and the lists are all
    dispatches, they go in two timed submits (each run timed from the previous run's end to its
    last dispatch's end: every run writes C, so they run one after another): the warm-up pass and
    the first round of all, then the other rounds of the candidates (`groups`: a candidate's
    runs, default one each) within PRUNE of the fastest — a slow candidate's later rounds cannot
    make it win, and on few-tile products the big tiles' runs took most of a first call's timing
    (H200). Elsewhere one submit per run, every round of every run."""
    groups = groups or [[i] for i in range(len(runs))]
    every = list(range(len(runs)))
    first = _timed_pass(rt, runs, every + every)
    if first is not None:
        best = [float("inf")] * len(runs)
        for i, t in first[len(runs):]:
            best[i] = t
        fastest = min(sum(best[i] for i in g) for g in groups)
        kept = sorted(i for g in groups if sum(best[i] for i in g) <= PRUNE * fastest for i in g)
        order = []
        for r in range(1, ROUNDS):
            order += kept if r % 2 == 0 else kept[::-1]
        for i, t in (_timed_pass(rt, runs, order) or []) if order else []:
            best[i] = min(best[i], t)
        return best
    for cmds in runs:
        _seconds(rt, cmds)
    best = [float("inf")] * len(runs)
    for r in range(ROUNDS):
        for i in (range(len(runs)) if r % 2 == 0 else reversed(range(len(runs)))):
            best[i] = min(best[i], _seconds(rt, runs[i]))
    return best


def _timed_pass(rt: Any, runs: list, order: list) -> list | None:
    """[(run, seconds)] of `runs` in `order` in one timed submit, or None where that cannot be
    (no timestamps, commands other than dispatches, more than a query set holds)."""
    if not getattr(rt, "can_time", False) or 2 * sum(len(runs[i]) for i in order) > MAX_STAMPS \
            or not all(c[0] == "dispatch" for i in order for c in runs[i]):
        return None
    cmds, spans = [], []
    for i in order:
        spans.append((i, len(cmds), len(cmds) + len(runs[i])))
        cmds += runs[i]
    stamps = rt.submit_timed(cmds)
    if not stamps:
        return None
    return [(i, (stamps[2 * b - 1] - stamps[2 * a - 1 if a else 0]) * 1e-9) for i, a, b in spans]


WARM_N = 1024  # the warm-up's product: WARM_N^3 on big tiles, WARM_REPEATS of them per probe
WARM_REPEATS = 8
WARM_STEADY = 0.05  # three probes in a row within this of each other: the clocks are up


def warm(rt: Any, budget: float = 2.0, pipeline: Callable[[str], Any] | None = None) -> list[float]:
    """Keep the GPU busy until its clocks are up; the seconds of each probe. A GPU that has been
    idle (a page compiling its first program) runs at a fraction of its clock for a while (the
    H200 read 345 of 1980 MHz at rest), so timings taken then
    (the tuner's, the plan's, a benchmark's) are wrong. Probes of WARM_REPEATS WARM_N^3 GEMMs
    run until three in a row agree within WARM_STEADY, or `budget` seconds pass; a warm GPU
    costs a few probes (~6 ms on an H200). A device on which one tile of the probe takes over
    budget / 50, or one GEMM over budget / 4 / WARM_REPEATS (a CPU's), is not probed further."""
    if not getattr(rt, "can_time", False) or not _fits(matmul.HARDWARE, rt.info["limits"]):
        return []
    n = WARM_N
    spec = GemmSpec(M=n, N=n, K=n, a_off=0, a_si=n, a_sk=1, b_off=0, b_sk=n, packed=False, nr=matmul.HARDWARE.BN)
    shader = matmul.build(spec, matmul.HARDWARE)
    bufs = [rt.create_buffer(4 * n * n) for _ in range(3)]
    try:
        pipe = (pipeline or rt.pipeline)(shader.code)
        group = rt.bind_group(pipe, bufs)
        one = ("dispatch", pipe, group, *shader.grid)
        start = time.perf_counter()
        if _seconds(rt, [("dispatch", pipe, group, 1, 1, 1)]) > budget / 50:
            return []  # one tile took that long: a device this slow (a CPU's) has no clocks to wait for
        times = [_seconds(rt, [one])]
        if times[0] * WARM_REPEATS > budget / 4:
            return times  # ... nor one whose probe would take that long
        while time.perf_counter() - start < budget:
            times.append(_seconds(rt, [one] * WARM_REPEATS) / WARM_REPEATS)
            last = times[-3:]
            if len(times) > 3 and max(last) <= (1 + WARM_STEADY) * min(last):
                break
        return times
    finally:
        for b in bufs:
            rt.destroy_buffer(b)


def tune(rt: Any, candidates: tuple = CANDIDATES, n: int | None = None) -> tuple[matmul.Tiling, dict]:
    """(the fastest tiling, {tiling: best seconds}) for an n^3 float32 product on `rt`."""
    n = n or SIZE
    fitting = [t for t in candidates if _fits(t, rt.info["limits"])]
    if len(fitting) < 2:
        return (fitting or [matmul.SOFTWARE])[0], {}
    specs = [(t, GemmSpec(M=n, N=n, K=n, a_off=0, a_si=n, a_sk=1, b_off=0, b_sk=n, packed=False, nr=t.BN))
             for t in fitting]
    times = dict(zip(fitting, _time(rt, specs, [4 * n * n] * 3)))  # C, A, B: their values do not matter
    return min(times, key=times.get), times


def _time(rt: Any, specs: list, sizes: list) -> list[float]:
    """The best seconds of each (tiling, spec)'s GEMM kernel over ROUNDS interleaved runs (after
    a warm-up: first dispatches pay for driver work), on buffers of `sizes` bytes (C, A, B)."""
    bufs = [rt.create_buffer(n) for n in sizes]
    try:
        runs = []
        for t, spec in specs:
            shader = matmul.build(spec, t)
            pipe = rt.pipeline(shader.code)
            runs.append([("dispatch", pipe, rt.bind_group(pipe, bufs), *shader.grid)])
        return _best(rt, runs)
    finally:
        for b in bufs:
            rt.destroy_buffer(b)


def tune_splits(rt: Any, m: int | None = None, k: int | None = None) -> tuple[int, dict]:
    """(want, {splits: best seconds}): the workgroups an m x m x k product ran fastest with,
    split over K into SPLITS counts on SMALL tiles (the partial sums' addition not timed)."""
    if not _fits(SMALL, rt.info["limits"]):
        return WANT, {}
    m, k = m or SPLIT_M, k or SPLIT_K
    tiles = -(-m // SMALL.BM) * -(-m // SMALL.BN)
    counts = [c for c in SPLITS if c == 1 or split_k(k, c, 32).get("splits") == c]
    specs = [(SMALL, GemmSpec(M=m, N=m, K=k, a_off=0, a_si=k, a_sk=1, b_off=0, b_sk=m, packed=False,
                              nr=SMALL.BN, **split_k(k, c, 32))) for c in counts]
    times = dict(zip(counts, _time(rt, specs, [4 * m * m * max(counts), 4 * m * k, 4 * k * m])))
    return tiles * min(times, key=times.get), times
