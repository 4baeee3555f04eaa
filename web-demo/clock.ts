/**
 * A clock for the live view: components that show a waiting call's elapsed time or a retry
 * countdown read it with `useNow()`, which re-renders only them every half second; the rest of
 * the run view is not touched by a tick.
 */
import { useEffect, useState } from 'preact/hooks';

export function useNow(intervalMs = 500): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
