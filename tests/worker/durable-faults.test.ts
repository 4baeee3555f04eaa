/**
 * The durable-run fault suite on the Node file store (`tea-edge serve`, worker/node/local-runs.ts,
 * worker/node/durable-fs.ts, adapters/fs): servers in this process, each tagged as an instance, over
 * a `node:fs/promises` that fails, tears, corrupts or hangs chosen operations (tests/worker/fs-faults.ts).
 * A server "killed" at an operation never gets another one done, as a process killed there.
 *
 * Every case asserts the invariants of docs/execution-model.md "What durable runs promise":
 * every run ends completed, failed with a reason, or resumable (never `running` with nobody
 * executing it); nothing is deleted before what replaces it is durable (checked at each removal);
 * a refused request changes nothing on disk; every stored event once, in seq order.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { serve, type RunningServer } from '../../worker/node/node.js';
import { forEachSseEvent } from './durable-harness.js';
import { faults, instances, type Errno } from './fs-faults.js';

vi.mock('node:fs/promises', async (importOriginal) => (await import('./fs-faults.js')).wrapFs(await importOriginal()));

const STEPS = `name: steps
description: Four Lua nodes in a row, each printing (log events) and adding to a trail.
nodes:
${['a', 'b', 'c', 'd'].map((name) => `  - name: ${name}\n    run: |\n      print("at ${name}")\n      local trail = state.trail or {}\n      trail[#trail + 1] = "${name}"\n      return { trail = trail }`).join('\n')}
`;
const PAUSER = `name: pauser
description: Pauses before its second node.
nodes:
  - name: first
    run: |
      return { trail = { "first" } }
  - name: second
    interrupt: before
    run: |
      local trail = state.trail
      trail[#trail + 1] = "second"
      return { trail = trail }
  - name: third
    run: |
      local trail = state.trail
      trail[#trail + 1] = "third"
      return { trail = trail }
`;
const FINAL_TRAIL = ['a', 'b', 'c', 'd'];
const LEASE_MS = 150;

let root: string;
let agentsDir: string;
const open: RunningServer[] = [];

interface Instance {
  name: string;
  traceDir: string;
  call(route: string, init?: RequestInit): Promise<{ status: number; text: string; json: any }>;
  /** Follows a run's events over SSE; `ids` fills as they come, `closed` settles when the stream ends. */
  follow(runId: string): { ids: number[]; types: string[]; closed: Promise<void> };
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tea-edge-durable-faults-'));
  agentsDir = path.join(root, 'agents');
  await mkdir(agentsDir);
  await writeFile(path.join(agentsDir, 'steps.yaml'), STEPS);
  await writeFile(path.join(agentsDir, 'pauser.yaml'), PAUSER);
});

afterEach(() => {
  faults.reset();
});

afterAll(async () => {
  for (const server of open) void server.close();
  await rm(root, { recursive: true, force: true });
});

let servers = 0;

/** A server on `traceDir`, its every operation tagged with its instance name. */
async function start(traceDir: string, leaseMs = LEASE_MS, prepare?: (name: string) => void): Promise<Instance> {
  const name = `server-${++servers}`;
  prepare?.(name);
  const server = await instances.run(name, () =>
    serve({ port: 0, agentsDir, traceDir, leaseMs, webDemoDir: path.join(root, 'no-web-demo') }),
  );
  open.push(server);
  return {
    name,
    traceDir,
    call: (route, init = {}) =>
      instances.run(name, async () => {
        const response = await server.app.fetch(new Request(`${server.url}${route}`, init));
        const text = await response.text();
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        return { status: response.status, text, json };
      }),
    follow(runId) {
      const ids: number[] = [];
      const types: string[] = [];
      const closed = instances.run(name, async () => {
        const response = await server.app.fetch(
          new Request(`${server.url}/runs/${runId}/events`, { headers: { accept: 'text/event-stream' } }),
        );
        await forEachSseEvent(response.body, (id, type) => {
          ids.push(id);
          if (type !== undefined) types.push(type);
        });
      });
      return { ids, types, closed };
    },
  };
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, attempts = 400): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never saw ${what}`);
}

const freshDir = async (label: string) => mkdtemp(path.join(root, `${label}-`));

function recordOnDisk(traceDir: string, runId: string): any {
  const file = path.join(traceDir, 'runs', runId, 'record.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

function eventsOnDisk(traceDir: string, runId: string): any[] {
  const file = path.join(traceDir, 'runs', runId, 'events.ndjson');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .slice(0, -1)
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** Every file under a directory with its bytes: what a refused request must leave as it was. */
function snapshot(directory: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const full = path.join(current, name);
      if (statSync(full).isDirectory()) walk(full);
      else files[path.relative(directory, full)] = readFileSync(full, 'utf8');
    }
  };
  if (existsSync(directory)) walk(directory);
  return files;
}

/**
 * The invariants for a run that no process executes any more: it ended completed, failed with a
 * code and a message, or interrupted with a checkpoint to resume; its events are 1…n once each,
 * with at most one `done` per segment and a `done` last when one exists; a run that ended has no
 * segment files left; no removal broke the order of durability.
 */
function expectSettled(traceDir: string, runId: string): any {
  const record = recordOnDisk(traceDir, runId);
  expect(record, `run ${runId} has a record`).toBeDefined();
  expect(['completed', 'failed', 'interrupted', 'cancelled']).toContain(record.status);
  if (record.status === 'failed') {
    expect(record.error?.code).toEqual(expect.any(String));
    expect(record.error?.message).toEqual(expect.any(String));
  }
  if (record.status === 'interrupted')
    expect(existsSync(path.join(traceDir, 'runs', runId, 'checkpoint.json'))).toBe(true);
  else expect(existsSync(path.join(traceDir, 'durable', runId))).toBe(false);
  const events = eventsOnDisk(traceDir, runId);
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const done = events.findIndex((event) => event.type === 'done');
  if (done >= 0 && record.status !== 'interrupted') expect(events.at(-1).type).toBe('done');
  expect(faults.violations).toEqual([]);
  return record;
}

/** The write-like operations one clean run of `steps` makes (the fault points to try). */
async function writesOfCleanRun(): Promise<number> {
  const traceDir = await freshDir('clean');
  const server = await start(traceDir);
  await until(
    () => (faults.log.some((entry) => entry.instance === server.name) ? true : undefined),
    'the start scan',
    40,
  ).catch(() => undefined);
  const before = faults.log.length;
  const result = await server.call('/agents/steps/runs', post({ input: {} }));
  expect(result.json).toMatchObject({ status: 'completed', state: { trail: FINAL_TRAIL } });
  await until(
    () => (existsSync(path.join(traceDir, 'durable', result.json.run_id)) ? undefined : true),
    'the segment files go',
  );
  expectSettled(traceDir, result.json.run_id);
  // The run's own files and the run index (its line is written with the run's first record).
  const ops = faults.log
    .slice(before)
    .filter((entry) => entry.instance === server.name && (entry.run === result.json.run_id || entry.kind === 'index'));
  return ops.length;
}

describe('durable runs on the Node file store, under faults', () => {
  let writes = 0;

  it('a clean run: the baseline of write operations', async () => {
    writes = await writesOfCleanRun();
    expect(writes).toBeGreaterThan(10);
  }, 30_000);

  it('ENOSPC, EACCES or EROFS at each write of a run (once, or until space returns): failed with STORAGE_ERROR or completed, never left running', async () => {
    const errnos: Errno[] = ['ENOSPC', 'EACCES', 'EROFS'];
    for (const persistent of [false, true]) {
      for (let at = 1; at <= writes; at++) {
        const errno = errnos[at % errnos.length]!;
        const traceDir = await freshDir(`errno-${at}`);
        const server = await start(traceDir);
        faults.add({ instance: server.name, at, effect: errno, times: persistent ? Infinity : 1 });
        const answer = await server.call('/agents/steps/runs', post({ input: {} }));
        const label = `${errno} at write ${at}${persistent ? ' until cleared' : ''}`;
        // Storage errors over HTTP name the run and the kind of file, never the host's paths.
        expect(answer.text, label).not.toContain(root);
        if (answer.json?.run_id === undefined) {
          // Refused before it began (its lease could not be made): a request error naming the lease.
          expect(answer.status, label).toBe(503);
          expect(answer.json.error, label).toMatchObject({ code: 'STORAGE_ERROR' });
          expect(answer.json.error.message, label).toMatch(/lease of run '[0-9a-f-]+'/);
          faults.clear();
          continue;
        }
        const runId = answer.json.run_id as string;
        expect(['completed', 'failed'], label).toContain(answer.json.status);
        if (answer.json.status === 'failed') expect(answer.json.error.code, label).toBe('STORAGE_ERROR');
        // What the server says now is what the run did, even while the disk refuses to record it.
        const now = await server.call(`/runs/${runId}`);
        if (now.status === 200) expect(now.json.status, label).toBe(answer.json.status);
        faults.clear();
        // Space returns: within a scan the record on disk says how the run ended.
        await until(
          () =>
            recordOnDisk(traceDir, runId)?.status === answer.json.status &&
            !existsSync(path.join(traceDir, 'durable', runId))
              ? true
              : undefined,
          `${label}: the record written`,
        );
        expectSettled(traceDir, runId);
        // Listed, whatever write of the run index was refused (the index is derived from the records).
        expect(
          (await server.call('/runs')).json.runs.map((run: { run_id: string }) => run.run_id),
          label,
        ).toEqual([runId]);
      }
    }
  }, 240_000);

  it('a server killed at each write of a run: another server completes it from its last node checkpoint or closes it failed, saying why', async () => {
    for (let at = 1; at <= writes; at++) {
      const traceDir = await freshDir(`kill-${at}`);
      const first = await start(traceDir);
      faults.add({ instance: first.name, at, effect: 'hang', times: Infinity });
      // The answer may never come (the server dies first): the run id is read from its files.
      void first.call('/agents/steps/runs', post({ input: {} }, { prefer: 'respond-async' }));
      const runId = await until(
        () => faults.log.find((entry) => entry.instance === first.name && entry.run !== undefined)?.run,
        `kill ${at}: the run's first file`,
      );
      await until(
        () => (faults.log.filter((entry) => entry.instance === first.name).length >= at ? true : undefined),
        `kill ${at}: the killing write`,
      );
      faults.kill(first.name);
      const second = await start(traceDir);
      const label = `killed at write ${at}`;
      const record = await until(() => {
        const current = recordOnDisk(traceDir, runId);
        if (current !== undefined && current.status !== 'running' && !existsSync(path.join(traceDir, 'durable', runId)))
          return current;
        // Killed before anything of the run was written: nothing names it, nothing to finish.
        // (An empty run directory may stay: another process could be about to create its lease.)
        const segment = path.join(traceDir, 'durable', runId);
        const leased = existsSync(segment) && readdirSync(segment).length > 0;
        if (current === undefined && !leased && !existsSync(path.join(traceDir, 'runs', runId)))
          return { status: 'never-started' };
        return undefined;
      }, `${label}: the run ended`);
      if (record.status === 'never-started') continue;
      expectSettled(traceDir, runId);
      if (record.status === 'completed') {
        const events = eventsOnDisk(traceDir, runId);
        expect(events.at(-1).data.state.trail, label).toEqual(FINAL_TRAIL);
        expect(
          events.filter((event) => event.type === 'done'),
          label,
        ).toHaveLength(1);
      } else {
        expect(record.error.code, label).toBe('INTERNAL');
        expect(record.error.message, label).toContain('before its first node checkpoint');
      }
      const answer = await second.call(`/runs/${runId}`);
      expect(answer.json.status, label).toBe(record.status);
    }
  }, 240_000);

  for (const kind of ['resume-point', 'lease', 'events', 'record'] as const) {
    it(`a corrupt ${kind} file of one dead server's run fails or skips that run only; its neighbours are continued and GET /runs answers`, async () => {
      const traceDir = await freshDir(`corrupt-${kind}`);
      const first = await start(traceDir);
      // Every run hangs writing its third node checkpoint (before node c; each is a write and a rename).
      faults.add({ instance: first.name, kind: 'resume-point', perRun: true, at: 5, effect: 'hang', times: Infinity });
      const started = await Promise.all(
        [0, 1, 2].map(() => first.call('/agents/steps/runs', post({ input: {} }, { prefer: 'respond-async' }))),
      );
      const ids = started.map((answer) => answer.json.run_id as string);
      await until(
        () =>
          ids.every((id) => faults.log.filter((entry) => entry.run === id && entry.kind === 'resume-point').length >= 5)
            ? true
            : undefined,
        'every run at its third checkpoint',
      );
      faults.kill(first.name);
      const [broken, ...healthy] = ids as [string, ...string[]];
      const runDir = path.join(traceDir, 'runs', broken);
      const segment = path.join(traceDir, 'durable', broken);
      if (kind === 'resume-point')
        await writeFile(path.join(segment, 'resume-point.json'), '{"checkpoint": {"node": "c", ');
      if (kind === 'lease') await writeFile(path.join(segment, 'lease.1'), '{"run_id": ');
      if (kind === 'events')
        await writeFile(
          path.join(runDir, 'events.ndjson'),
          readFileSync(path.join(runDir, 'events.ndjson'), 'utf8').replace('\n', '\nnot an event\n'),
        );
      if (kind === 'record') await writeFile(path.join(runDir, 'record.json'), '{"run_id": "' + broken);

      const second = await start(traceDir);
      for (const id of healthy) {
        await until(
          () =>
            recordOnDisk(traceDir, id)?.status === 'completed' && !existsSync(path.join(traceDir, 'durable', id))
              ? true
              : undefined,
          `healthy run ${id} completed`,
        );
        expectSettled(traceDir, id);
        expect(eventsOnDisk(traceDir, id).at(-1).data.state.trail).toEqual(FINAL_TRAIL);
      }
      const listed = await second.call('/runs');
      expect(listed.status).toBe(200);
      expect(listed.json.runs.map((run: any) => run.run_id)).toEqual(expect.arrayContaining(healthy));

      await until(() => {
        try {
          const record = recordOnDisk(traceDir, broken);
          return record !== undefined && record.status !== 'running' && !existsSync(segment) ? true : undefined;
        } catch {
          return undefined;
        }
      }, `the ${kind}-corrupt run ended`);
      const record = recordOnDisk(traceDir, broken);
      if (kind === 'resume-point' || kind === 'events') {
        // Failed, saying which file of which run could not be read.
        expect(record).toMatchObject({ status: 'failed', error: { code: 'STORAGE_ERROR' } });
        expect(record.error.message).toContain(broken);
        expect(record.error.message).toMatch(kind === 'events' ? /event log/ : /node checkpoint/);
        expect(record.error.message).not.toContain(root);
        if (kind === 'events') {
          const events = await second.call(`/runs/${broken}/events`);
          expect(events.status).toBe(503);
          expect(events.json.error.message).toMatch(/event log of run/);
          expect(events.text).not.toContain(root);
        }
      } else {
        // The lease only says who held the run, the record is written again at the end: continued.
        expect(record.status).toBe('completed');
        expectSettled(traceDir, broken);
      }
      expect(faults.violations).toEqual([]);
    }, 60_000);
  }

  it('a late or repeated resume of a run whose resumed segment died is refused and changes nothing; the run is continued once', async () => {
    const traceDir = await freshDir('late-resume');
    const first = await start(traceDir);
    const paused = await first.call('/agents/pauser/runs', post({ input: {} }));
    expect(paused.json.status).toBe('interrupted');
    const runId = paused.json.run_id as string;
    // The resumed segment dies writing its second node checkpoint (before `third`; `second` ran).
    faults.add({ instance: first.name, kind: 'resume-point', run: runId, at: 3, effect: 'hang', times: Infinity });
    const from = faults.log.length;
    const resumed = await first.call(`/runs/${runId}/resume`, post({}, { prefer: 'respond-async' }));
    expect(resumed.status).toBe(202);
    // A resumed background run reports running while its segment runs, on disk as over HTTP.
    expect((await first.call(`/runs/${runId}`)).json.status).toBe('running');
    await until(
      () => (recordOnDisk(traceDir, runId)?.status === 'running' ? true : undefined),
      'the resumed record says running',
    );
    await until(
      () =>
        faults.log.slice(from).filter((entry) => entry.run === runId && entry.kind === 'resume-point').length >= 3
          ? true
          : undefined,
      'the segment at its second checkpoint',
    );
    faults.kill(first.name);

    // A survivor to which the lease is stale, whose scan has not taken the run over yet (held up
    // listing the segment directories): the window a retried or second resume falls into.
    const survivor = await start(traceDir, LEASE_MS, (name) =>
      faults.add({ instance: name, op: 'readdir', kind: 'root', reads: true, effect: 'hang', times: Infinity }),
    );
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS * 3));
    const before = snapshot(traceDir);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => survivor.call(`/runs/${runId}/resume`, post({}))),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 409));
    expect(answers[0]!.json.error.code).toBe('CONFLICT');
    expect(snapshot(traceDir)).toEqual(before);

    // A server that sees the lease stale continues the run, once.
    const next = await start(traceDir);
    await until(
      () =>
        recordOnDisk(traceDir, runId)?.status === 'completed' && !existsSync(path.join(traceDir, 'durable', runId))
          ? true
          : undefined,
      'the run continued to its end',
    );
    const record = expectSettled(traceDir, runId);
    expect(record.status).toBe('completed');
    const events = eventsOnDisk(traceDir, runId);
    expect(events.at(-1).data.state.trail).toEqual(['first', 'second', 'third']);
    expect(events.filter((event) => event.type === 'log' && event.data.source === 'durable')).toHaveLength(1);
    expect((await next.call(`/runs/${runId}/resume`, post({}))).status).toBe(409);
  }, 60_000);

  it('an SSE follower on a server that does not execute the resumed run is not cut before its done, across a takeover', async () => {
    const traceDir = await freshDir('follower');
    const first = await start(traceDir);
    const paused = await first.call('/agents/pauser/runs', post({ input: {} }));
    const runId = paused.json.run_id as string;
    // The resumed segment stops (alive, lease renewed) writing its second node checkpoint.
    faults.add({ instance: first.name, kind: 'resume-point', run: runId, at: 3, effect: 'hang', times: Infinity });
    const from = faults.log.length;
    expect((await first.call(`/runs/${runId}/resume`, post({}, { prefer: 'respond-async' }))).status).toBe(202);
    await until(
      () =>
        faults.log.slice(from).filter((entry) => entry.run === runId && entry.kind === 'resume-point').length >= 3
          ? true
          : undefined,
      'the segment at its second checkpoint',
    );
    const watcher = await start(traceDir, 60_000);
    const follower = watcher.follow(runId);
    let ended = false;
    void follower.closed.then(() => (ended = true));
    await until(() => (follower.ids.length >= 5 ? true : undefined), 'the follower reads the first segment');
    await new Promise((resolve) => setTimeout(resolve, 600));
    // The run is running elsewhere: the follower waits, past the pause's `done`.
    expect(ended).toBe(false);
    faults.kill(first.name);
    await start(traceDir);
    await follower.closed;
    const stored = eventsOnDisk(traceDir, runId);
    expectSettled(traceDir, runId);
    expect(follower.ids).toEqual(stored.map((event) => event.seq));
    expect(follower.types.at(-1)).toBe('done');
    expect(stored.at(-1).data.status).toBe('completed');
  }, 60_000);

  it('a resumed segment that died before its first node checkpoint is closed failed, never put back to a pause nobody can resume', async () => {
    const traceDir = await freshDir('resume-died-early');
    const first = await start(traceDir);
    const paused = await first.call('/agents/pauser/runs', post({ input: {} }));
    const runId = paused.json.run_id as string;
    faults.add({ instance: first.name, kind: 'resume-point', run: runId, effect: 'hang', times: Infinity });
    const from = faults.log.length;
    expect((await first.call(`/runs/${runId}/resume`, post({}, { prefer: 'respond-async' }))).status).toBe(202);
    await until(
      () =>
        faults.log.slice(from).some((entry) => entry.run === runId && entry.kind === 'resume-point') ? true : undefined,
      'the resumed segment at its first checkpoint',
    );
    faults.kill(first.name);
    const next = await start(traceDir);
    await until(
      () =>
        recordOnDisk(traceDir, runId)?.status === 'failed' && !existsSync(path.join(traceDir, 'durable', runId))
          ? true
          : undefined,
      'the run closed',
    );
    const record = expectSettled(traceDir, runId);
    expect(record.error).toMatchObject({ code: 'INTERNAL' });
    expect(record.error.message).toContain('before its first node checkpoint');
    // Nothing left that says it can be resumed.
    expect(existsSync(path.join(traceDir, 'runs', runId, 'checkpoint.json'))).toBe(false);
    expect((await next.call(`/runs/${runId}/resume`, post({}))).status).toBe(409);
  }, 60_000);

  it('a corrupt and torn run index hides no run from GET /runs, on this server and the next', async () => {
    const traceDir = await freshDir('run-index');
    const server = await start(traceDir);
    const ids: string[] = [];
    for (let index = 0; index < 3; index++)
      ids.push((await server.call('/agents/steps/runs', post({ input: {} }))).json.run_id);
    const indexPath = path.join(traceDir, 'run-index.ndjson');
    const text = readFileSync(indexPath, 'utf8');
    await writeFile(indexPath, `{"corrupt": ${text.slice(0, Math.floor(text.length / 2))}`);
    for (const instance of [server, await start(traceDir)]) {
      const listed = await instance.call('/runs');
      expect(listed.status).toBe(200);
      expect(listed.json.runs.map((run: { run_id: string }) => run.run_id).sort()).toEqual([...ids].sort());
    }
  }, 30_000);

  it('a read-only trace directory: a new run is refused with STORAGE_ERROR naming the run and the lease, without host paths', async () => {
    const traceDir = await freshDir('read-only');
    const server = await start(traceDir);
    faults.add({ instance: server.name, effect: 'EROFS', times: Infinity });
    const answer = await server.call('/agents/steps/runs', post({ input: {} }));
    expect(answer.status).toBe(503);
    expect(answer.json.error.code).toBe('STORAGE_ERROR');
    expect(answer.json.error.message).toMatch(
      /cannot create the lease of run '[0-9a-f-]+' \(durable\/[0-9a-f-]+\/lease\.1\): EROFS: read-only file system/,
    );
    expect(answer.text).not.toContain(root);
    expect((await server.call('/runs')).status).toBe(200);
  }, 30_000);
});
