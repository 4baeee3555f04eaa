// The timed side of bench/serve-load.ts, in a process of its own so that the load clients' own
// event loop (hundreds of fetches in one process) is not counted as the server's latency:
// asks `/health` every 50 ms for `ms` milliseconds, and cancels each given run at its time
// (milliseconds from the start). Prints one JSON line: {health: [ms...], cancels: [{ms, status, run_status}...]}.
//
// node bench/serve-prober.mjs <url> <ms> [<runId>@<atMs> ...]
const [url, msText, ...planned] = process.argv.slice(2);
const HEALTH_EVERY_MS = 50;
const started = performance.now();
const end = started + Number(msText);
const health = [];
const cancels = [];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function probe() {
  while (performance.now() < end) {
    const sent = performance.now();
    const response = await fetch(`${url}/health`);
    await response.arrayBuffer();
    health.push(performance.now() - sent);
    await sleep(HEALTH_EVERY_MS);
  }
}

async function cancel(runId, atMs) {
  await sleep(started + atMs - performance.now());
  const sent = performance.now();
  const response = await fetch(`${url}/runs/${runId}/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const answer = await response.json();
  cancels.push({ ms: performance.now() - sent, status: response.status, run_status: answer.status });
}

await Promise.all([
  probe(),
  ...planned.map((plan) => {
    const [runId, atMs] = plan.split('@');
    return cancel(runId, Number(atMs));
  }),
]);
process.stdout.write(`${JSON.stringify({ health, cancels })}\n`);
