"""A small WebAssembly binary assembler: enough to emit kernel modules.

`Module` collects function types, one imported memory, functions and exports and
serializes the binary format. `Func` is an instruction builder: `f.emit("f32.add")`,
`f.i32(5)`, memory ops with `f.mem("f32.load", offset)`, structured control flow
with `block/loop/if_/end`, and typed locals via `f.local(valtype)`. Opcode
encodings live in `opcodes.py` as tables; this module only knows the grammar.
We write our own because kernels are generated from Python in the browser too
(Pyodide), where no toolchain exists.
"""
from __future__ import annotations

import struct

from . import opcodes as O

I32, I64, F32, F64, V128 = 0x7F, 0x7E, 0x7D, 0x7C, 0x7B
VALTYPE = {"i32": I32, "i64": I64, "f32": F32, "f64": F64, "v128": V128}
EMPTY_BLOCK = 0x40


def uleb(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sleb(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if (n == 0 and not b & 0x40) or (n == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def name(s: str) -> bytes:
    raw = s.encode()
    return uleb(len(raw)) + raw


def vec(items: list[bytes]) -> bytes:
    return uleb(len(items)) + b"".join(items)


class Func:
    """One function body under construction. Params are locals 0..n-1."""

    def __init__(self, params: list[str], results: list[str] = ()):
        self.params, self.results = list(params), list(results)
        self._locals: list[str] = []
        self.code = bytearray()
        self.depth = 0

    # -- locals
    def local(self, valtype: str) -> int:
        self._locals.append(valtype)
        return len(self.params) + len(self._locals) - 1

    # -- instructions
    def emit(self, op: str) -> "Func":
        code = self.code
        if op in O.NUMERIC:
            code.append(O.NUMERIC[op])
        elif op in O.SIMD:
            code.append(0xFD)
            code += uleb(O.SIMD[op])
        elif op in O.PREFIX_FC:
            code.append(0xFC)
            code += uleb(O.PREFIX_FC[op])
            if op == "memory.copy":
                code += b"\x00\x00"
            elif op == "memory.fill":
                code.append(0)
        elif op in ("drop", "select", "return", "nop", "unreachable"):
            code.append(O.CONTROL[op])
        else:
            raise KeyError(f"unknown or immediate-taking instruction {op!r}")
        return self

    def ops(self, *names: str) -> "Func":
        for n in names:
            self.emit(n)
        return self

    def get(self, i: int) -> "Func":
        self.code.append(0x20)
        self.code += uleb(i)
        return self

    def set(self, i: int) -> "Func":
        self.code.append(0x21)
        self.code += uleb(i)
        return self

    def tee(self, i: int) -> "Func":
        self.code.append(0x22)
        self.code += uleb(i)
        return self

    def i32(self, v: int) -> "Func":
        v = (v + (1 << 31)) % (1 << 32) - (1 << 31)
        self.code.append(0x41)
        self.code += sleb(v)
        return self

    def i64(self, v: int) -> "Func":
        v = (v + (1 << 63)) % (1 << 64) - (1 << 63)
        self.code.append(0x42)
        self.code += sleb(v)
        return self

    def f32(self, v: float) -> "Func":
        self.code.append(0x43)
        self.code += struct.pack("<f", v)
        return self

    def f32_bits(self, bits: int) -> "Func":
        self.code.append(0x43)
        self.code += struct.pack("<I", bits & 0xFFFFFFFF)
        return self

    def f64(self, v: float) -> "Func":
        self.code.append(0x44)
        self.code += struct.pack("<d", v)
        return self

    def v128_const(self, raw: bytes) -> "Func":
        assert len(raw) == 16
        self.code += b"\xfd" + uleb(12) + raw
        return self

    def mem(self, op: str, offset: int = 0, align: int | None = None) -> "Func":
        if op in O.MEMORY:
            opc, nat = O.MEMORY[op]
            self.code.append(opc)
        else:
            opc, nat = O.SIMD_MEMORY[op]
            self.code.append(0xFD)
            self.code += uleb(opc)
        self.code += uleb(nat if align is None else align) + uleb(offset)
        return self

    def lane(self, op: str, lane: int) -> "Func":
        self.code += b"\xfd" + uleb(O.SIMD_LANE[op]) + bytes([lane])
        return self

    def call(self, index: int) -> "Func":
        self.code.append(0x10)
        self.code += uleb(index)
        return self

    # -- structured control flow
    def _open(self, opc: int, result: str | None) -> "Func":
        self.code.append(opc)
        self.code.append(VALTYPE[result] if result else EMPTY_BLOCK)
        self.depth += 1
        return self

    def block(self, result: str | None = None) -> "Func":
        return self._open(0x02, result)

    def loop(self, result: str | None = None) -> "Func":
        return self._open(0x03, result)

    def if_(self, result: str | None = None) -> "Func":
        return self._open(0x04, result)

    def else_(self) -> "Func":
        self.code.append(0x05)
        return self

    def end(self) -> "Func":
        self.code.append(0x0B)
        self.depth -= 1
        return self

    def br(self, depth: int) -> "Func":
        self.code.append(0x0C)
        self.code += uleb(depth)
        return self

    def br_if(self, depth: int) -> "Func":
        self.code.append(0x0D)
        self.code += uleb(depth)
        return self

    # -- encoding
    def type_sig(self) -> tuple:
        return tuple(self.params), tuple(self.results)

    def body(self) -> bytes:
        assert self.depth == 0, "unbalanced blocks"
        groups: list[list] = []
        for t in self._locals:  # run-length encode local declarations
            if groups and groups[-1][1] == t:
                groups[-1][0] += 1
            else:
                groups.append([1, t])
        decl = vec([uleb(n) + bytes([VALTYPE[t]]) for n, t in groups])
        raw = decl + bytes(self.code) + b"\x0b"
        return uleb(len(raw)) + raw


class Module:
    """Functions plus an imported memory `env.memory`; exports by name."""

    def __init__(self, memory_pages: int = 1, shared: bool = False, max_pages: int | None = None):
        self.memory_pages, self.shared, self.max_pages = memory_pages, shared, max_pages
        self.funcs: list[Func] = []
        self.exports: list[tuple[str, int]] = []

    def add(self, f: Func, export: str | None = None) -> int:
        self.funcs.append(f)
        i = len(self.funcs) - 1
        if export:
            self.exports.append((export, i))
        return i

    def encode(self) -> bytes:
        types: list[tuple] = []
        for f in self.funcs:
            if f.type_sig() not in types:
                types.append(f.type_sig())
        type_sec = vec([b"\x60" + vec([bytes([VALTYPE[p]]) for p in ps]) + vec([bytes([VALTYPE[r]]) for r in rs])
                        for ps, rs in types])
        if self.shared or self.max_pages is not None:
            mx = self.max_pages if self.max_pages is not None else 65536
            limits = bytes([0x03 if self.shared else 0x01]) + uleb(self.memory_pages) + uleb(mx)
        else:
            limits = b"\x00" + uleb(self.memory_pages)
        import_sec = vec([name("env") + name("memory") + b"\x02" + limits])
        func_sec = vec([uleb(types.index(f.type_sig())) for f in self.funcs])
        export_sec = vec([name(n) + b"\x00" + uleb(i) for n, i in self.exports])
        code_sec = vec([f.body() for f in self.funcs])
        out = bytearray(b"\x00asm\x01\x00\x00\x00")
        for sid, payload in ((1, type_sec), (2, import_sec), (3, func_sec), (7, export_sec), (10, code_sec)):
            out.append(sid)
            out += uleb(len(payload)) + payload
        return bytes(out)
