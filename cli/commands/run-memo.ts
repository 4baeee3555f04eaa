/**
 * What the CLI keeps beside a run in the trace directory, so `tea-edge resume` in a later process
 * runs the same agent file against the same model endpoint: `<trace-dir>/cli/<run-id>.json` =
 * `{agent_file, llm?: {api_base?, model?, provider?}, record?}`. The API key is never written.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentError, type LlmOverrides } from '../../src/host.js';

export interface RunMemo {
  agent_file: string;
  llm?: Omit<LlmOverrides, 'api_key'>;
  record?: boolean;
}

function memoPath(traceDir: string, runId: string): string {
  return path.join(traceDir, 'cli', `${encodeURIComponent(runId)}.json`);
}

export async function writeRunMemo(traceDir: string, runId: string, memo: RunMemo): Promise<void> {
  const { api_base, model, provider } = memo.llm ?? {};
  const llm = {
    ...(api_base !== undefined ? { api_base } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(provider !== undefined ? { provider } : {}),
  };
  const kept: RunMemo = {
    agent_file: memo.agent_file,
    ...(Object.keys(llm).length > 0 ? { llm } : {}),
    ...(memo.record === true ? { record: true } : {}),
  };
  const file = memoPath(traceDir, runId);
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, JSON.stringify(kept));
  } catch (error) {
    throw new AgentError(
      'STORAGE_ERROR',
      `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** The memo of a run, or undefined when this trace directory has none for it. */
export async function readRunMemo(traceDir: string, runId: string): Promise<RunMemo | undefined> {
  let text: string;
  try {
    text = await readFile(memoPath(traceDir, runId), 'utf8');
  } catch {
    return undefined;
  }
  const value = JSON.parse(text) as Partial<RunMemo>;
  if (typeof value.agent_file !== 'string') return undefined;
  const memo: RunMemo = { agent_file: value.agent_file };
  const llm: Omit<LlmOverrides, 'api_key'> = {};
  for (const key of ['api_base', 'model', 'provider'] as const) {
    const field = value.llm?.[key];
    if (typeof field === 'string' && field !== '') llm[key] = field;
  }
  if (Object.keys(llm).length > 0) memo.llm = llm;
  if (value.record === true) memo.record = true;
  return memo;
}
