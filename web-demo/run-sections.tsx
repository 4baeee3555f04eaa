/**
 * The sections of the run view under the graph, as Preact components: model calls, streamed
 * output, reflection attempts, ReAct steps, errors, the final state and the log (the timeline,
 * the per-action views and the raw events come from the lazy studio-views chunk).
 * The whole tree is re-rendered from the (mutated) summary once per animation frame; Preact
 * patches only the DOM that changed, so an open `<details>`, a scroll position or a selection
 * survives a streaming run.
 */
import type { ComponentChildren } from 'preact';
import { formatJson } from './dom.js';
import { ModelCalls } from './model-calls-view.js';
import type { RunSummary } from './run-summary.js';

export function RunSections({ summary, extra, tail, hideAttempts = false }: { summary: RunSummary; extra?: ComponentChildren; tail?: ComponentChildren; hideAttempts?: boolean }) {
  const streams = summary.streams.filter((stream) => stream.text !== '');
  const last = streams[streams.length - 1];
  const calls = <ModelCalls summary={summary} />;
  return (
    <>
      {summary.calls.some((call) => call.state !== 'answered' || call.retries.length > 0) ? <Section title="Model calls" id="calls">{calls}</Section> : null}
      {extra}
      {last ? (
        <Section title="Model output" id="stream">
          <pre class="stream" id="stream-text" tabindex={0}>
            {last.text}
            {summary.status === 'running' ? <span class="cursor" aria-hidden="true">▍</span> : null}
          </pre>
        </Section>
      ) : null}
      {summary.attempts.length > 0 && !hideAttempts ? (
        <Section title="Reflection attempts" id="attempts">
          <div class="attempts" id="attempts">
            {summary.attempts.map((attempt, index) => (
              <article key={index} class={`attempt ${attempt.valid ? 'valid' : 'invalid'}`} aria-label={`Attempt ${attempt.iteration}`}>
                <h4>{`Attempt ${attempt.iteration}`}</h4>
                <p>
                  <span class={`badge ${attempt.valid ? 'ok' : 'bad'}`}>{attempt.valid === undefined ? 'no verdict' : attempt.valid ? 'valid' : 'invalid'}</span>
                  {` score ${attempt.score === undefined ? '–' : attempt.score.toFixed(2)}`}
                </p>
                {attempt.errors.length > 0 ? (
                  <ul class="errors">{attempt.errors.map((error, at) => <li key={at}>{error}</li>)}</ul>
                ) : (
                  <p class="muted">no errors</p>
                )}
              </article>
            ))}
          </div>
        </Section>
      ) : null}
      {summary.steps.length > 0 ? (
        <Section title="Reasoning steps" id="steps">
          <ol class="steps" id="react-steps">
            {summary.steps.map((step, index) => (
              <li key={index}>
                {step.thought ? <p><b>Thought: </b>{step.thought}</p> : null}
                {step.tool ? <p><b>Tool: </b><code>{step.tool}</code>{step.autonomous ? ' (ran automatically)' : ''}</p> : null}
                {step.args !== undefined ? <p><b>Arguments: </b><code>{formatJson(step.args, 2000)}</code></p> : null}
                {step.observation !== undefined ? <p><b>Observation: </b><code>{formatJson(step.observation, 2000)}</code></p> : null}
                {step.answer !== undefined ? <p><b>Answer: </b>{formatJson(step.answer, 4000)}</p> : null}
              </li>
            ))}
          </ol>
        </Section>
      ) : null}
      {summary.errors.length > 0 ? (
        <Section title="Errors" id="errors">
          <ul class="errors" id="run-errors">
            {summary.errors.map((error, index) => (
              <li key={index}>
                <code>{error.code}</code>
                {error.node ? ` at ${error.node}: ` : ': '}
                {error.message}
              </li>
            ))}
          </ul>
        </Section>
      ) : null}
      {summary.final_state ? (
        <Section title="Final state" id="state">
          <pre class="state" id="final-state" tabindex={0}>{formatJson(summary.final_state)}</pre>
        </Section>
      ) : null}
      {summary.logs.length > 0 ? (
        <details class="logs" id="run-log">
          <summary>{`Log (${summary.logs.length})`}</summary>
          <pre tabindex={0}>{summary.logs.join('\n')}</pre>
        </details>
      ) : null}
      {tail}
    </>
  );
}

export function Section({ title, id, children }: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section class={`run-section section-${id}`} aria-labelledby={`heading-${id}`}>
      <h3 id={`heading-${id}`}>{title}</h3>
      {children}
    </section>
  );
}

