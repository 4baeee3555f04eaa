/**
 * Which agent's graph the run view draws: the editor's (its latest validation), or the graph of a
 * run opened from history, of a server agent or of a server run, which stays until the editor's
 * text changes. Validations answer out of order (the engine worker may still be starting), so an
 * older answer never replaces the graph a newer request asked for; the editor re-validating the
 * same text (when it finishes loading) is not a change. A run opened from history asks for its
 * own agent's graph: drawn if that run is still the one shown (nothing opened, started or pinned
 * since) and the editor's text has not changed (it used to lose to a newer request and leave
 * whatever was drawn before, at random after a reload).
 */
import type { AgentGraph } from './agent-graph.js';
import type { Validation } from './engine-client.js';

export interface GraphPin {
  /** Validates the editor's text through the engine, remembering whether it is the latest request. */
  validate(text: string): Promise<Validation>;
  /** Whether a validation answers the latest request (an older one is ignored). */
  isLatest(result: Validation): boolean;
  /** Draws a validation's graph, unless a pinned graph is still the one meant. */
  showValidated(result: Validation): void;
  /** Keeps what is drawn until the editor's text changes (a run on a server). */
  pin(): void;
  /** Draws `graph` and keeps it until the editor's text changes (a server agent). */
  pinGraph(graph: AgentGraph | undefined): void;
  /** Follows the editor again (a run of the editor's text, a switch back to the tab). */
  unpin(): void;
  /** A run opened from history: its agent's graph when its file is known. */
  openFromHistory(source: string | undefined): void;
}

export function createGraphPin(options: {
  validate(text: string): Promise<Validation>;
  setGraph(graph: AgentGraph | undefined): void;
  editorText(): string;
}): GraphPin {
  let request = 0;
  const latest = new WeakMap<object, boolean>();
  // The editor's text when a graph was pinned (undefined: the editor's graph is drawn).
  let pinnedTo: string | undefined;
  let shown = 0;
  const stillPinned = () => pinnedTo !== undefined && options.editorText() === pinnedTo;
  const pin = () => {
    pinnedTo = options.editorText();
    shown++;
  };
  return {
    validate: (text) => {
      const mine = ++request;
      return options.validate(text).then((result) => {
        latest.set(result, mine === request);
        return result;
      });
    },
    isLatest: (result) => latest.get(result) !== false,
    showValidated(result) {
      if (stillPinned()) return;
      pinnedTo = undefined;
      options.setGraph(result.graph);
    },
    pin,
    pinGraph(graph) {
      pin();
      options.setGraph(graph);
    },
    unpin() {
      pinnedTo = undefined;
      shown++;
    },
    openFromHistory(source) {
      const opened = ++shown;
      if (source === undefined) return;
      pinnedTo = options.editorText();
      void options.validate(source).then((result) => {
        if (opened === shown && stillPinned()) options.setGraph(result.graph);
      });
    },
  };
}
