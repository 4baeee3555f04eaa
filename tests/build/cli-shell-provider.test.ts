/**
 * TEA's `provider: shell` on the Node CLI (issue 26): served only when the host names the command
 * (`--shell-provider NAME=COMMAND`), refused at load otherwise with the reason; the agent's own
 * `settings.shell_providers` is never run. Commands here are coreutils (`rev`, `echo`, `false`,
 * `sleep`), so the answers are exact.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { messagesAsText, parseShellProvider } from '../../cli/shell-model.js';
import { runCli } from '../support/run-cli.js';
import { serve } from '../../worker/node/node.js';

const folder = mkdtempSync(path.join(os.tmpdir(), 'tea-shell-'));
const AGENT = path.join(folder, 'shell-agent.yaml');
writeFileSync(
  AGENT,
  `name: shell-agent
settings:
  shell_providers:
    claude: { command: "rm", args: ["-rf", "/tmp/never"] }
nodes:
  - name: ask
    uses: llm.call
    with:
      provider: shell
      shell_provider: claude
      timeout: 1
      messages:
        - { role: system, content: "Be brief." }
        - { role: user, content: "Say hello" }
    output: answer
`,
);

describe('provider: shell on the Node CLI', () => {
  it('is refused at load without --shell-provider, saying who may enable it', async () => {
    const outcome = await runCli(['validate', '--json', AGENT]);
    expect(outcome.code).toBe(2);
    const report = JSON.parse(outcome.stdout) as { errors: Array<{ code: string; message: string }> };
    expect(report.errors.map((error) => error.code)).toEqual(['INVALID_AGENT', 'UNKNOWN_PROVIDER', 'INVALID_AGENT']);
    expect(report.errors[1]!.message).toContain(
      'only the Node CLI runs it, when its host names the command (`tea-edge run --shell-provider NAME=COMMAND`)',
    );
  });

  it("loads with --shell-provider; the agent's settings.shell_providers is a warning (an error under --strict)", async () => {
    const outcome = await runCli(['validate', '--json', AGENT, '--shell-provider', 'claude=rev']);
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout).warnings[0].message).toContain(
      '`settings.shell_providers` (an agent file never names the commands a host starts',
    );
    expect((await runCli(['validate', '--strict', AGENT, '--shell-provider', 'claude=rev'])).code).toBe(2);
  });

  it('answers with the host command: the conversation on stdin, or in place of {prompt}', async () => {
    const piped = await runCli(['run', AGENT, '--shell-provider', 'claude=rev']);
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout).answer.content).toBe('.feirb eB :metsyS\n\nolleh yaS');
    const argument = await runCli(['run', AGENT, '--shell-provider', 'claude=echo {prompt}']);
    expect(JSON.parse(argument.stdout).answer.content).toBe('System: Be brief.\n\nSay hello');
  });

  it('a failing, slow or unnamed command is a typed error', async () => {
    expect((await runCli(['run', AGENT, '--shell-provider', 'claude=false'])).stderr).toMatch(
      /^LLM_UNAVAILABLE .*'false' exited with 1/m,
    );
    expect((await runCli(['run', AGENT, '--shell-provider', 'claude=sleep 5'])).stderr).toMatch(
      /^LLM_TIMEOUT .*ran past 1000 ms/m,
    );
    expect((await runCli(['run', AGENT, '--shell-provider', 'gemini=rev'])).stderr).toMatch(
      /^UNKNOWN_PROVIDER .*shell provider 'claude' is not one this host runs \(its --shell-provider commands: gemini\)/m,
    );
  });

  it('reads NAME=COMMAND [ARG...] and formats messages as TEA does', () => {
    expect(parseShellProvider('Claude=claude -p {prompt}')).toEqual({
      name: 'claude',
      command: 'claude',
      args: ['-p', '{prompt}'],
    });
    expect(() => parseShellProvider('claude')).toThrow(/NAME=COMMAND/);
    expect(
      messagesAsText([
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
        { role: 'assistant', content: 'a' },
      ]),
    ).toBe('System: s\n\nu\n\nAssistant: a');
  });
});

describe('provider: shell under tea-edge serve', () => {
  const agents = mkdtempSync(path.join(os.tmpdir(), 'tea-shell-serve-'));
  writeFileSync(
    path.join(agents, 'shell-agent.yaml'),
    readFileSync(AGENT, 'utf8').replace(/settings:\n {2}shell_providers:\n.*\n/, ''),
  );

  it('lists an agent that uses it as invalid when serve names no command; answers with the command serve names', async () => {
    const without = await serve({
      port: 0,
      agentsDir: agents,
      traceDir: path.join(agents, '.traces'),
      webDemoDir: path.join(agents, 'no-web-demo'),
    });
    try {
      const listed = (await (await fetch(`${without.url}/agents`)).json()) as Array<{
        name: string;
        status: string;
        errors?: unknown;
      }>;
      expect(JSON.stringify(listed.filter((agent) => agent.status === 'invalid'))).toContain('UNKNOWN_PROVIDER');
      const refused = await fetch(`${without.url}/agents/shell-agent/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"input": {}}',
      });
      expect(refused.status).toBe(422);
      expect(JSON.stringify(await refused.json())).toContain('UNKNOWN_PROVIDER');
    } finally {
      await without.close();
    }
    const server = await serve({
      port: 0,
      agentsDir: agents,
      traceDir: path.join(agents, '.traces'),
      webDemoDir: path.join(agents, 'no-web-demo'),
      shellProviders: [parseShellProvider('claude=rev')],
    });
    try {
      const response = await fetch(`${server.url}/agents/shell-agent/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"input": {}}',
      });
      const answer = (await response.json()) as { status: string; state: { answer: { content: string } } };
      expect(answer.status).toBe('completed');
      expect(answer.state.answer.content).toBe('.feirb eB :metsyS\n\nolleh yaS');
    } finally {
      await server.close();
    }
  });
});
