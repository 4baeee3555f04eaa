/**
 * TEA's `provider: shell` on the Node CLI: a model answered by a local command (claude, gemini,
 * qwen, a script…) that the host names with `--shell-provider NAME=COMMAND [ARG...]`, never the
 * agent file (its `settings.shell_providers` is not read). `shell_provider: NAME` in settings.llm
 * or on the call picks one. As TEA: the messages become one text (`System: …`, `Assistant: …`,
 * user text as is, blank lines between); an argument `{prompt}` is replaced by it, else it goes to
 * the command's stdin; the answer is the command's stdout, trimmed. No shell parses anything: the
 * command and its arguments are split on spaces once, by the host. A non-zero exit is
 * LLM_UNAVAILABLE with the end of stderr; a command past the call's timeout (default 300 s) is
 * killed, LLM_TIMEOUT. Browsers, Workers and Deno have no such provider: it is refused at load.
 */
import { spawn } from 'node:child_process';
import {
  AgentError,
  createProvider,
  type ChatMessage,
  type LlmConnection,
  type LlmRequest,
  type LlmResponse,
  type LlmStreamPart,
  type ModelProvider,
  type ModelProviderFactory,
} from '../src/host.js';

/** One host-named command: `--shell-provider claude=claude -p {prompt}`. */
export interface ShellCommand {
  name: string;
  command: string;
  args: string[];
}

const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** Reads `NAME=COMMAND [ARG...]`; throws a message for the usage line. */
export function parseShellProvider(text: string): ShellCommand {
  const match = /^([A-Za-z][\w-]*)=(.+)$/.exec(text.trim());
  const words = match === null ? [] : match[2]!.trim().split(/\s+/);
  if (match === null || words.length === 0 || words[0] === '')
    throw new Error(`--shell-provider wants NAME=COMMAND [ARG...] (e.g. claude=claude -p {prompt}), got '${text}'`);
  return { name: match[1]!.toLowerCase(), command: words[0]!, args: words.slice(1) };
}

/** TEA's text of a conversation for a command line tool (llm_actions.py `_format_messages_for_cli`). */
export function messagesAsText(messages: readonly ChatMessage[]): string {
  return messages
    .map((message) =>
      message.role === 'system'
        ? `System: ${message.content ?? ''}`
        : message.role === 'assistant'
          ? `Assistant: ${message.content ?? ''}`
          : (message.content ?? ''),
    )
    .join('\n\n');
}

/** The host's factory: `provider: shell` answered by its commands, every other provider as usual. */
export function withShellProviders(
  commands: readonly ShellCommand[],
  fallback: ModelProviderFactory = (connection) => createProvider(connection),
): ModelProviderFactory {
  const byName = new Map(commands.map((command) => [command.name, command]));
  return (connection) => {
    if (connection.provider?.trim().toLowerCase() !== 'shell') return fallback(connection);
    const name = (connection.shell_provider ?? (byName.size === 1 ? [...byName.keys()][0] : undefined))?.toLowerCase();
    const command = name === undefined ? undefined : byName.get(name);
    if (command === undefined) {
      const known = [...byName.keys()].join(', ') || 'none';
      throw new AgentError(
        'UNKNOWN_PROVIDER',
        `shell provider '${name ?? '(none named: set shell_provider)'}' is not one this host runs (its --shell-provider commands: ${known})`,
        { field: 'shell_provider' },
      );
    }
    return createShellModel(command, connection);
  };
}

export function createShellModel(command: ShellCommand, connection: LlmConnection): ModelProvider {
  const timeoutMs = connection.timeout_ms ?? 300_000;
  const generate = (request: LlmRequest, signal?: AbortSignal): Promise<LlmResponse> =>
    new Promise((resolve, reject) => {
      const prompt = messagesAsText(request.messages);
      const inArgs = command.args.some((arg) => arg.includes('{prompt}'));
      const child = spawn(
        command.command,
        command.args.map((arg) => arg.replaceAll('{prompt}', prompt)),
        { stdio: [inArgs ? 'ignore' : 'pipe', 'pipe', 'pipe'], signal },
      );
      const stdout: Buffer[] = [];
      let stdoutBytes = 0;
      let stderr = '';
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.stdout!.on('data', (chunk: Buffer) => {
        stdoutBytes += chunk.length;
        if (stdoutBytes <= MAX_OUTPUT_BYTES) stdout.push(chunk);
        else child.kill('SIGKILL');
      });
      child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
      child.stdin?.on('error', () => {}); // a command that exits without reading its stdin
      child.stdin?.end(prompt);
      const where = {
        field: 'provider',
        details: { provider: 'shell', shell_provider: command.name, retryable: false },
      };
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(
          signal?.aborted
            ? signal.reason
            : new AgentError(
                'LLM_UNAVAILABLE',
                `shell provider '${command.name}': cannot start '${command.command}': ${error.message}`,
                where,
              ),
        );
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        if (signal?.aborted) return;
        if (timedOut)
          return reject(
            new AgentError(
              'LLM_TIMEOUT',
              `shell provider '${command.name}': '${command.command}' ran past ${timeoutMs} ms and was stopped`,
              where,
            ),
          );
        if (stdoutBytes > MAX_OUTPUT_BYTES)
          return reject(
            new AgentError(
              'LLM_BAD_RESPONSE',
              `shell provider '${command.name}': the answer is above ${MAX_OUTPUT_BYTES} bytes`,
              where,
            ),
          );
        if (code !== 0)
          return reject(
            new AgentError(
              'LLM_UNAVAILABLE',
              `shell provider '${command.name}': '${command.command}' exited with ${code}${stderr.trim() !== '' ? `: ${stderr.trim()}` : ''}`,
              where,
            ),
          );
        const content = Buffer.concat(stdout).toString('utf8').trim();
        resolve({
          content,
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
          model: request.model ?? command.name,
          finish_reason: 'stop',
        });
      });
    });
  return {
    generate,
    async *stream(request, signal): AsyncGenerator<LlmStreamPart> {
      const response = await generate(request, signal);
      if (response.content !== '') yield { type: 'delta', content: response.content };
      yield { type: 'done', response };
    },
  };
}
