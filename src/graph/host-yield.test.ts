import { describe, expect, it } from 'vitest';
import { hostYield, YIELD_AFTER_MS } from './host-yield.js';

/** A clock the test moves by hand. */
function manualClock() {
  let now = 0;
  return { clock: () => now, advance: (ms: number) => (now += ms) };
}

/** Resolves once `promise` settled, or says it did not within one turn of the event loop. */
async function settlesWithinMicrotasks(promise: Promise<void>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  for (let index = 0; index < 10; index++) await Promise.resolve();
  return settled;
}

describe('hostYield', () => {
  it('resolves at once before YIELD_AFTER_MS of work, and waits one turn after it', async () => {
    const { clock, advance } = manualClock();
    const breathe = hostYield(clock);
    advance(YIELD_AFTER_MS - 1);
    expect(await settlesWithinMicrotasks(breathe())).toBe(true);
    advance(1);
    const turn = breathe();
    expect(await settlesWithinMicrotasks(turn)).toBe(false);
    await turn;
    // The budget starts again after the turn.
    expect(await settlesWithinMicrotasks(breathe())).toBe(true);
  });

  it('shared by two runs: once one passed the budget, the other yields at its next step too', async () => {
    const { clock, advance } = manualClock();
    const shared = hostYield(clock);
    advance(YIELD_AFTER_MS);
    const first = shared();
    // The second run did no work of its own since the last turn; the host's budget is spent.
    const second = shared();
    expect(await settlesWithinMicrotasks(first)).toBe(false);
    expect(await settlesWithinMicrotasks(second)).toBe(false);
    await Promise.all([first, second]);
  });

  it('each run with its own: the second run keeps working on its own budget', async () => {
    const { clock, advance } = manualClock();
    const own = hostYield(clock);
    advance(YIELD_AFTER_MS);
    const other = hostYield(clock);
    expect(await settlesWithinMicrotasks(other())).toBe(true);
    await own();
  });
});
