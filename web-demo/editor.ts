/**
 * The agent editor, loaded lazily (its own chunk): CodeMirror 6 with YAML highlighting, inline
 * validation from the engine worker (every `loadAgent` problem marked at its line and column as
 * you type), and key completion from the agent JSON Schema.
 */
import { basicSetup, EditorView } from 'codemirror';
import { yaml } from '@codemirror/lang-yaml';
import { linter, lintGutter } from '@codemirror/lint';
import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import agentSchema from 'virtual:agent-schema';
import { keysAt, type JsonSchemaNode } from './schema-completion.js';
import type { AgentProblem } from './protocol.js';
import { toDiagnostics } from './diagnostics.js';

export interface EditorOptions {
  parent: HTMLElement;
  text: string;
  label: string;
  /** Validates the text; the editor shows the problems inline. */
  validate(text: string): Promise<AgentProblem[]>;
  onChange(text: string): void;
}

export interface AgentEditor {
  getText(): string;
  setText(text: string): void;
  focus(): void;
}

/** Mounts CodeMirror into `parent` and returns a small handle. */
export function createEditor(options: EditorOptions): AgentEditor {
  const view = new EditorView({
    doc: options.text,
    parent: options.parent,
    extensions: [
      basicSetup,
      yaml(),
      EditorView.lineWrapping,
      lintGutter(),
      linter(
        async (current) => toDiagnostics(current.state.doc, await options.validate(current.state.doc.toString())),
        { delay: 350 },
      ),
      autocompletion({ override: [schemaKeys(agentSchema as JsonSchemaNode)] }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) options.onChange(update.state.doc.toString());
      }),
      // tabindex: the editable content is the scroller's keyboard access (axe: scrollable-region-focusable).
      EditorView.contentAttributes.of({ 'aria-label': options.label, tabindex: '0' }),
    ],
  });
  return {
    getText: () => view.state.doc.toString(),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    focus: () => view.focus(),
  };
}

function schemaKeys(schema: JsonSchemaNode) {
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/[A-Za-z_]*/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const keys = keysAt(schema, context.state.doc.toString(), context.pos);
    if (keys.length === 0) return null;
    return {
      from: word.from,
      options: keys.map(({ key, description }) => ({
        label: key,
        type: 'property',
        apply: `${key}: `,
        ...(description ? { info: description } : {}),
      })),
      validFor: /^[A-Za-z_]*$/,
    };
  };
}
