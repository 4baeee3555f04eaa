/**
 * Server mode's view of the chosen agent: its file, read-only with line numbers (when the server
 * sends it: `tea-edge serve` does), its `input_schema`, and a form for the input generated from
 * that schema (input-form.tsx). And the agent files the server does not serve because they do not
 * load, greyed, each with its problems (`file:line:column CODE message`).
 */
import { isPlainObject } from '../src/util/plain-object.js';
import { InputForm } from './input-form.js';
import type { ServerAgent, ServerLoadProblem } from './server-client.js';

/** The chosen agent as `GET /agents/:name` answers it. */
export interface AgentDetail {
  name: string;
  spec?: unknown;
  source?: string;
}

export function ServerAgentView({ agent, onInput }: { agent: AgentDetail; onInput(json: string, problems: number): void }) {
  const spec = isPlainObject(agent.spec) ? agent.spec : {};
  const schema = spec.inputSchema;
  const registry = isPlainObject(spec.schemas) ? spec.schemas : undefined;
  return (
    <div class="server-agent" id="server-agent-view" data-agent={agent.name}>
      <h3 class="sub-heading">Input</h3>
      {schema === undefined ? (
        <p class="note" id="input-form-none">This agent declares no <code>input_schema</code>: any JSON object is accepted. Write it below.</p>
      ) : (
        <>
          {isPlainObject(schema) && isPlainObject(schema.properties) ? (
            <InputForm key={agent.name} schema={schema} {...(registry ? { registry } : {})} onInput={onInput} />
          ) : (
            <p class="note" id="input-form-none">The <code>input_schema</code> lists no properties to make a form of: write the input as JSON below.</p>
          )}
          <details class="input-schema" id="server-input-schema">
            <summary>input_schema</summary>
            <pre tabindex={0}>{JSON.stringify(schema, null, 2)}</pre>
          </details>
        </>
      )}
      <h3 class="sub-heading">Agent file</h3>
      {agent.source !== undefined ? (
        <pre class="agent-file" id="server-agent-source" tabindex={0} aria-label={`The agent file of ${agent.name} (read-only)`}>
          {agent.source.replace(/\n$/, '').split('\n').map((line, index) => (
            <span class="file-line" key={index}>
              <span class="line-number" aria-hidden="true">{index + 1}</span>
              {`${line}\n`}
            </span>
          ))}
        </pre>
      ) : (
        <p class="note" id="server-agent-source-none">This server does not send its agent files (tea-edge serve does); the graph is drawn from the compiled agent.</p>
      )}
    </div>
  );
}

/** The agent files the server lists as invalid: not served, each with every problem. */
export function InvalidAgents({ agents }: { agents: readonly ServerAgent[] }) {
  if (agents.length === 0) return null;
  return (
    <section class="invalid-agents" id="server-invalid-agents" aria-labelledby="server-invalid-heading">
      <h3 class="sub-heading" id="server-invalid-heading">{`Not served: ${agents.length} agent file${agents.length === 1 ? '' : 's'} that ${agents.length === 1 ? 'does' : 'do'} not load`}</h3>
      <ul>
        {agents.map((agent) => (
          <li key={agent.name} class="invalid-agent" data-agent={agent.name}>
            <span class="name">{agent.name}</span>
            {agent.file && agent.file !== `${agent.name}.yaml` ? <> (<code>{agent.file}</code>)</> : null}
            <ul class="errors">
              {(agent.errors ?? []).map((problem, index) => (
                <li key={index}>
                  <code>{placeOf(problem, agent.file)}</code> <code>{problem.code}</code> {problem.message}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}

function placeOf(problem: ServerLoadProblem, file: string | undefined): string {
  return [problem.file ?? file ?? '?', problem.line, problem.column].filter((part) => part !== undefined).join(':');
}
