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
