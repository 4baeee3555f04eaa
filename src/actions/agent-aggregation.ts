/**
 * The aggregation strategies of TEA's agent.parallel (collect, vote, first, consensus) over the
 * agents' results in `agents` order, and the bounded-concurrency map that produces them.
 */

/**
 * Runs `work` over `items` with at most `limit` in flight; results in item order. After a failure
 * no new item starts, and the calls in flight are waited for before the first error is thrown, so
 * no model call outlives the node.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === undefined) {
      const index = next++;
      try {
        results[index] = await work(items[index]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure.error;
  return results;
}

type Result = Record<string, unknown>;
const answerOf = (result: Result): string => String(result['content'] ?? '');

export function collect(results: Result[]): Result {
  return { responses: results.map(answerOf), count: results.length, aggregation: 'collect' };
}

/** Counts answers; the most frequent wins, ties go to the first seen (as Python's Counter). */
function tally(results: Result[]): { votes: Record<string, number>; winner: string; count: number } {
  const votes = new Map<string, number>();
  for (const answer of results.map(answerOf)) votes.set(answer, (votes.get(answer) ?? 0) + 1);
  let winner = '';
  let count = 0;
  for (const [answer, seen] of votes) if (seen > count) [winner, count] = [answer, seen];
  return { votes: Object.fromEntries(votes), winner, count };
}

export function vote(results: Result[]): Result {
  const { votes, winner } = tally(results);
  return {
    result: winner,
    votes,
    unanimous: Object.keys(votes).length === 1,
    total_votes: results.length,
    aggregation: 'vote',
  };
}

export function first(results: Result[]): Result {
  return { result: answerOf(results[0]!), agent: results[0]!['agent'], aggregation: 'first' };
}

export function consensus(results: Result[], threshold: number): Result {
  const { winner, count } = tally(results);
  const agreement = count / results.length;
  const reached = agreement >= threshold;
  return {
    result: reached ? winner : null,
    agreement,
    consensus_reached: reached,
    threshold,
    aggregation: 'consensus',
  };
}
