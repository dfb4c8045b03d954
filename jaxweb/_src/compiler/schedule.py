"""The scheduler: a lazy graph's outputs -> kernels -> a straight-line program.

`schedule(outputs, capabilities)` decides which nodes become buffers ("realized")
and cuts the rest into kernels, by analysis of the graph:

- program outputs are realized, except views of memory and constants (free) and
  broadcasts of computed values (the value is realized, the output is its view);
- a reduction that several kernels would compute (or one kernel at several
  indices) is realized: never recompute a reduction per consumer; so is one read
  inside another reduction's loop at an index that moves with that loop, or one
  computed more often than it has elements (broadcast along an outer axis):
  `lower.KernelLowering` finds those, and the scheduler retries; so is, where the backend
  asks (`Capabilities.share_transcendentals`), a large transcendental value that a reduction
  sums and the kernels compute at more than one index (a softmax's exp); so is part of a
  kernel past the backend's size cap (`kernel_size`: a shader compiler that slows down
  steeply with length) or binding limit;
- everything else fuses: elementwise chains into one kernel, elementwise producers
  into a reduction's body, consumers into its epilogue (`relu(x @ W + b)` is one
  kernel), a row reduction into the elementwise kernel that uses it per row (on a
  backend without nested reductions only a short one: `Capabilities.inline_reduce`).

Realizing is decided pass by pass and never undone within the passes, so a reduction made
a buffer early (while what reads it was still fused into several kernels) can end up read
by one elementwise kernel alone: once the passes settle, one trial without such reductions
(`_demotable`) is kept if it has fewer kernels.

Realized nodes of one shape that feed each other or read the same inputs share one
multi-output kernel (an Adam update: m, v and the parameter in one loop). Kernels
run in dependency order; a matrix multiply becomes staging kernels around the
backend's GEMM routine where it has one (`gemm.py`; a K-split product's sums pass folded
into the kernels reading it where the backend allows: `fold.py`); `memory.plan` then frees each
buffer after its last use and reuses freed memory. The result is a `Schedule` of Alloc / Run / Free steps
over schedule-local buffer ids: inputs first (the graph's buffer leaves), then the
buffers the program allocates.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from .graph import Node, call_outputs, is_realized, toposort, whole_buffer
from .kernel import DEFAULT_CAPS, Capabilities, Kernel, Schedule
from .lower import KernelLowering, inline_fits
from . import complex_pairs, conv, fold, gemm, kernel_size, memory, params
from . import expr as E
from .cost import TRANSCENDENTAL


def _home(o: Node, materialize: bool) -> Node | None:
    """The node to realize for output `o` (None when `o` needs no kernel)."""
    if materialize:
        return o
    if is_realized(o):
        return None
    if o.op == "view" and o.size > o.src[0].size and not is_realized(o.src[0]):
        return o.src[0]  # a broadcast: keep the small value, the output is its view
    return o


def schedule(outputs: Sequence[Node], caps: Capabilities = DEFAULT_CAPS,
             materialize: bool = False, effects: Sequence[Node] = (), lift: bool = False) -> Schedule:
    """The program computing `outputs` (with `materialize`, each into a new contiguous buffer)
    and running the host steps `effects` (callbacks nothing reads) in their order. With
    `lift` (eager flushes), runtime scalars become parameters (`params.lift`)."""
    order = toposort(list(outputs) + list(effects))
    kinds: dict = {}
    if complex_pairs.needs_legalizing(order):  # complex nodes become pairs of real ones
        outputs, effects, kinds = complex_pairs.legalize(outputs, effects)
        order = toposort(list(outputs) + list(effects))
    lifted = params.lift(order) if lift else None
    realized: set[int] = set()
    for o in outputs:
        h = _home(o, materialize)
        if h is not None:
            realized.add(id(h))
    for n in order:  # control flow: buffers in, buffers out
        if n.op in ("call", "output") or (n.op == "fn" and n.arg.buffered):
            realized.add(id(n))
        if n.op == "call":
            realized.update(id(s) for s in n.src if _call_arg(s) is s and s.op != "buffer")
    shareable = _shareable_transcendentals(order) if caps.share_transcendentals else set()
    alone: set[int] = set()
    lowered: dict[tuple, tuple] = {}  # members -> (KernelLowering, kernel, nodes it touched or reads)
    pinned = set(realized)
    kernels = _fixpoint(order, realized, alone, lowered, caps, lifted, shareable)
    demoted = _demotable(kernels, pinned | alone, caps)
    if demoted:  # one trial without them: kept if it has fewer kernels
        trial = _fixpoint(order, realized - demoted, set(alone), {key: hit for key, hit in lowered.items()
                          if not hit[2] & demoted}, caps, lifted, shareable)
        if len(trial) < len(kernels):
            kernels = trial
    launches = []
    for k, members, ins in kernels:
        expanded = None
        if caps.gemm is not None and isinstance(k, Kernel):
            expanded = gemm.expand(k, ins, members, caps.gemm) or conv.expand(k, ins, members, caps.gemm)
        launches.extend(expanded if expanded is not None else [(k, members, ins)])
    if caps.gemm is not None:
        launches = fold.split_sums(launches, outputs, caps.gemm.fold_bytes, caps.max_buffers)
    sched = memory.plan(launches, outputs, [k for k, _, _ in kernels])
    sched.complex_outputs = kinds
    return sched


def _fixpoint(order: list[Node], realized: set[int], alone: set[int], lowered: dict, caps: Capabilities,
              lifted, shareable: set[int]) -> list[tuple]:
    """The kernels, (kernel, members, inputs) in dependency order, once no lowering asks for more
    buffers: `realized` (the nodes computed into buffers) and `alone` (those in kernels of their
    own) grow until then; `lowered` caches the lowerings of member lists."""
    while True:
        groups = _groups(order, realized, alone if caps.multi_output else realized, caps.max_buffers)
        kernels, more, split = [], set(), set()
        for members in groups:
            if members[0].op == "call":
                kernels.append(_call_launch(members[0], caps))
                continue
            key = tuple(map(id, members))
            hit = lowered.get(key)
            if hit is None:
                kl = KernelLowering(members[0].shape, members, realized, caps.nested_reduce, lifted,
                                    caps.inline_reduce)
                k = kl.build()
                hit = lowered[key] = (kl, k, {m[0] for m in kl.memo} | {id(n) for n in kl.inputs})
            kl, k, _ = hit
            if k is None:
                more.update(id(n) for n in kl.realize)
                split.update(id(n) for n in kl.split)
            elif caps.max_buffers is not None and len(kl.inputs) + len(members) > caps.max_buffers:
                # the parameter blocks of lifted scalars are bindings the graph does not show
                blocks = sum(n.op == "buffer" and isinstance(n.arg, params.ParamBlock) for n in kl.inputs)
                more |= _binding_cuts(members, realized, caps.max_buffers - blocks)
            elif (cut := _size_cut(kl, k, caps)) is not None:
                more.add(cut)
                split.add(cut)  # a kernel of its own: grouping would fuse it back
            else:
                kernels.append((k, members, kl.inputs))
        lowerings = [lowered[tuple(map(id, m))][0] for m in groups if m[0].op != "call"]
        more |= _recomputed_reductions(lowerings)
        if shareable:
            more |= _shared_transcendentals(lowerings, shareable)
        more -= realized
        if not more and not split - alone:
            if len(kernels) != len(groups):  # a kernel that cannot be built as asked: a compiler bug
                failed = [m for m in groups if not any(k[1] is m for k in kernels)]
                raise AssertionError(f"scheduler: cannot build kernel {failed[0][0].tag} "
                                     f"({[n.op for n in failed[0]]})")
            break
        realized |= more
        alone |= split
        for key in [key for key, hit in lowered.items() if hit[2] & more]:
            del lowered[key]  # in place: the caller's trial reuses what stays valid
    return kernels


def _demotable(kernels: list[tuple], pinned: set[int], caps: Capabilities) -> set[int]:
    """Reductions in kernels of their own that one elementwise kernel alone reads, per its own
    output element (as a nested reduction it would compute, `inline_reduce` permitting): those
    made buffers in an earlier pass only because what reads them was then fused elsewhere (a
    softmax gradient's row sum of the labels' one-hot, realized while that gradient was still
    fused into every product reading it). `schedule` tries once without them."""
    if not caps.nested_reduce and not caps.inline_reduce:
        return set()
    own: dict[int, Node] = {}  # id(reduction) -> itself, where it is its kernel's one member
    readers: dict[int, list] = {}  # id(node) -> [(reading kernel, slot)]
    for k, members, ins in kernels:
        if len(members) == 1 and members[0].op == "reduce" and id(members[0]) not in pinned:
            own[id(members[0])] = members[0]
        for slot, n in enumerate(ins):
            readers.setdefault(id(n), []).append((k, slot))
    out = set()
    for nid, r in own.items():
        reads = readers.get(nid, [])
        if len(reads) != 1 or not isinstance(reads[0][0], Kernel) or reads[0][0].reduce_op is not None:
            continue
        k, slot = reads[0]
        extent = r.src[0].size // max(r.size, 1)
        if not caps.nested_reduce and not inline_fits(extent, k.size, r.size, caps.inline_reduce):
            continue
        loads = [e for e in E.walk_all(k.outs) if e.op == "load" and e.arg == slot]
        free = E.free_indices([e.src[0] for e in loads])
        if all(name.startswith("g") for e in loads for name in free[id(e.src[0])]):
            out.add(nid)
    return out


def _size_cut(kl: KernelLowering, k: Kernel, caps: Capabilities) -> int | None:
    """A fused node to realize so that kernel `k` fits the backend's size cap (None: it fits)."""
    cap = caps.max_kernel_nodes
    if cap is None or kernel_size.kernel_nodes(k, caps.node_weights) <= cap:
        return None
    return kernel_size.size_cut(kl, cap, caps.node_weights)


def _call_arg(s: Node) -> Node:
    """What a control-flow step reads for operand `s`: a buffer that holds it as is (a
    contiguous view of all of it), or `s` itself (then realized into a buffer of its own)."""
    return whole_buffer(s) or s


def _call_launch(call: Node, caps: Capabilities) -> tuple:
    """(the Call with its sub-programs scheduled, its result nodes, its operand values);
    a "routine" call (`linalg_routines`) runs its backend Routine on those buffers."""
    program = call.arg
    if program.kind == "routine":
        return program.params["routine"], call_outputs(call), [_call_arg(s) for s in call.src]
    if not program.schedules:
        program.schedules = [schedule(outs, caps, materialize=True, effects=eff)
                             for outs, eff in zip(program.graphs, program.effects)]
    return program, call_outputs(call), [_call_arg(s) for s in call.src]


def _recomputed_reductions(lowerings) -> set[int]:
    """Reductions whose value more than one kernel (or one kernel at several indices)
    computes: they become buffers of their own, computed once."""
    return _repeated(id(node) for kl in lowerings for node in kl.reduces.values())


#: the fewest elements of a shared transcendental value worth a kernel of its own (below, the
#: launch and the round trip cost more than computing it again: an MLP's 10-class log-softmax)
SHARED_MIN_SIZE = 1 << 16


def _shareable_transcendentals(order: Sequence[Node]) -> set[int]:
    """Transcendental values of SHARED_MIN_SIZE elements or more that a reduction reads (the
    exp of attention's softmax, in its row sum): found once per schedule, the graph is fixed."""
    summed = {id(s) for n in order if n.op == "reduce" for s in n.src}
    return {id(n) for n in order if n.op in TRANSCENDENTAL and id(n) in summed and n.dtype.kind == "f"
            and n.size >= SHARED_MIN_SIZE}


def _shared_transcendentals(lowerings, wanted: set[int]) -> set[int]:
    """Those of the values `wanted` (`_shareable_transcendentals`) that the kernels compute at
    more than one index (attention's exp: in its row sum and in the division, one kernel or two)."""
    # kl.memo has a key per index a kernel computes a value at: (the value's id, the index)
    return _repeated(key[0] for kl in lowerings for key in kl.memo if key[0] in wanted)


def _repeated(ids) -> set[int]:
    """The ids that occur more than once in `ids`."""
    return {n for n, count in Counter(ids).items() if count > 1}


def _binding_cuts(members: Sequence[Node], realized: set[int], limit: int) -> set[int]:
    """Fused nodes to compute in kernels of their own so that a kernel reading too many
    buffers fits the backend's limit: greedily the one replacing the most buffers (and
    fitting the limit itself), until the kernel fits."""
    cut = set(realized)
    chosen: set[int] = set()
    while True:
        memo: dict[int, frozenset] = {}
        reads = set()
        for m in members:
            reads |= _reads(m, cut, memo)
        if len(reads) + len(members) <= limit:
            return chosen
        best, best_n = None, 1
        stack, seen = [s for m in members for s in m.src], set()
        while stack:  # the kernel's fused nodes: stop at what it reads from memory
            n = stack.pop()
            if id(n) in seen or id(n) in cut or n.op in ("buffer", "const"):
                continue
            seen.add(id(n))
            stack.extend(n.src)
            k = len(_reads(n, cut, memo))
            if best_n < k < limit:
                best, best_n = n, k
        if best is None:
            raise ValueError(f"kernel {_kernel_name(members)} reads more buffers than the backend binds "
                             f"({limit}) and cannot be split")
        cut.add(id(best))
        chosen.add(id(best))


def _kernel_name(members: Sequence[Node]) -> str:
    names = []
    for m in members:
        if m.tag not in names:
            names.append(m.tag)
    return "_".join(names)[:60] or "kernel"


def _reads(n: Node, realized: set[int], memo: dict[int, frozenset]) -> frozenset:
    """Realized nodes (and buffers) that computing `n` in a kernel reads."""
    out = memo.get(id(n))
    if out is not None:
        return out
    stack = [(n, False)]
    while stack:  # post-order over the fused region under n
        m, done = stack.pop()
        if id(m) in memo:
            continue
        if not done:
            stack.append((m, True))
            stack.extend((s, False) for s in m.src
                         if id(s) not in memo and id(s) not in realized and s.op != "buffer")
            continue
        acc: set[int] = set()
        for s in m.src:
            if id(s) in realized or s.op == "buffer":
                acc.add(id(s))
            else:
                acc |= memo[id(s)]
        memo[id(m)] = frozenset(acc)
    return memo[id(n)]


def _groups(order: list[Node], realized: set[int], alone: set[int], limit: int | None) -> list[list[Node]]:
    """Realized computed nodes, partitioned into kernels, in dependency order.

    A node joins an earlier kernel of its shape when it reads one of that kernel's
    outputs (it then uses the value in-loop), or when neither holds a reduction and
    they read a common input; never when that would make two kernels wait for each other,
    nor past the backend's binding limit."""
    memo: dict[int, frozenset] = {}
    group_of: dict[int, int] = {}
    groups: list[list[Node]] = []
    needs: list[set[int]] = []       # group -> groups it reads directly
    inputs: list[set[int]] = []      # group -> realized nodes / buffers its members read
    for n in order:
        if id(n) not in realized or n.op == "buffer":
            continue
        if n.op == "output":  # written by its call's step
            group_of[id(n)] = group_of[id(n.src[0])]
            continue
        reads = _reads(n, realized, memo)
        direct = {group_of[r] for r in reads if r in group_of}
        chosen = None
        if id(n) not in alone and n.op != "call":
            for gi in range(len(groups) - 1, -1, -1):
                g = groups[gi]
                if id(g[0]) in alone or g[0].shape != n.shape or g[0].op == "call":
                    continue
                related = gi in direct or (
                    reads & inputs[gi] and n.op != "reduce" and not any(m.op == "reduce" for m in g))
                if limit is not None and len(inputs[gi] | reads) + len(g) + 1 > limit:
                    continue
                if related and not _reaches(needs, direct - {gi}, gi):
                    chosen = gi
                    break
        if chosen is None:
            chosen = len(groups)
            groups.append([])
            needs.append(set())
            inputs.append(set())
        group_of[id(n)] = chosen
        groups[chosen].append(n)
        needs[chosen] |= direct - {chosen}
        inputs[chosen] |= reads
    return _topological(groups, needs)


def _reaches(needs: list[set[int]], start: set[int], target: int) -> bool:
    """Whether any kernel in `start` (transitively) reads kernel `target`."""
    stack, seen = list(start), set()
    while stack:
        g = stack.pop()
        if g == target:
            return True
        if g not in seen:
            seen.add(g)
            stack.extend(needs[g])
    return False


def _topological(groups: list[list[Node]], needs: list[set[int]]) -> list[list[Node]]:
    """Groups ordered so that every kernel runs after the kernels it reads."""
    done: set[int] = set()
    out = []
    pending = list(range(len(groups)))
    while pending:
        ready = [g for g in pending if needs[g] <= done]
        assert ready, "scheduler: cyclic kernel dependencies"
        for g in ready:
            out.append(groups[g])
            done.add(g)
        pending = [g for g in pending if g not in done]
    return out
