/**
 * Server mode: the "Run agents" switch between this tab and a tea-edge server (its URL and an
 * optional bearer token). Connected, the agent picker lists the server's agents, the graph is
 * drawn from the chosen agent's spec, its file and a form for its input are shown (with the files
 * the server does not serve, greyed with their problems), runs start on the server and are followed over SSE
 * (reconnecting from the last event), and the history lists the server's runs. Loaded after the
 * first paint. When the page is served by `tea-edge serve` with agents, it starts connected to
 * that server; "In this tab" is one click away and remembered.
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AgentEvent } from '../src/core/events.js';
import { agentGraph, type AgentGraph } from './agent-graph.js';
import type { EventSink, RemoteBackend } from './backend.js';
import type { HistorySource } from './history-panel.js';
import type { RunOutcome } from './protocol.js';
import { ServerClient, type ServerAgent } from './server-client.js';
import { InvalidAgents, ServerAgentView, type AgentDetail } from './server-agent-view.js';

export interface ServerModeHost {
  root: HTMLElement;
  storage: Storage | undefined;
  session: Storage | undefined;
  announce(message: string): void;
  /** Switches the page's back-end (undefined: this tab), its history and its agent panel. */
  useBackend(backend: RemoteBackend | undefined, history: HistorySource | undefined): void;
  setGraph(graph: AgentGraph | undefined): void;
  /** The input the chosen agent's form makes (JSON text), and how many problems it has. */
  setInput(json: string, problems: number): void;
}

const MODE_KEY = 'tea-edge.backend';
const TOKEN_KEY = 'tea-edge.server-token';

interface Saved {
  mode: 'tab' | 'server';
  url: string;
}

/** Builds the switch; connects at once when saved so, or when this page's own server has agents. */
export async function startServerMode(host: ServerModeHost): Promise<void> {
  const own = new URL('.', document.baseURI).href;
  const saved = readSaved(host.storage);
  let initial: Saved = saved ?? { mode: 'tab', url: own };
  if (!saved) {
    const client = new ServerClient(own);
    const version = await client.health(AbortSignal.timeout(3000));
    const agents = version !== undefined ? await client.agents().catch(() => []) : [];
    if (agents.length > 0) initial = { mode: 'server', url: own };
  }
  render(<BackendSwitch host={host} initial={initial} token={host.session?.getItem(TOKEN_KEY) ?? ''} />, host.root);
}

function readSaved(storage: Storage | undefined): Saved | undefined {
  try {
    const value = JSON.parse(storage?.getItem(MODE_KEY) ?? 'null') as Saved | null;
    return value && (value.mode === 'tab' || value.mode === 'server') && typeof value.url === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function BackendSwitch({ host, initial, token: initialToken }: { host: ServerModeHost; initial: Saved; token: string }) {
  const [mode, setMode] = useState(initial.mode);
  const [url, setUrl] = useState(initial.url);
  const [token, setToken] = useState(initialToken);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | undefined>();
  const [agents, setAgents] = useState<ServerAgent[]>([]);
  const [chosen, setChosen] = useState('');
  const [detail, setDetail] = useState<AgentDetail | undefined>();
  const [client, setClient] = useState<ServerClient | undefined>();
  // Each connection attempt and each switch bumps this: an answer that arrives after the user
  // switched to the tab (or connected elsewhere) is dropped, so it cannot switch the page back.
  const attempt = useRef(0);

  const connect = async (target: string, bearer: string) => {
    const mine = ++attempt.current;
    const next = new ServerClient(target, bearer);
    setStatus({ ok: true, text: `Connecting to ${target}…` });
    const version = await next.health(AbortSignal.timeout(5000));
    if (mine !== attempt.current) return;
    if (version === undefined) {
      setStatus({ ok: false, text: `No tea-edge server answered at ${target} (GET /health). Is it running, and does it allow this page's origin (cors.origins)?` });
      return;
    }
    try {
      const list = await next.agents();
      if (mine !== attempt.current) return;
      setAgents(list);
      setClient(next);
      const ready = list.filter((agent) => agent.status !== 'invalid');
      const invalid = list.length - ready.length;
      setChosen(ready[0]?.name ?? '');
      setStatus({
        ok: true,
        text: `Connected to tea-edge ${version} at ${target}: ${ready.length} agent${ready.length === 1 ? '' : 's'}${invalid > 0 ? ` (and ${invalid} file${invalid === 1 ? '' : 's'} that ${invalid === 1 ? 'does' : 'do'} not load)` : ''}. Runs use the server's model settings.`,
      });
      host.storage?.setItem(MODE_KEY, JSON.stringify({ mode: 'server', url: target } satisfies Saved));
      if (bearer) host.session?.setItem(TOKEN_KEY, bearer);
      host.announce(`Connected to the server at ${target}.`);
    } catch (error) {
      if (mine !== attempt.current) return;
      setStatus({ ok: false, text: `The server at ${target} refused the agent list: ${(error as Error).message}` });
    }
  };

  useEffect(() => {
    if (initial.mode === 'server') void connect(initial.url, initialToken);
    else host.useBackend(undefined, undefined);
  }, []);

  // The chosen agent: its graph, and the back-end that runs it.
  useEffect(() => {
    if (mode !== 'server' || !client || !chosen) return;
    host.useBackend(serverBackend(client, chosen), serverHistory(client));
    // The agent's spec may answer after a switch to the tab or to another agent: then it is
    // not this page's agent any more and is not drawn.
    let current = true;
    setDetail(undefined);
    host.setInput('{}', 0);
    void client.agent(chosen).then(
      (agent) => {
        if (!current) return;
        host.setGraph(agent.spec === undefined ? undefined : agentGraph(fileShape(agent.spec)));
        setDetail(agent);
      },
      () => current && host.setGraph(undefined),
    );
    return () => {
      current = false;
    };
  }, [mode, client, chosen]);

  const switchTo = (next: 'tab' | 'server') => {
    setMode(next);
    if (next === 'tab') {
      attempt.current++;
      host.storage?.setItem(MODE_KEY, JSON.stringify({ mode: 'tab', url } satisfies Saved));
      host.useBackend(undefined, undefined);
      host.announce('Agents now run in this tab.');
    } else if (!client) void connect(url, token);
  };

  const described = agents.find((agent) => agent.name === chosen)?.description;
  const invalid = agents.filter((agent) => agent.status === 'invalid');
  return (
    <fieldset class="backend" data-mode={mode}>
      <legend>Run agents</legend>
      <div class="row">
        <label class="inline radio">
          <input type="radio" name="backend" id="backend-tab" value="tab" checked={mode === 'tab'} onChange={() => switchTo('tab')} />
          In this tab
        </label>
        <label class="inline radio">
          <input type="radio" name="backend" id="backend-server" value="server" checked={mode === 'server'} onChange={() => switchTo('server')} />
          On a tea-edge server
        </label>
      </div>
      {mode === 'server' ? (
        <div id="server-settings">
          <div class="row">
            <label class="inline">
              URL
              <input type="url" id="server-url" value={url} onInput={(event) => setUrl(event.currentTarget.value)} />
            </label>
            <label class="inline">
              Token
              <input type="password" id="server-token" autocomplete="off" value={token} placeholder="none" onInput={(event) => setToken(event.currentTarget.value)} />
            </label>
            <button type="button" id="server-connect" onClick={() => void connect(url, token)}>Connect</button>
          </div>
          <p id="server-status" class={status?.ok === false ? 'bad-text' : 'note'} role="status">{status?.text ?? ''}</p>
          {client ? (
            <div class="field">
              <label for="server-agent">Server agent</label>
              <select id="server-agent" value={chosen} onChange={(event) => setChosen(event.currentTarget.value)}>
                {agents.map((agent) =>
                  agent.status === 'invalid' ? (
                    <option key={agent.name} value={agent.name} disabled>{`${agent.name} (does not load)`}</option>
                  ) : (
                    <option key={agent.name} value={agent.name}>{agent.name}</option>
                  ),
                )}
              </select>
              {described ? <p class="note" id="server-agent-description">{described}</p> : null}
            </div>
          ) : null}
          {client ? <InvalidAgents agents={invalid} /> : null}
          {client && detail && detail.name === chosen ? <ServerAgentView agent={detail} onInput={host.setInput} /> : null}
        </div>
      ) : null}
    </fieldset>
  );
}

/** Runs one agent of a server: start in the background, follow over SSE. */
function serverBackend(client: ServerClient, agent: string): RemoteBackend {
  /** The checkpoint of each run's latest pause seen in its events. */
  const pauses = new Map<string, string>();
  const follow = async (runId: string, after: number, onEvent: EventSink): Promise<RunOutcome> => {
    let done: AgentEvent | undefined;
    await client.follow(runId, (event) => {
      if (event.type === 'done') done = event;
      if (event.type === 'interrupt') pauses.set(runId, String(event.data.checkpoint_id));
      onEvent(runId, event);
    }, { after });
    return outcomeOf(runId, done);
  };
  return {
    label: `server agent ${agent} at ${client.base}`,
    async run(input, begin, onEvent) {
      const runId = await client.start(agent, input);
      begin(runId);
      return follow(runId, 0, onEvent);
    },
    async resume(runId, update, after, onEvent) {
      // Names the pause it answers: a second click, or another tab, cannot answer the next pause.
      const checkpointId = pauses.get(runId);
      await client.resume(runId, { ...update, ...(checkpointId !== undefined ? { checkpoint_id: checkpointId } : {}) });
      return follow(runId, after, onEvent);
    },
    follow,
    cancel(runId) {
      void client.cancel(runId).catch(() => undefined);
    },
    async runFrom(parentRunId, node, state, begin, onEvent) {
      const runId = await client.fork(parentRunId, node, state);
      begin(runId);
      await client.resume(runId, {});
      return follow(runId, 0, onEvent);
    },
  };
}

function outcomeOf(runId: string, done: AgentEvent | undefined): RunOutcome {
  if (done?.type !== 'done') return { run_id: runId, status: 'failed', stop_reason: 'error', error: { code: 'STREAM_LOST', message: 'the event stream ended without the run\'s end' } };
  const data = done.data as { status?: string; stop_reason?: string; state?: Record<string, unknown>; error?: RunOutcome['error'] };
  return { run_id: runId, status: data.status ?? 'failed', ...(data.stop_reason ? { stop_reason: data.stop_reason } : {}), ...(data.state ? { state: data.state } : {}), ...(data.error ? { error: data.error } : {}) };
}

function serverHistory(client: ServerClient): HistorySource {
  return { label: `the server at ${client.base}`, list: () => client.runs(), readEvents: (runId) => client.events(runId) };
}

/**
 * The server sends the compiled spec: node bodies as `{kind, action | code | steps}` and edges
 * with a list of targets. The graph reads the file's shape (`uses`, `run`, `steps`, one `to`).
 */
export function fileShape(spec: unknown): unknown {
  if (typeof spec !== 'object' || spec === null) return spec;
  const root = spec as { nodes?: unknown; edges?: unknown };
  const nodes = Array.isArray(root.nodes)
    ? root.nodes.map((node: Record<string, unknown>) => {
        const body = (node.body ?? {}) as { kind?: string; action?: string; code?: string; steps?: unknown };
        const shaped: Record<string, unknown> = { ...node };
        if (body.kind === 'action') shaped.uses = body.action;
        else if (body.kind === 'lua') shaped.run = body.code ?? '';
        else if (body.kind === 'steps') shaped.steps = body.steps;
        return shaped;
      })
    : root.nodes;
  const edges = Array.isArray(root.edges)
    ? root.edges.flatMap((edge: Record<string, unknown>) => (Array.isArray(edge.to) ? edge.to.map((to) => ({ ...edge, to })) : [edge]))
    : root.edges;
  return { ...root, nodes, edges };
}
