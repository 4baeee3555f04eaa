/**
 * `tea-edge/testing` from the packed tarball, used the way an outside package uses it: a folder
 * with the tarball installed (and vitest, its peer) holds test files that import the conformance
 * suites and createTestActionContext by the package name, and vitest runs them there. The suites
 * pass for our own adapters (the fs stores, the rooted folder) and fail for a store that breaks
 * its contract, so they are real tests, not ones that pass whatever the store does.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPackedTarball } from '../../bench/package-bundles.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
let directory: string;

const OUR_ADAPTERS = `
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { createFsStores, createRootedFileStore } from 'tea-edge/adapters/fs';
import { createTestActionContext, describeFileStoreConformance, describeTraceStoreConformance } from 'tea-edge/testing';

const folder = async () => {
  const directory = await mkdtemp(path.join(tmpdir(), 'outside-'));
  return { directory, cleanup: () => rm(directory, { recursive: true, force: true }) };
};

describeTraceStoreConformance('fs stores', async () => {
  const { directory, cleanup } = await folder();
  return { ...createFsStores(directory), cleanup };
});

describeFileStoreConformance('rooted folder', async () => {
  const { directory, cleanup } = await folder();
  return { store: createRootedFileStore(directory), cleanup };
});

it('runs an outside action with the test context', async () => {
  const shout = { name: 'shout', description: 'asks the model and shouts', async run(params, context) {
    const response = await context.callLlm({ messages: [{ role: 'user', content: params.text }] });
    context.emit('log', { message: 'shouted' });
    return { loud: response.content.toUpperCase(), key: context.idempotencyKey };
  } };
  const context = createTestActionContext({ responses: ['hello'], actions: [shout] });
  expect(await context.callAction('shout', { text: 'hi' })).toEqual({ loud: 'HELLO', key: 'test-run:test-node:1' });
  expect(context.llmCalls).toHaveLength(1);
  expect(context.events.map((event) => event.type)).toEqual(['log']);
});
`;

const BROKEN_STORE = `
import { describeFileStoreConformance } from 'tea-edge/testing';

// Keeps only the first 4 bytes of every file: the suite must catch it.
describeFileStoreConformance('truncating', async () => {
  const files = new Map();
  return { store: { description: 'truncating', async read(path) { return files.get(path); }, async write(path, bytes) { files.set(path, bytes.slice(0, 4)); } } };
});
`;

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string }> }>;
}

async function runVitest(file: string): Promise<VitestReport> {
  const report = path.join(directory, `${file}.json`);
  await promisify(execFile)(
    process.execPath,
    [VITEST, 'run', file, '--root', directory, '--reporter=json', `--outputFile=${report}`],
    { cwd: directory, maxBuffer: 16 * 1024 * 1024 },
  ).catch(() => undefined);
  return JSON.parse(await readFile(report, 'utf8')) as VitestReport;
}

beforeAll(async () => {
  directory = await installPackedTarball(ROOT);
  // The peer dependency an outside package brings itself.
  await symlink(path.join(ROOT, 'node_modules/vitest'), path.join(directory, 'node_modules/vitest'));
  await mkdir(path.join(directory, 'outside'), { recursive: true });
  await writeFile(
    path.join(directory, 'package.json'),
    JSON.stringify({ name: 'outside', type: 'module', private: true }),
  );
  await writeFile(path.join(directory, 'outside/our-adapters.test.js'), OUR_ADAPTERS);
  await writeFile(path.join(directory, 'outside/broken-store.test.js'), BROKEN_STORE);
}, 120_000);
afterAll(() => rm(directory, { recursive: true, force: true }));

describe('tea-edge/testing from the packed tarball, in an outside package', () => {
  it('runs the trace store and file store suites against our fs adapters, and an action with the test context', async () => {
    const report = await runVitest('outside/our-adapters.test.js');
    const failed = report.testResults.flatMap((file) =>
      file.assertionResults.filter((test) => test.status === 'failed').map((test) => test.fullName),
    );
    expect(failed).toEqual([]);
    const names = report.testResults.flatMap((file) => file.assertionResults.map((test) => test.fullName));
    expect(names.filter((name) => name.startsWith('fs stores: trace store')).length).toBeGreaterThan(10);
    expect(names.filter((name) => name.startsWith('FileStore conformance: rooted folder')).length).toBeGreaterThan(8);
    expect(report.numPassedTests).toBe(names.length);
  }, 180_000);

  it('fails a file store that breaks the contract, naming the broken promises', async () => {
    const report = await runVitest('outside/broken-store.test.js');
    const failed = report.testResults.flatMap((file) =>
      file.assertionResults.filter((test) => test.status === 'failed').map((test) => test.fullName),
    );
    expect(failed).toContain(
      'FileStore conformance: truncating writes and reads back the same bytes, every byte value included',
    );
    expect(failed).toContain(
      'FileStore conformance: truncating reads at most maxBytes + 1 bytes, so a caller can tell a file over its cap',
    );
    expect(report.numPassedTests).toBeGreaterThan(0);
  }, 180_000);
});
