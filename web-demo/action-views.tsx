/**
 * A view per reasoning action, read from the node updates in the run's events (what the action
 * returned): reflection attempts side by side with the changes between successive candidates,
 * chain-of-thought thinking and answer, self-correct rounds with what changed, the decompose
 * sub-problem tree with each answer, and every streamed model output. (ReAct steps and the live
 * reflection verdicts are in run-sections.tsx.)
 */
import type { AgentEvent } from '../src/core/events.js';
import { formatJson } from './dom.js';
import { diffLines, type DiffLine } from './diff.js';
import { DiffView } from './diff-view.js';
import type { RunSummary } from './run-summary.js';
import { isPlainObject } from '../src/util/plain-object.js';

type Found = { node: string; key: string; value: Record<string, unknown> };

/** The action results in a run's node updates, by the shape each action returns. */
export function findActions(events: readonly AgentEvent[]): { reflection: Found[]; cot: Found[]; selfCorrect: Found[]; decompose: Found[] } {
  const found = { reflection: [] as Found[], cot: [] as Found[], selfCorrect: [] as Found[], decompose: [] as Found[] };
  for (const event of events) {
    if (event.type !== 'node_end' || !isPlainObject(event.data.update)) continue;
    for (const [key, value] of Object.entries(event.data.update)) {
      if (!isPlainObject(value)) continue;
      const at = { node: event.node ?? '', key, value };
      if (Array.isArray(value.reflection_history)) found.reflection.push(at);
      else if (Array.isArray(value.improvement_history)) found.selfCorrect.push(at);
      else if (Array.isArray(value.sub_problems)) found.decompose.push(at);
      else if ('thinking' in value && 'answer' in value) found.cot.push(at);
    }
  }
  return found;
}

export function ActionViews({ summary, found }: { summary: RunSummary; found: ReturnType<typeof findActions> }) {
  const streams = summary.streams.filter((stream) => stream.text !== '');
  return (
    <>
      {found.reflection.map((at) => <Reflection key={`r-${at.node}-${at.key}`} at={at} />)}
      {found.cot.map((at) => <ChainOfThought key={`c-${at.node}-${at.key}`} at={at} />)}
      {found.selfCorrect.map((at) => <SelfCorrect key={`s-${at.node}-${at.key}`} at={at} />)}
      {found.decompose.map((at) => <Decompose key={`d-${at.node}-${at.key}`} at={at} />)}
      {streams.length > 1 ? (
        <ActionSection id="streams" title={`Streamed outputs (${streams.length} calls)`}>
          <ol class="streams" id="all-streams">
            {streams.map((stream, index) => (
              <li key={index}>
                <p class="note">{`Call ${index + 1}${stream.node ? ` in ${stream.node}` : ''} · ${stream.text.length} characters`}</p>
                <pre class="stream" tabindex={0}>{stream.text}</pre>
              </li>
            ))}
          </ol>
        </ActionSection>
      ) : null}
    </>
  );
}

function ActionSection({ id, title, children }: { id: string; title: string; children: preact.ComponentChildren }) {
  return (
    <section class={`run-section action-view action-${id}`} aria-labelledby={`heading-action-${id}`}>
      <h3 id={`heading-action-${id}`}>{title}</h3>
      {children}
    </section>
  );
}

/**
 * A reflection loop, one article per attempt: which step wrote the candidate (generator or
 * corrector), the judge's verdict and score, its feedback and suggestions, the errors, and the
 * candidate as a word diff of the one before. (While the loop runs, run-sections.tsx shows the
 * verdicts as they come; this view replaces that section once the node has ended.)
 */
function Reflection({ at }: { at: Found }) {
  const history = (at.value.reflection_history as unknown[]).filter(isPlainObject);
  return (
    <ActionSection id={`reflection-${at.node}`} title={`Reflection in ${at.node}: ${history.length} attempt${history.length === 1 ? '' : 's'}`}>
      <div class="candidates" id="reflection-candidates">
        {history.map((attempt, index) => {
          const output = typeof attempt.output === 'string' ? attempt.output : formatJson(attempt.output ?? null, 4000);
          const before = index > 0 ? history[index - 1]!.output : undefined;
          // The judge's reason comes back both as its feedback and as an error: said once.
          const errors = (Array.isArray(attempt.errors) ? attempt.errors.filter(isPlainObject) : []).filter((error) => error.message !== attempt.feedback);
          const suggestions = list(attempt.suggestions);
          const number = String(attempt.iteration ?? index + 1);
          return (
            <article key={index} class={`candidate ${attempt.valid === true ? 'valid' : 'invalid'}`} aria-label={`Attempt ${number}`}>
              <h4>{`Attempt ${number}`}{typeof attempt.source === 'string' ? ` · ${attempt.source}` : ''}</h4>
              <p class="verdict">
                <b>Judge: </b>
                <span class={`badge ${attempt.valid === true ? 'ok' : 'bad'}`}>{attempt.valid === true ? 'passed' : 'failed'}</span>
                {typeof attempt.score === 'number' ? ` score ${attempt.score.toFixed(2)}` : ''}
              </p>
              {typeof attempt.feedback === 'string' && attempt.feedback !== '' ? <p class="judge-feedback"><b>Feedback: </b>{attempt.feedback}</p> : null}
              {suggestions.length > 0 ? (
                <div class="judge-suggestions">
                  <b>Suggestions:</b>
                  <ul>{suggestions.map((suggestion, at2) => <li key={at2}>{suggestion}</li>)}</ul>
                </div>
              ) : null}
              {errors.length > 0 ? <ul class="errors">{errors.map((error, at2) => <li key={at2}>{`${typeof error.path === 'string' && error.path !== '' ? `${error.path}: ` : ''}${String(error.message ?? '')}`}</li>)}</ul> : null}
              <h5>{before === undefined ? 'Candidate' : `Candidate (changes from attempt ${index})`}</h5>
              {before === undefined ? (
                <pre class="candidate-output" tabindex={0}>{output}</pre>
              ) : typeof attempt.output === 'string' && typeof before === 'string' ? (
                // Text reads best as a word diff; structured candidates (JSON) line by line.
                <DiffView lines={diffWords(before, output)} label={`Changes from attempt ${index}`} inline />
              ) : (
                <DiffView lines={diffLines(formatJson(before ?? null, 4000), output)} label={`Changes from attempt ${index}`} />
              )}
            </article>
          );
        })}
      </div>
    </ActionSection>
  );
}

function ChainOfThought({ at }: { at: Found }) {
  return (
    <ActionSection id={`cot-${at.node}`} title={`Chain of thought in ${at.node}`}>
      <div class="cot" id="cot-view">
        <h4>Thinking{typeof at.value.thinking_format === 'string' ? ` (${at.value.thinking_format})` : ''}</h4>
        <pre class="cot-thinking" tabindex={0}>{formatJson(at.value.thinking ?? '', 8000)}</pre>
        <h4>Answer</h4>
        <pre class="cot-answer" tabindex={0}>{formatJson(at.value.answer ?? null, 4000)}</pre>
      </div>
    </ActionSection>
  );
}

function SelfCorrect({ at }: { at: Found }) {
  const rounds = (at.value.improvement_history as unknown[]).filter(isPlainObject);
  return (
    <ActionSection id={`self-correct-${at.node}`} title={`Self-correct in ${at.node}: ${rounds.length} round${rounds.length === 1 ? '' : 's'}`}>
      <ol class="rounds" id="self-correct-rounds">
        {rounds.map((round, index) => {
          const output = typeof round.output === 'string' ? round.output : formatJson(round.output ?? null, 4000);
          const before = index > 0 ? rounds[index - 1]!.output : undefined;
          const issues = [...list(round.issues_found), ...list(round.potential_issues)];
          const score = typeof round.improvement_score === 'number' ? round.improvement_score : typeof round.confidence === 'number' ? round.confidence : undefined;
          return (
            <li key={index} class="round">
              <h4>{`Round ${String(round.round ?? index)} · ${String(round.type ?? '')}`}{score !== undefined ? ` · score ${score.toFixed(2)}` : ''}</h4>
              {issues.length > 0 ? <p><b>Issues: </b>{issues.join('; ')}</p> : null}
              {list(round.suggestions).length > 0 ? <p><b>Suggestions: </b>{list(round.suggestions).join('; ')}</p> : null}
              {before === undefined ? <pre tabindex={0}>{output}</pre> : <DiffView lines={diffWords(typeof before === 'string' ? before : formatJson(before, 4000), output)} label={`What changed from round ${index - 1}`} inline />}
            </li>
          );
        })}
      </ol>
    </ActionSection>
  );
}

function Decompose({ at }: { at: Found }) {
  const problems = (at.value.sub_problems as unknown[]).filter(isPlainObject);
  const answers = Array.isArray(at.value.sub_answers) ? at.value.sub_answers.filter(isPlainObject) : [];
  const depth = new Map<unknown, number>();
  const depthOf = (problem: Record<string, unknown>, seen = new Set<unknown>()): number => {
    if (depth.has(problem.id)) return depth.get(problem.id)!;
    if (seen.has(problem.id)) return 0;
    seen.add(problem.id);
    const deps = Array.isArray(problem.dependencies) ? problem.dependencies : [];
    const value = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((id) => depthOf(problems.find((candidate) => candidate.id === id) ?? {}, seen)));
    depth.set(problem.id, value);
    return value;
  };
  return (
    <ActionSection id={`decompose-${at.node}`} title={`Decompose in ${at.node}: ${problems.length} sub-problem${problems.length === 1 ? '' : 's'}`}>
      {typeof at.value.analysis === 'string' ? <p class="note">{at.value.analysis}</p> : null}
      <ul class="tree" id="decompose-tree">
        {problems.map((problem) => {
          const answer = answers.find((candidate) => candidate.id === problem.id);
          const deps = Array.isArray(problem.dependencies) ? problem.dependencies : [];
          return (
            <li key={String(problem.id)} class="tree-item" style={{ marginLeft: `${depthOf(problem) * 1.6}em` }}>
              <p>
                <b>{`#${String(problem.id)} `}</b>
                {String(problem.description ?? '')}
                {deps.length > 0 ? <span class="muted">{` (uses ${deps.map((id) => `#${String(id)}`).join(', ')})`}</span> : null}
              </p>
              {answer ? (
                <p class="tree-answer">
                  <b>Answer: </b>
                  {formatJson(answer.answer ?? null, 2000)}
                  {typeof answer.confidence === 'number' ? <span class="muted">{` · confidence ${answer.confidence}`}</span> : null}
                  {typeof answer.reasoning === 'string' ? <span class="muted">{` · ${answer.reasoning}`}</span> : null}
                </p>
              ) : (
                <p class="muted">No answer yet.</p>
              )}
            </li>
          );
        })}
      </ul>
      {at.value.final_answer !== undefined ? (
        <p id="decompose-final">
          <b>Final answer: </b>
          {formatJson(at.value.final_answer, 4000)}
        </p>
      ) : null}
    </ActionSection>
  );
}

export function diffWords(before: string, after: string): DiffLine[] {
  const split = (text: string) => text.split(/(\s+)/).filter((part) => part !== '').join('\n');
  return diffLines(split(before), split(after));
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))) : [];
}
