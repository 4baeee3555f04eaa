/**
 * A single-consumer async queue of events: the run pushes, the host iterates. Pushing never waits,
 * so a host that does not read the stream (it only awaits `result`) never stalls the run.
 */
export interface EventChannel<T> extends AsyncIterable<T> {
  push(item: T): void;
  close(): void;
}

export function createEventChannel<T>(): EventChannel<T> {
  const buffer: T[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  let iterating = false;
  return {
    push(item) {
      if (closed) return;
      buffer.push(item);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      if (iterating) throw new Error('a run can be iterated only once');
      iterating = true;
      let index = 0;
      while (true) {
        if (index < buffer.length) {
          const item = buffer[index]!;
          buffer[index++] = undefined as T;
          if (index > 1024 && index * 2 > buffer.length) {
            buffer.splice(0, index);
            index = 0;
          }
          yield item;
          continue;
        }
        if (closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    },
  };
}
