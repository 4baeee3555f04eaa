/**
 * Timing for the benchmarks: wall time, and the CPU time of this process (user + system, every
 * thread: the garbage collector's helpers included). On a machine shared with other work, wall
 * time swings with the load; CPU time stays close to what the code costs, so both are reported.
 */
export interface Timing {
  wallMs: number;
  cpuMs: number;
}

export async function timed(work: () => Promise<unknown> | unknown): Promise<Timing> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** The median of some numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** CPU milliseconds per call of `work` over `calls` calls (after `warmUp` calls), the cheapest of three rounds. */
export function cpuPerCall(work: () => unknown, calls: number, warmUp = Math.min(calls, 100)): number {
  for (let index = 0; index < warmUp; index++) work();
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 3; round++) {
    const start = process.cpuUsage();
    for (let index = 0; index < calls; index++) work();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000 / calls);
  }
  return best;
}

/** A JSON object of about `bytes` bytes: the part of a state a node does not touch. */
export function stateFiller(bytes: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  let size = 2;
  for (let index = 0; size < bytes; index++) {
    object[`key${index}`] = { text: `document ${index}: some words that a conversation would hold`, n: index };
    size += 70 + String(index).length * 2;
  }
  return object;
}
