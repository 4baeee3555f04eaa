/**
 * Soak of durable runs on the Node host (issue 23), about half a minute of chaos on one trace
 * directory shared by real `tea-edge serve` child processes and one server in this process:
 * - runs of three agents (model calls streamed slowly by a mock server, a pause before a model
 *   node, quick Lua steps) are started at random servers, in the background;
 * - child servers are killed with SIGKILL at random moments and replaced;
 * - paused runs are resumed, each by two requests at once to different servers (duplicates), and
 *   the runs a killed server was resuming get resumes sent at once to the survivors (late resumes,
 *   before a lease scan takes the run over);
 * - the disk of the in-process server is "full" for random windows (ENOSPC at every write, through
 *   the store's fault-injection seam, tests/worker/fs-faults.ts).
 * Then the chaos stops and the servers left are given time to take over. Asserted, for every run
 * the directory names and every run a server accepted: none is left stuck. Each ends completed,
 * failed with a code and a message, cancelled, or interrupted with a checkpoint to resume (and
 * each of those is then resumed and ends); its events are 1…n once each, one `done` last; no
 * removal came before what replaces it was durable. The random choices come from a seeded
 * generator (TEA_SOAK_SEED, default 23); the seed is in every failure message.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { startMockOpenAI, type MockOpenAI } from '../support/mock-openai-server.js';
import { startServe } from '../support/run-cli.js';
import { faults, instances } from './fs-faults.js';

vi.mock('node:fs/promises', async (importOriginal) => (await import('./fs-faults.js')).wrapFs(await importOriginal()));

const SEED = Number(process.env.TEA_SOAK_SEED ?? '23');
const CHAOS_MS = 25_000;
const LEASE_MS = 400;
const CHILDREN = 2;
const IN_PROCESS = 'in-process';

const CHAIN = `name: chain
description: Three streamed model calls in a row.
settings:
  llm:
    max_retries: 0
nodes:
${['one', 'two', 'three'].map((name) => `  - name: ${name}\n    uses: llm.stream\n    with:\n      messages:\n        - role: user\n          content: "chain ${name}"\n    output: ${name}`).join('\n')}
`;
const PAUSER = `name: pauser
description: A Lua node, a pause, then two streamed model calls.
settings:
  llm:
    max_retries: 0
nodes:
  - name: opening
    run: |
      return { stage = "opening" }
  - name: second
    interrupt: before
    uses: llm.stream
    with:
      messages:
        - role: user
          content: "pauser second"
    output: second
  - name: third
    uses: llm.stream
    with:
      messages:
        - role: user
          content: "pauser third"
    output: third
`;
const STEPS = `name: steps
description: Four quick Lua nodes.
nodes:
${['a', 'b', 'c', 'd'].map((name) => `  - name: ${name}\n    run: |\n      local trail = state.trail or {}\n      trail[#trail + 1] = "${name}"\n      return { trail = trail }`).join('\n')}
`;

/** A small seeded generator (mulberry32), so a failing soak can be replayed with its seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Server {
  name: string;
  url: string;
  child?: ChildProcess;
  alive: boolean;
}

let mock: MockOpenAI;
let root: string;
let traceDir: string;
let agentsDir: string;
let inProcess: RunningServer | undefined;
const children: ChildProcess[] = [];

beforeAll(async () => {
  mock = await startMockOpenAI({
    replies: ['A slow answer, streamed in small pieces so a kill lands inside.'],
    chunkSize: 4,
    chunkDelayMs: 15,
  });
  root = await mkdtemp(path.join(tmpdir(), 'tea-edge-durable-soak-'));
  traceDir = path.join(root, 'traces');
  agentsDir = path.join(root, 'agents');
  await mkdir(agentsDir);
  await writeFile(path.join(agentsDir, 'chain.yaml'), CHAIN);
  await writeFile(path.join(agentsDir, 'pauser.yaml'), PAUSER);
  await writeFile(path.join(agentsDir, 'steps.yaml'), STEPS);
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await inProcess?.close();
  await mock?.close();
  await rm(root, { recursive: true, force: true });
});

async function startChild(number: number): Promise<Server> {
  const { url, child } = await startServe(['--port', '0', '--agents', agentsDir, '--trace-dir', traceDir], {
    TEA_LLM_BASE_URL: mock.url,
    TEA_LLM_MODEL: 'mock-model',
    TEA_RUN_LEASE_MS: String(LEASE_MS),
  });
  children.push(child);
  return { name: `child-${number}`, url, child, alive: true };
}

/** A request to a server; a server killed under it answers status 0. */
async function call(server: Server, route: string, init: RequestInit = {}): Promise<{ status: number; json: any }> {
  try {
    const send = () => fetch(`${server.url}${route}`, { ...init, signal: AbortSignal.timeout(20_000) });
    const response = server.child === undefined ? await instances.run(server.name, send) : await send();
    return { status: response.status, json: await response.json().catch(() => undefined) };
  } catch {
    return { status: 0, json: undefined };
  }
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

function recordOnDisk(runId: string): any {
  const file = path.join(traceDir, 'runs', runId, 'record.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { status: 'unreadable' };
  }
}

function eventsOnDisk(runId: string): any[] {
  const file = path.join(traceDir, 'runs', runId, 'events.ndjson');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .slice(0, -1)
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** Every run id the directory names (a run's folder, or its segment's). */
function runsOnDisk(): string[] {
  const names = new Set<string>();
  for (const area of ['runs', 'durable']) {
    const directory = path.join(traceDir, area);
    // `.gone-…`: an ended segment renamed away before its removal (worker/node/durable-fs.ts).
    if (existsSync(directory)) for (const name of readdirSync(directory)) if (!name.startsWith('.')) names.add(name);
  }
  return [...names];
}

/** A run started and never written anywhere (its server died first): nothing names it, nothing to finish. */
function neverStarted(runId: string): boolean {
  const segment = path.join(traceDir, 'durable', runId);
  const leased = existsSync(segment) && readdirSync(segment).length > 0;
  const runDirectory = path.join(traceDir, 'runs', runId);
  const written = existsSync(runDirectory) && readdirSync(runDirectory).length > 0;
  return !leased && !written;
}

/** Why a run is not settled yet (undefined: it is): what a run nobody executes must never stay. */
function unsettled(runId: string): string | undefined {
  const record = recordOnDisk(runId);
  if (record === undefined) return neverStarted(runId) ? undefined : 'files but no record';
  if (record.status === 'running') return 'running';
  if (!['completed', 'failed', 'interrupted', 'cancelled'].includes(record.status)) return `status ${record.status}`;
  if (
    record.status === 'failed' &&
    (typeof record.error?.code !== 'string' || typeof record.error?.message !== 'string')
  )
    return 'failed without a reason';
  if (record.status === 'interrupted')
    return existsSync(path.join(traceDir, 'runs', runId, 'checkpoint.json'))
      ? undefined
      : 'interrupted without a checkpoint';
  if (existsSync(path.join(traceDir, 'durable', runId)))
    return `${record.status} but its segment files are still there`;
  return undefined;
}

/**
 * What is wrong with a settled run's events: seq 1…n once each; at most one `done`, and last. A run
 * that ended with no `done` stored must be one the disk refused (failed STORAGE_ERROR: the events
 * still buffered when the write failed are not in its trace).
 */
function eventProblem(runId: string): string | undefined {
  const record = recordOnDisk(runId);
  if (record === undefined) return undefined;
  const events = eventsOnDisk(runId);
  const seqs = events.map((event) => event.seq);
  if (seqs.some((seq, index) => seq !== index + 1)) return `events out of order or repeated: ${seqs.join(',')}`;
  // One `done` per segment: each pause ends one (`interrupted`); one other, last, ends the run.
  const dones = events.filter((event) => event.type === 'done');
  const done = dones.filter((event) => event.data?.status !== 'interrupted').length;
  if (done > 1 || (done === 1 && events.at(-1).type !== 'done'))
    return `done events ${dones.map((event) => `${event.seq}:${event.data?.status}`).join(',')} of ${events.length}, the last event ${events.at(-1).type}; recorded ${record.status} (${record.error?.code}: ${record.error?.message})`;
  if (record.status !== 'interrupted' && done === 0 && events.length > 0 && record.error?.code !== 'STORAGE_ERROR')
    return `ended ${record.status} (${record.error?.code}) with no done event: ${events.map((event) => event.type).join(',')}`;
  return undefined;
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, limitMs: number): Promise<T | undefined> {
  const end = Date.now() + limitMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined || Date.now() > end) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe(`durable runs soak (seed ${SEED})`, () => {
  it('kills, full disks, late and duplicate resumes: every run ends completed, failed with a reason, or resumable', async () => {
    const random = seeded(SEED);
    const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
    const servers: Server[] = [];
    let childNumber = 0;
    for (let index = 0; index < CHILDREN; index++) servers.push(await startChild(++childNumber));
    inProcess = await instances.run(IN_PROCESS, () =>
      serve({
        port: 0,
        agentsDir,
        traceDir,
        leaseMs: LEASE_MS,
        webDemoDir: path.join(root, 'no-web-demo'),
        app: { llm: { overrides: { api_base: mock.url, model: 'mock-model' } } },
      }),
    );
    const local: Server = { name: IN_PROCESS, url: inProcess.url, alive: true };
    servers.push(local);

    const accepted = new Set<string>();
    const paused: string[] = [];
    /** The server each run was last resumed at. */
    const resumedAt = new Map<string, Server>();
    const tally = { started: 0, kills: 0, resumes: 0, lateResumes: 0, fullDisks: 0 };
    const pending: Promise<unknown>[] = [];
    const live = () => servers.filter((server) => server.alive);

    const startRun = async (server: Server) => {
      const agent = pick(['chain', 'chain', 'pauser', 'steps']);
      const answer = await call(server, `/agents/${agent}/runs`, post({ input: {} }, { prefer: 'respond-async' }));
      if (typeof answer.json?.run_id !== 'string') return;
      tally.started++;
      accepted.add(answer.json.run_id);
      if (agent === 'pauser') paused.push(answer.json.run_id);
    };

    const resume = async (runId: string, server: Server) => {
      resumedAt.set(runId, server);
      tally.resumes++;
      await call(server, `/runs/${runId}/resume`, post({}, { prefer: 'respond-async' }));
    };

    const kill = async () => {
      const victims = live().filter((server) => server.child !== undefined);
      if (victims.length === 0) return;
      const victim = pick(victims);
      victim.alive = false;
      victim.child!.kill('SIGKILL');
      tally.kills++;
      // Late resumes: what the dead server was resuming is asked again of the survivors at once.
      for (const [runId, server] of resumedAt) {
        if (server !== victim) continue;
        tally.lateResumes++;
        for (const survivor of live().slice(0, 2))
          pending.push(call(survivor, `/runs/${runId}/resume`, post({}, { prefer: 'respond-async' })));
      }
      servers.push(await startChild(++childNumber));
    };

    const fullDisk = async () => {
      tally.fullDisks++;
      faults.add({ instance: IN_PROCESS, effect: 'ENOSPC', times: Infinity });
      await new Promise((resolve) => setTimeout(resolve, 200 + random() * 600));
      faults.clear();
    };

    const end = Date.now() + CHAOS_MS;
    while (Date.now() < end) {
      const roll = random();
      if (roll < 0.5) pending.push(startRun(pick(live())));
      else if (roll < 0.7 && paused.length > 0) {
        // Two resumes of one paused run at once, at two servers: one wins, the other changes nothing.
        const runId = paused.splice(Math.floor(random() * paused.length), 1)[0]!;
        const [first, second] = [pick(live()), pick(live())];
        pending.push(
          resume(runId, first),
          call(second, `/runs/${runId}/resume`, post({}, { prefer: 'respond-async' })),
        );
      } else if (roll < 0.85) await kill();
      else pending.push(fullDisk());
      await new Promise((resolve) => setTimeout(resolve, 100 + random() * 300));
    }
    await Promise.all(pending);
    faults.clear();

    const context = `seed ${SEED}, ${JSON.stringify(tally)}`;
    expect(tally.kills, context).toBeGreaterThan(3);
    expect(tally.started, context).toBeGreaterThan(10);

    // The chaos is over: the servers left take over what the dead ones held, within a few scans.
    const ids = () => [...new Set([...accepted, ...runsOnDisk()])];
    const stuck = () =>
      ids().flatMap((runId) => (unsettled(runId) === undefined ? [] : [`${runId}: ${unsettled(runId)}`]));
    await until(() => (stuck().length === 0 ? true : undefined), 45_000);
    expect(stuck(), context).toEqual([]);
    for (const runId of accepted)
      expect(recordOnDisk(runId), `${context}: accepted run ${runId} has a record`).toBeDefined();
    expect(
      ids().flatMap((runId) => (eventProblem(runId) === undefined ? [] : [`${runId}: ${eventProblem(runId)}`])),
      context,
    ).toEqual([]);
    expect(faults.violations, context).toEqual([]);

    // Resumable means resumable: every run left interrupted is resumed once and ends.
    const interrupted = ids().filter((runId) => recordOnDisk(runId)?.status === 'interrupted');
    for (const runId of interrupted) {
      const answer = await call(local, `/runs/${runId}/resume`, post({}, { prefer: 'respond-async' }));
      expect(answer.status, `${context}: resume of ${runId}`).toBe(202);
    }
    await until(
      () =>
        interrupted.every(
          (runId) => ['completed', 'failed'].includes(recordOnDisk(runId)?.status) && unsettled(runId) === undefined,
        )
          ? true
          : undefined,
      30_000,
    );
    for (const runId of interrupted) {
      expect(unsettled(runId), `${context}: resumed run ${runId}`).toBeUndefined();
      expect(recordOnDisk(runId)?.status, `${context}: resumed run ${runId}`).toBe('completed');
    }
  }, 150_000);
});
