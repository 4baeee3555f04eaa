/** A diff drawn for reading: line by line, or inline for words (reflection candidates, agent files). */
import type { DiffLine } from './diff.js';

/** A diff, line by line (or inline for words), with + and − marks that do not rely on colour. */
export function DiffView({ lines, label, inline = false }: { lines: DiffLine[]; label: string; inline?: boolean }) {
  const changed = lines.some((line) => line.kind !== 'same');
  if (inline) {
    return (
      <div class="diff" role="group" aria-label={label}>
        <p class="inline-diff">
          {lines.map((line, index) =>
            line.kind === 'same' ? line.text : line.kind === 'added' ? <ins key={index} class="diff-line added">{line.text}</ins> : <del key={index} class="diff-line removed">{line.text}</del>,
          )}
        </p>
      </div>
    );
  }
  return (
    <div class="diff" role="group" aria-label={label}>
      <p class="note">{changed ? label : `${label}: none`}</p>
      <pre class="diff-lines" tabindex={0}>
        {lines.map((line, index) => (
          <span key={index} class={`diff-line ${line.kind}`}>{`${line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '− ' : '  '}${line.text}`}</span>
        ))}
      </pre>
    </div>
  );
}

/** A word diff: words and the spaces between them as diff units. */
