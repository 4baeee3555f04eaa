import { describe, expect, it } from 'vitest';
import { capWasmMemory } from './wasm-memory-cap.js';

const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
/** A module with one memory of `min` pages (and `max`, when given) exported as "memory", then a custom section. */
function moduleWith(min: number, max?: number): Uint8Array<ArrayBuffer> {
  const limits =
    max === undefined ? [0x00, min] : [0x01, min, ...(max < 128 ? [max] : [0x80 | (max & 0x7f), max >> 7])];
  const memory = [0x01, ...limits];
  const exports = [0x01, 0x06, ...'memory'.split('').map((c) => c.charCodeAt(0)), 0x02, 0x00];
  const custom = [0x04, ...'note'.split('').map((c) => c.charCodeAt(0)), 0x2a];
  return new Uint8Array([
    ...HEADER,
    0x05,
    memory.length,
    ...memory,
    0x07,
    exports.length,
    ...exports,
    0x00,
    custom.length,
    ...custom,
  ]);
}

function memoryOf(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Memory {
  return new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports['memory'] as WebAssembly.Memory;
}

describe('capWasmMemory', () => {
  it('the engine refuses to grow the memory past the cap', () => {
    for (const bytes of [moduleWith(1), moduleWith(1, 200)]) {
      const memory = memoryOf(capWasmMemory(bytes, 4 * 65536 + 100));
      expect(memory.grow(3)).toBe(1);
      expect(() => memory.grow(1)).toThrow(RangeError);
      expect(memory.buffer.byteLength).toBe(4 * 65536);
    }
  });

  it('keeps the sections after the memory section whole (a cap needing a longer number moves them)', () => {
    const capped = capWasmMemory(moduleWith(1, 2), 40_000 * 65536);
    expect(WebAssembly.validate(capped)).toBe(true);
    expect(
      WebAssembly.Module.customSections(new WebAssembly.Module(capped), 'note').map(
        (section) => new Uint8Array(section)[0],
      ),
    ).toEqual([0x2a]);
    expect(capped.length).toBe(moduleWith(1, 2).length + 2);
  });

  it('refuses what it cannot cap instead of leaving the memory uncapped', () => {
    expect(() => capWasmMemory(moduleWith(5), 2 * 65536)).toThrow(/below the module's initial memory/);
    expect(() => capWasmMemory(new Uint8Array(HEADER), 65536)).toThrow(/defines no memory of its own/);
    const shared = moduleWith(1, 2);
    shared[11] = 0x03;
    expect(() => capWasmMemory(shared, 65536)).toThrow(/shared or 64-bit/);
    expect(() => capWasmMemory(moduleWith(1, 2).subarray(0, 11), 65536)).toThrow(/cut or malformed/);
  });
});
