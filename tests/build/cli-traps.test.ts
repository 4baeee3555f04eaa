/** The CLI traps a first-time user fell into (issue 10 point 7), each through the built bin. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsStores } from '../../adapters/fs/index.js';
import { startMockOpenAI } from '../support/mock-openai-server.js';
import { runCli as cli, startCli, startServe } from '../support/run-cli.js';

const CLEAN_ENV = { TEA_LLM_BASE_URL: '', TEA_LLM_MODEL: '', TEA_LLM_API_KEY: '', TEA_LLM_PROVIDER: '' };

function agentFile(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'tea-trap-')), 'agent.yaml');
  writeFileSync(file, text);
  return file;
}

const traceDir = () => mkdtempSync(path.join(tmpdir(), 'tea-trap-traces-'));

/** Every file under a directory, read as text. */
function allText(directory: string): string {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('tea-edge run', () => {
  it('prints the run id on stderr whenever it stores a trace', async () => {
    const traces = traceDir();
    const result = await cli([
      'run',
      'tests/agents/lua-chain.yaml',
      '--input',
      '{"name":"Ada","items":[1]}',
      '--trace-dir',
      traces,
    ]);
    expect(result.code).toBe(0);
    const runId = /^run ([0-9a-f-]{36}) \(completed\), trace in /m.exec(result.stderr)?.[1];
    expect(runId).toBeDefined();
    expect((await createFsStores(traces).traceStore.getRun(runId!))?.status).toBe('completed');
    expect((await cli(['run', 'tests/agents/lua-chain.yaml', '--input', '{"name":"Ada","items":[1]}'])).stderr).toBe(
      '',
    );
  });

  it('--record without --trace-dir is a usage error', async () => {
    const result = await cli(['run', 'tests/agents/scripted-llm.yaml', '--record']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--record .*--trace-dir/);
  });

  it('--replay uses the recorded input unless --input is given; a mismatch exits 1 naming the request', {
    timeout: 30_000,
  }, async () => {
    const server = await startMockOpenAI({ replies: ['Paris'] });
    close = () => server.close();
    const traces = traceDir();
    const recorded = await cli(
      [
        'run',
        'tests/agents/scripted-llm.yaml',
        '--input',
        '{"country":"France"}',
        '--llm-base-url',
        server.url,
        '--record',
        '--trace-dir',
        traces,
      ],
      CLEAN_ENV,
    );
    expect(recorded.code).toBe(0);
    const runId = /^run ([0-9a-f-]{36})/m.exec(recorded.stderr)![1]!;
    const replayed = await cli(
      ['run', 'tests/agents/scripted-llm.yaml', '--replay', path.join(traces, runId)],
      CLEAN_ENV,
    );
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout).verdict).toBe('right: Paris');
    const changed = await cli(
      ['run', 'tests/agents/scripted-llm.yaml', '--input', '{"country":"Spain"}', '--replay', path.join(traces, runId)],
      CLEAN_ENV,
    );
    expect(changed.code).toBe(1);
    expect(changed.stderr.trim().split('\n')).toHaveLength(1);
    expect(changed.stderr).toMatch(/node=ask .*call 1 differs from the recording at messages\[\d+\]\.content/);
  });

  it('an unknown --role is an error naming the roles', async () => {
    const result = await cli(['run', 'tests/agents/lua-chain.yaml', '--role', 'root']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown role 'root' \(roles: viewer, user, operator, admin\)/);
    expect(
      (await cli(['run', 'tests/agents/lua-chain.yaml', '--input', '{"name":"A","items":[]}', '--role', 'viewer']))
        .code,
    ).toBe(0);
  });

  it('an unknown option is a usage error that suggests the right one', async () => {
    const result = await cli(['run', 'tests/agents/lua-chain.yaml', '--inptu', '{}']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option --inptu \(did you mean --input\?\)/);
  });

  it('Ctrl-C records the run as cancelled and exits 130', { timeout: 30_000 }, async () => {
    const server = await startMockOpenAI({ replies: ['late'] });
    close = () => server.close();
    server.setFault({ type: 'delay', ms: 20_000 });
    const traces = traceDir();
    const file = agentFile(
      'name: slow\nsettings:\n  llm: { model: m, timeout: 60 }\nnodes:\n  - { name: ask, uses: llm.call, with: { prompt: "Hi" }, output: answer }\n',
    );
    const { child, outcome } = startCli(['run', file, '--llm-base-url', server.url, '--trace-dir', traces], CLEAN_ENV);
    while (server.chatRequests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    const result = await outcome;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/^CANCELLED .*stop reason cancelled\)$/m);
    const runId = /\(run ([0-9a-f-]{36}),/.exec(result.stderr)![1]!;
    expect(await createFsStores(traces).traceStore.getRun(runId)).toMatchObject({
      status: 'cancelled',
      stop_reason: 'cancelled',
    });
  });
});

describe('tea-edge resume', () => {
  const pausedLlmAgent = () =>
    agentFile(
      'name: paused-llm\nconfig:\n  interrupt_before: [ask]\nsettings:\n  llm: { model: agent-model, max_retries: 0 }\nnodes:\n  - { name: draft, run: "return { d = 1 }" }\n  - { name: ask, uses: llm.call, with: { prompt: "Hi" }, output: answer }\n',
    );

  it('reuses the model endpoint the run was started with, never its key', { timeout: 30_000 }, async () => {
    const server = await startMockOpenAI({ replies: ['resumed answer'] });
    close = () => server.close();
    const traces = traceDir();
    const key = 'sk-never-stored-4242';
    const first = await cli(
      [
        'run',
        pausedLlmAgent(),
        '--llm-base-url',
        server.url,
        '--llm-model',
        'flag-model',
        '--llm-api-key',
        key,
        '--trace-dir',
        traces,
      ],
      CLEAN_ENV,
    );
    expect(first.code).toBe(3);
    const runId = JSON.parse(first.stdout).run_id;
    const resumed = await cli(['resume', runId, '--trace-dir', traces], CLEAN_ENV);
    expect(resumed.stderr).not.toMatch(/LLM_/);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout).answer.content).toBe('resumed answer');
    expect(server.chatRequests).toHaveLength(1);
    expect(server.chatRequests[0]!.body.model).toBe('flag-model');
    expect(server.chatRequests[0]!.headers.authorization).toBeUndefined();
    expect(allText(traces)).not.toContain(key);
  });

  it('a bare resume of a pending tool confirmation asks for --approve or --deny', { timeout: 30_000 }, async () => {
    const traces = traceDir();
    const file = agentFile(
      'name: confirm\nsettings:\n  llm:\n    provider: scripted\n    scripted:\n      - \'{"thought": "store it", "action": "memory.store", "action_input": {"key": "k", "value": 1}}\'\n      - \'{"thought": "done", "action": "final_answer", "action_input": {"answer": "ok"}}\'\nnodes:\n  - name: act\n    uses: reason.react\n    with:\n      goal: store one value\n      tools: [{ name: memory.store, tier: 3 }]\n    output: react\n',
    );
    const first = await cli(['run', file, '--trace-dir', traces]);
    expect(first.code).toBe(3);
    const paused = JSON.parse(first.stdout);
    expect(paused.waiting_for.kind).toBe('tool_confirmation');
    const bare = await cli(['resume', paused.run_id, '--trace-dir', traces]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/memory\.store.*--approve or --deny/);
    const approved = await cli(['resume', paused.run_id, '--trace-dir', traces, '--approve']);
    expect(approved.code).toBe(0);
    expect(JSON.parse(approved.stdout).react.final_answer).toBe('ok');
  });
});

describe('--help and serve', () => {
  for (const command of ['run', 'resume', 'validate', 'serve', 'probe', 'bench']) {
    it(`${command} --help prints its usage and exits 0`, async () => {
      const result = await cli([command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^tea-edge ${command}`));
      expect(result.stderr).toBe('');
    });
  }

  it('bench --help does not start the benchmark', async () => {
    const result = await cli(['bench', 'engine', '-h']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/^benchmark\s+value/m);
  });

  it('serve --agents with a missing folder is a usage error', async () => {
    const result = await cli(['serve', '--agents', path.join(tmpdir(), 'no-such-folder-4711'), '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--agents .*no such folder/);
  });

  it('serve --agents with broken agents prints every problem of every file and serves the rest', {
    timeout: 30_000,
  }, async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'tea-trap-agents-'));
    writeFileSync(path.join(folder, 'first.yaml'), 'name: first\nnodes:\n  - name: x\n    uses: llm.cal\n');
    writeFileSync(path.join(folder, 'second.yaml'), 'name: second\nnodes:\n  - name: y\n    uses: json.pars\n');
    writeFileSync(path.join(folder, 'third.yaml'), 'name: third\nnodes:\n  - name: z\n    run: return {ok = true}\n');
    const server = await startServe(['--agents', folder, '--port', '0', '--trace-dir', traceDir()]);
    close = async () => {
      server.child.kill('SIGTERM');
      await server.outcome;
    };
    const listed = (await (await fetch(`${server.url}/agents`)).json()) as Array<{ name: string; status: string }>;
    expect(listed.map((agent) => `${agent.name} ${agent.status}`)).toEqual([
      'first invalid',
      'second invalid',
      'third ready',
    ]);
    server.child.kill('SIGTERM');
    const { code, stderr } = await server.outcome;
    close = undefined;
    expect(code).toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      /^tea-edge serve: 2 agent files in .* do not load and are not served \(GET \/agents lists them as invalid\):$/,
    );
    expect(lines.find((line) => /first\.yaml:4:\d+ UNKNOWN_ACTION .*llm\.call/.test(line))).toBeDefined();
    expect(lines.find((line) => /second\.yaml:4:\d+ UNKNOWN_ACTION .*json\.parse/.test(line))).toBeDefined();
    expect(lines.at(-1)).toMatch(/^tea-edge serving on http:/);
  });

  it('a busy port says so and suggests --port', { timeout: 30_000 }, async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    close = () => new Promise((resolve) => blocker.close(() => resolve()));
    const { port } = blocker.address() as { port: number };
    const result = await cli(['serve', '--port', String(port), '--agents', 'tests/agents']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`port ${port} .*already in use.*--port`));
  });
});
