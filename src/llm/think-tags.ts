/**
 * The one place `<think>…</think>` is taken out of a model's answer (reasoning models that write
 * their thinking into `content`: Ollama before 0.9 with deepseek-r1 or qwen3, llama.cpp with
 * `--reasoning-format none`). Used for streamed and whole responses and by the JSON and ReAct
 * parsers alike, so every action sees the same answer and the same reasoning.
 *
 * Rules: each `<think>…</think>` block is reasoning; a `</think>` with no opening tag (chat
 * templates that open the tag in the prompt) makes everything before it reasoning; an opening tag
 * never closed makes the rest reasoning. Tags match in any case. Whitespace that only separated
 * thinking from the answer is dropped. Text without tags comes back unchanged.
 */

const OPEN = '<think>';
const CLOSE = '</think>';

/** The answer and the reasoning (trimmed blocks joined by a blank line; undefined when none). */
export interface ThinkingSplit {
  answer: string;
  reasoning?: string;
}

/** What one piece of streamed text added to the answer and to the reasoning. */
export interface ThinkingDelta {
  answer: string;
  reasoning: string;
}

export interface ThinkTagSplitter {
  /** Takes the next piece of text; holds back a partial tag at its end. */
  push(text: string): ThinkingDelta;
  /** Ends the text: releases what was held back (an unclosed block is reasoning). */
  finish(): ThinkingDelta;
  /**
   * The whole split. Equal to the answer deltas joined, except after a `</think>` with no opening
   * tag: the answer text streamed before it is moved to the reasoning here (it was delivered as
   * answer before the tag could be seen).
   */
  result(): ThinkingSplit;
}

/**
 * Splits a whole text.
 * @example
 * splitThinking('<think>2+2 is 4</think>\n\nFour.'); // { answer: 'Four.', reasoning: '2+2 is 4' }
 */
export function splitThinking(text: string): ThinkingSplit {
  const lower = text.toLowerCase();
  if (!lower.includes(OPEN) && !lower.includes(CLOSE)) return { answer: text };
  const splitter = createThinkTagSplitter();
  splitter.push(text);
  splitter.finish();
  return splitter.result();
}

/** Creates a splitter for one streamed text. */
export function createThinkTagSplitter(): ThinkTagSplitter {
  let thinking = false;
  let pending = '';
  let answer = '';
  let block = '';
  const blocks: string[] = [];
  let tagSeen = false;
  // At the start and after a tag, whitespace waits: dropped when a tag follows it.
  let atAnswerStart = true;
  let heldSpace = '';

  function addAnswer(text: string, out: ThinkingDelta): void {
    if (text === '') return;
    if (atAnswerStart) {
      const firstVisible = text.search(/\S/);
      if (firstVisible < 0) {
        heldSpace += text;
        return;
      }
      text = tagSeen ? text.slice(firstVisible) : heldSpace + text;
      heldSpace = '';
      atAnswerStart = false;
    }
    answer += text;
    out.answer += text;
  }

  function addReasoning(text: string, out: ThinkingDelta): void {
    block += text;
    out.reasoning += text;
  }

  function endBlock(): void {
    if (block.trim() !== '') blocks.push(block.trim());
    block = '';
  }

  function scan(text: string, final: boolean): ThinkingDelta {
    const out: ThinkingDelta = { answer: '', reasoning: '' };
    let rest = pending + text;
    pending = '';
    for (;;) {
      const lower = rest.toLowerCase();
      if (thinking) {
        const close = lower.indexOf(CLOSE);
        if (close < 0) {
          const keep = final ? 0 : partialTagLength(lower, [CLOSE]);
          addReasoning(rest.slice(0, rest.length - keep), out);
          pending = rest.slice(rest.length - keep);
          if (final) endBlock();
          return out;
        }
        addReasoning(rest.slice(0, close), out);
        endBlock();
        thinking = false;
        atAnswerStart = true;
        rest = rest.slice(close + CLOSE.length);
        continue;
      }
      const open = lower.indexOf(OPEN);
      const close = lower.indexOf(CLOSE);
      if (open < 0 && close < 0) {
        const keep = final ? 0 : partialTagLength(lower, [OPEN, CLOSE]);
        addAnswer(rest.slice(0, rest.length - keep), out);
        pending = rest.slice(rest.length - keep);
        if (final && !tagSeen && heldSpace !== '') {
          answer += heldSpace;
          out.answer += heldSpace;
          heldSpace = '';
        }
        return out;
      }
      const opening = open >= 0 && (close < 0 || open < close);
      const at = opening ? open : close;
      addAnswer(rest.slice(0, at), out);
      tagSeen = true;
      heldSpace = '';
      atAnswerStart = true;
      if (opening) {
        thinking = true;
        rest = rest.slice(at + OPEN.length);
      } else {
        // A closing tag without its opening: what came before was thinking.
        if (answer.trim() !== '') blocks.push(answer.trim());
        answer = '';
        rest = rest.slice(at + CLOSE.length);
      }
    }
  }

  return {
    push: (text) => scan(text, false),
    finish: () => scan('', true),
    result() {
      const split: ThinkingSplit = { answer };
      if (blocks.length > 0) split.reasoning = blocks.join('\n\n');
      return split;
    },
  };
}

/** The length of the longest tag prefix `lower` ends with (0 when none): held until the next piece. */
function partialTagLength(lower: string, tags: readonly string[]): number {
  for (let length = Math.min(lower.length, CLOSE.length - 1); length > 0; length--) {
    const tail = lower.slice(lower.length - length);
    if (tags.some((tag) => tag.startsWith(tail))) return length;
  }
  return 0;
}

/** Reasoning from several sources (a `reasoning_content` field, think tags), joined; undefined when none. */
export function joinReasoning(...parts: (string | undefined)[]): string | undefined {
  const kept = parts.map((part) => part?.trim() ?? '').filter((part) => part !== '');
  return kept.length === 0 ? undefined : kept.join('\n\n');
}
