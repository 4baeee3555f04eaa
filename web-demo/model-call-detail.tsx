/**
 * One model call, readable: what it was for, its figures (tokens, time to the first token and
 * generation time when it streamed), the messages sent as a chat (system, user, assistant, tool
 * calls and tool results), the answer, and the model's reasoning kept apart, folded beside it.
 * The request and response come from payload capture: always on in the tab, a server's own
 * setting for a server run; without them the view says so and why.
 */
import { formatJson } from './dom.js';
import type { TimelineItem } from './timeline.js';

interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: unknown;
  tool_call_id?: string;
  name?: string;
}

export function ModelCallDetail({ item, duration }: { item: TimelineItem; duration: (ms: number) => string }) {
  const messages = messagesOf(item.request);
  const response = isRecord(item.response) ? item.response : undefined;
  const answer = typeof response?.content === 'string' ? response.content : undefined;
  const reasoning = typeof response?.reasoning === 'string' && response.reasoning !== '' ? response.reasoning : undefined;
  const toolCalls = response?.tool_calls;
  const times = timesOf(item, duration);
  return (
    <div class="model-call-detail" id="model-call-detail">
      <p class="note" id="model-call-figures">
        {[item.purpose ? `For: ${item.purpose}` : '', item.model ? `model ${item.model}` : '', ...times, item.reasoningChars ? `${item.reasoningChars} characters of reasoning` : ''].filter(Boolean).join(' · ')}
      </p>
      {messages === undefined && response === undefined ? (
        <p class="muted" id="timeline-no-payload">
          This run kept no request or response text: payload capture was off where it ran. Runs in this tab always keep it; a server keeps it when the agent sets settings.trace.capture_payloads: true.
        </p>
      ) : (
        <div class="call-columns">
          <div>
            <h5>{`Messages sent (${messages?.length ?? 0})`}</h5>
            <ol class="chat" id="model-call-messages">
              {(messages ?? []).map((message, index) => (
                <li key={index} class={`chat-message role-${message.role}`}>
                  <span class="chat-role">{message.role}{message.name ? ` ${message.name}` : ''}{message.tool_call_id ? ` (result of ${message.tool_call_id})` : ''}</span>
                  {message.content ? <pre class="chat-text" tabindex={0}>{message.content}</pre> : null}
                  {message.tool_calls !== undefined ? <pre class="chat-text chat-tools" tabindex={0}>{`tool calls: ${formatJson(message.tool_calls, 4000)}`}</pre> : null}
                </li>
              ))}
            </ol>
          </div>
          <div>
            <h5>Answer</h5>
            {answer !== undefined && answer !== '' ? <pre class="chat-text" id="model-call-answer" tabindex={0}>{answer}</pre> : <p class="muted">{response ? 'No text.' : 'No answer recorded.'}</p>}
            {toolCalls !== undefined ? <pre class="chat-text chat-tools" tabindex={0}>{`tool calls: ${formatJson(toolCalls, 4000)}`}</pre> : null}
            {reasoning !== undefined ? (
              <details class="reasoning" id="model-call-reasoning">
                <summary>{`Reasoning (${reasoning.length} characters, kept apart from the answer)`}</summary>
                <pre class="chat-text" tabindex={0}>{reasoning}</pre>
              </details>
            ) : null}
          </div>
        </div>
      )}
      {item.request !== undefined || item.response !== undefined ? (
        <details class="raw-payloads">
          <summary>Request and response as JSON</summary>
          <div class="payloads">
            <div>
              <h5>Request</h5>
              <pre class="tl-pre" id="timeline-request" tabindex={0}>{formatJson(item.request ?? null)}</pre>
            </div>
            <div>
              <h5>Response</h5>
              <pre class="tl-pre" id="timeline-response" tabindex={0}>{formatJson(item.response ?? null)}</pre>
            </div>
          </div>
        </details>
      ) : null}
    </div>
  );
}

/** Time to the first token and generation time for a streamed call; the whole duration otherwise. */
function timesOf(item: TimelineItem, duration: (ms: number) => string): string[] {
  if (item.end === undefined) return [];
  if (item.firstChunk === undefined) return [`took ${duration(item.end - item.start)}`];
  return [`first token after ${duration(item.firstChunk)}`, `generated in ${duration(Math.max(0, item.end - item.start - item.firstChunk))}`];
}

function messagesOf(request: unknown): ChatMessage[] | undefined {
  if (!isRecord(request) || !Array.isArray(request.messages)) return undefined;
  return request.messages.filter(isRecord).map((message) => ({
    role: typeof message.role === 'string' ? message.role : 'message',
    content: typeof message.content === 'string' ? message.content : null,
    ...(message.tool_calls !== undefined ? { tool_calls: message.tool_calls } : {}),
    ...(typeof message.tool_call_id === 'string' ? { tool_call_id: message.tool_call_id } : {}),
    ...(typeof message.name === 'string' ? { name: message.name } : {}),
  }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
