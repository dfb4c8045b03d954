"""Wasm opcode tables (name -> encoding), as data.

Plain opcodes are one byte; the 0xFC (saturating truncation, bulk memory) and
0xFD (SIMD128, relaxed SIMD) families are a prefix byte plus a LEB128 number. The
assembler looks names up here, so adding an instruction is one table entry.
"""
from __future__ import annotations

CONTROL = {
    "unreachable": 0x00, "nop": 0x01, "block": 0x02, "loop": 0x03, "if": 0x04,
    "else": 0x05, "end": 0x0B, "br": 0x0C, "br_if": 0x0D, "return": 0x0F,
    "call": 0x10, "drop": 0x1A, "select": 0x1B,
    "local.get": 0x20, "local.set": 0x21, "local.tee": 0x22,
    "memory.size": 0x3F, "memory.grow": 0x40,
    "i32.const": 0x41, "i64.const": 0x42, "f32.const": 0x43, "f64.const": 0x44,
}

MEMORY = {  # name -> (opcode, natural alignment log2)
    "i32.load": (0x28, 2), "i64.load": (0x29, 3), "f32.load": (0x2A, 2), "f64.load": (0x2B, 3),
    "i32.load8_s": (0x2C, 0), "i32.load8_u": (0x2D, 0), "i32.load16_s": (0x2E, 1),
    "i32.load16_u": (0x2F, 1), "i64.load8_s": (0x30, 0), "i64.load8_u": (0x31, 0),
    "i64.load16_s": (0x32, 1), "i64.load16_u": (0x33, 1), "i64.load32_s": (0x34, 2),
    "i64.load32_u": (0x35, 2), "i32.store": (0x36, 2), "i64.store": (0x37, 3),
    "f32.store": (0x38, 2), "f64.store": (0x39, 3), "i32.store8": (0x3A, 0),
    "i32.store16": (0x3B, 1), "i64.store8": (0x3C, 0), "i64.store16": (0x3D, 1),
    "i64.store32": (0x3E, 2),
}

_NUMERIC_NAMES = """
i32.eqz i32.eq i32.ne i32.lt_s i32.lt_u i32.gt_s i32.gt_u i32.le_s i32.le_u i32.ge_s i32.ge_u
i64.eqz i64.eq i64.ne i64.lt_s i64.lt_u i64.gt_s i64.gt_u i64.le_s i64.le_u i64.ge_s i64.ge_u
f32.eq f32.ne f32.lt f32.gt f32.le f32.ge
f64.eq f64.ne f64.lt f64.gt f64.le f64.ge
i32.clz i32.ctz i32.popcnt i32.add i32.sub i32.mul i32.div_s i32.div_u i32.rem_s i32.rem_u
i32.and i32.or i32.xor i32.shl i32.shr_s i32.shr_u i32.rotl i32.rotr
i64.clz i64.ctz i64.popcnt i64.add i64.sub i64.mul i64.div_s i64.div_u i64.rem_s i64.rem_u
i64.and i64.or i64.xor i64.shl i64.shr_s i64.shr_u i64.rotl i64.rotr
f32.abs f32.neg f32.ceil f32.floor f32.trunc f32.nearest f32.sqrt f32.add f32.sub f32.mul
f32.div f32.min f32.max f32.copysign
f64.abs f64.neg f64.ceil f64.floor f64.trunc f64.nearest f64.sqrt f64.add f64.sub f64.mul
f64.div f64.min f64.max f64.copysign
i32.wrap_i64 i32.trunc_f32_s i32.trunc_f32_u i32.trunc_f64_s i32.trunc_f64_u
i64.extend_i32_s i64.extend_i32_u i64.trunc_f32_s i64.trunc_f32_u i64.trunc_f64_s i64.trunc_f64_u
f32.convert_i32_s f32.convert_i32_u f32.convert_i64_s f32.convert_i64_u f32.demote_f64
f64.convert_i32_s f64.convert_i32_u f64.convert_i64_s f64.convert_i64_u f64.promote_f32
i32.reinterpret_f32 i64.reinterpret_f64 f32.reinterpret_i32 f64.reinterpret_i64
i32.extend8_s i32.extend16_s i64.extend8_s i64.extend16_s i64.extend32_s
""".split()
NUMERIC = {name: 0x45 + i for i, name in enumerate(_NUMERIC_NAMES)}

PREFIX_FC = {
    "i32.trunc_sat_f32_s": 0, "i32.trunc_sat_f32_u": 1, "i32.trunc_sat_f64_s": 2,
    "i32.trunc_sat_f64_u": 3, "i64.trunc_sat_f32_s": 4, "i64.trunc_sat_f32_u": 5,
    "i64.trunc_sat_f64_s": 6, "i64.trunc_sat_f64_u": 7, "memory.copy": 10, "memory.fill": 11,
}

SIMD_MEMORY = {  # name -> (0xFD opcode, natural alignment log2)
    "v128.load": (0, 4), "v128.load8_splat": (7, 0), "v128.load16_splat": (8, 1),
    "v128.load32_splat": (9, 2), "v128.load64_splat": (10, 3), "v128.store": (11, 4),
    "v128.load32_zero": (92, 2), "v128.load64_zero": (93, 3),
}

SIMD_LANE = {  # lane-index immediates
    "i8x16.extract_lane_s": 21, "i8x16.extract_lane_u": 22, "i8x16.replace_lane": 23,
    "i16x8.extract_lane_s": 24, "i16x8.extract_lane_u": 25, "i16x8.replace_lane": 26,
    "i32x4.extract_lane": 27, "i32x4.replace_lane": 28, "i64x2.extract_lane": 29,
    "i64x2.replace_lane": 30, "f32x4.extract_lane": 31, "f32x4.replace_lane": 32,
    "f64x2.extract_lane": 33, "f64x2.replace_lane": 34,
}

SIMD = {
    "i8x16.splat": 15, "i16x8.splat": 16, "i32x4.splat": 17, "i64x2.splat": 18,
    "f32x4.splat": 19, "f64x2.splat": 20,
    "i32x4.eq": 55, "i32x4.ne": 56, "i32x4.lt_s": 57, "i32x4.lt_u": 58, "i32x4.gt_s": 59,
    "i32x4.gt_u": 60, "i32x4.le_s": 61, "i32x4.le_u": 62, "i32x4.ge_s": 63, "i32x4.ge_u": 64,
    "f32x4.eq": 65, "f32x4.ne": 66, "f32x4.lt": 67, "f32x4.gt": 68, "f32x4.le": 69, "f32x4.ge": 70,
    "f64x2.eq": 71, "f64x2.ne": 72, "f64x2.lt": 73, "f64x2.gt": 74, "f64x2.le": 75, "f64x2.ge": 76,
    "v128.not": 77, "v128.and": 78, "v128.andnot": 79, "v128.or": 80, "v128.xor": 81,
    "v128.bitselect": 82, "v128.any_true": 83,
    "f32x4.demote_f64x2_zero": 94, "f64x2.promote_low_f32x4": 95,
    "f32x4.ceil": 103, "f32x4.floor": 104, "f32x4.trunc": 105, "f32x4.nearest": 106,
    "i32x4.abs": 160, "i32x4.neg": 161, "i32x4.all_true": 163, "i32x4.bitmask": 164,
    "i32x4.shl": 171, "i32x4.shr_s": 172, "i32x4.shr_u": 173, "i32x4.add": 174,
    "i32x4.sub": 177, "i32x4.mul": 181, "i32x4.min_s": 182, "i32x4.min_u": 183,
    "i32x4.max_s": 184, "i32x4.max_u": 185,
    "f32x4.abs": 224, "f32x4.neg": 225, "f32x4.sqrt": 227, "f32x4.add": 228, "f32x4.sub": 229,
    "f32x4.mul": 230, "f32x4.div": 231, "f32x4.min": 232, "f32x4.max": 233,
    "f32x4.pmin": 234, "f32x4.pmax": 235,
    "f64x2.abs": 236, "f64x2.neg": 237, "f64x2.sqrt": 239, "f64x2.add": 240, "f64x2.sub": 241,
    "f64x2.mul": 242, "f64x2.div": 243, "f64x2.min": 244, "f64x2.max": 245,
    "i32x4.trunc_sat_f32x4_s": 248, "i32x4.trunc_sat_f32x4_u": 249,
    "f32x4.convert_i32x4_s": 250, "f32x4.convert_i32x4_u": 251,
    # relaxed SIMD
    "f32x4.relaxed_madd": 0x105, "f32x4.relaxed_nmadd": 0x106,
    "f64x2.relaxed_madd": 0x107, "f64x2.relaxed_nmadd": 0x108,
    "f32x4.relaxed_min": 0x10D, "f32x4.relaxed_max": 0x10E,
}
