/**
 * A hard memory cap for a WebAssembly module (issue 26 point 3): the maximum of the memory the
 * module defines is rewritten in its binary, so the engine itself refuses to grow it past the cap
 * (`memory.grow` answers -1; Emscripten's allocator then returns NULL and Python raises
 * MemoryError), whatever code asks for it. Pure bytes in, bytes out: no host API, so Node, Deno
 * and browser workers share it.
 */

const PAGE = 65536;
const MEMORY_SECTION = 5;

/** `wasm` with its defined memory's maximum set to `maxBytes` (rounded down to whole pages). */
export function capWasmMemory(wasm: Uint8Array, maxBytes: number): Uint8Array<ArrayBuffer> {
  const maxPages = Math.floor(maxBytes / PAGE);
  let at = 8; // magic and version
  while (at < wasm.length) {
    const id = wasm[at]!;
    const size = readLeb(wasm, at + 1);
    const body = size.next;
    if (body + size.value > wasm.length) throw new Error('the wasm module is cut or malformed');
    if (id === MEMORY_SECTION) {
      const count = readLeb(wasm, body);
      if (count.value !== 1) throw new Error(`the wasm module defines ${count.value} memories; the cap expects one`);
      const flags = wasm[count.next]!;
      if (flags !== 0 && flags !== 1)
        throw new Error(
          `the wasm module's memory has flags ${flags} (shared or 64-bit); the cap expects a plain 32-bit memory`,
        );
      const min = readLeb(wasm, count.next + 1);
      const end = flags === 1 ? readLeb(wasm, min.next).next : min.next;
      if (end !== body + size.value) throw new Error('the wasm memory section has bytes the cap does not understand');
      if (min.value > maxPages)
        throw new Error(
          `the memory cap (${maxBytes} bytes) is below the module's initial memory (${min.value * PAGE} bytes)`,
        );
      const section = [1, 1, ...leb(min.value), ...leb(maxPages)];
      const head = [MEMORY_SECTION, ...leb(section.length)];
      const out = new Uint8Array(at + head.length + section.length + (wasm.length - end));
      out.set(wasm.subarray(0, at), 0);
      out.set(head, at);
      out.set(section, at + head.length);
      out.set(wasm.subarray(end), at + head.length + section.length);
      return out;
    }
    at = body + size.value;
  }
  // A module that imports its memory (or has none) would run uncapped: refuse instead.
  throw new Error('the wasm module defines no memory of its own; the cap cannot be set');
}

function readLeb(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    if (byte === undefined || shift > 28) throw new Error('the wasm module is cut or malformed');
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, next: at };
  }
}

function leb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}
