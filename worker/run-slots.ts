/**
 * How many runs a `tea-edge serve` process executes at once (`TEA_MAX_CONCURRENT_RUNS`): a start or
 * resume beyond the limit waits in a bounded line for a run to end, and beyond the line is refused
 * at once with 503 `OVERLOADED` and `Retry-After`, so a burst of clients slows each one down a
 * little instead of making every run (and `/health`) slow. Runs a server continues after another
 * process died are not refused: they were accepted before, and take a slot over the limit.
 */
import { AgentError } from '../src/core/agent-error.js';
import { errorJsonResponse } from './error-status.js';

/**
 * Starts and resumes that may wait for a slot by default: a waiting request costs a pending promise
 * and an open connection, so a burst of a few hundred clients is served in turn, not refused.
 */
export const DEFAULT_RUN_QUEUE = 256;

/** Seconds a refused client is told to wait before it tries again. */
const RETRY_AFTER_SECONDS = 1;

/** Gives a slot back (once; later calls do nothing). */
export type Release = () => void;

export class RunSlots {
  private running = 0;
  private readonly line: Array<() => void> = [];

  /**
   * @param max runs executing at once (at least 1)
   * @param maxWaiting starts and resumes that may wait for a slot (0: refused at once when full)
   */
  constructor(
    readonly max: number,
    readonly maxWaiting: number,
  ) {}

  /** Runs executing now, and requests waiting for a slot. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.line.length };
  }

  /** A slot, after waiting in line if all are taken; throws OVERLOADED when the line is full too. */
  async acquire(): Promise<Release> {
    if (this.running < this.max) {
      this.running++;
      return this.releaser();
    }
    if (this.line.length >= this.maxWaiting) {
      throw new AgentError(
        'OVERLOADED',
        `this server runs ${this.max} runs at once and ${this.maxWaiting} more are waiting; try again shortly`,
        {
          details: { max_concurrent_runs: this.max, retry_after_s: RETRY_AFTER_SECONDS },
        },
      );
    }
    // The slot of the run that ends is handed over as it is: `running` does not change.
    await new Promise<void>((resolve) => this.line.push(resolve));
    return this.releaser();
  }

  /** A slot now, over the limit if need be (a run continued after its process died). */
  take(): Release {
    this.running++;
    return this.releaser();
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.line.shift();
      if (next !== undefined) next();
      else this.running--;
    };
  }
}

/** The 503 answer for OVERLOADED, with `Retry-After`. */
export function overloadedResponse(error: AgentError): Response {
  const response = errorJsonResponse(error.toJSON());
  response.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
  return response;
}

/** The default limit for a machine with `cores` processors: four runs per core. */
export function defaultMaxConcurrentRuns(cores: number): number {
  return Math.max(4, 4 * cores);
}
