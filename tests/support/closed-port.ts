/**
 * A port on 127.0.0.1 where nothing listens: "the model server is down".
 *
 * It is chosen below the kernel's ephemeral port range, so no server of a test running in
 * parallel (they all listen on port 0, which draws from that range) can be given it between this
 * call and the request. A port bound and released from inside the range was, once, taken by
 * another test's server in a CI run: the "unavailable" model answered, as LLM_BAD_RESPONSE.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest ephemeral port (Linux: /proc/sys/net/ipv4/ip_local_port_range; else the IANA 49152). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 20_100) return low;
  } catch {
    // not Linux
  }
  return 49_152;
}

/** Resolves true when nothing listens on `port` (it could be bound, then it is released). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export async function closedPort(): Promise<number> {
  const low = ephemeralLow();
  for (let tries = 0; tries < 50; tries++) {
    const port = 20_000 + Math.floor(Math.random() * (low - 20_000));
    if (await isFree(port)) return port;
  }
  throw new Error('closedPort: no free port below the ephemeral range after 50 tries');
}

/** An OpenAI-compatible base URL on a closed port. */
export async function closedModelUrl(): Promise<string> {
  return `http://127.0.0.1:${await closedPort()}/v1`;
}
