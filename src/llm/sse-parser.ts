/**
 * An incremental Server-Sent Events parser (the WHATWG event-stream format). Bytes may arrive cut
 * anywhere: inside a UTF-8 character (the streaming TextDecoder keeps the partial bytes), inside a
 * line, or between the `\r` and `\n` of a CRLF (the lone `\r` ends the line and a `\n` that opens
 * the next chunk is dropped). Comment lines (`: keep-alive`) are skipped; `data:` lines of one
 * event are joined with `\n`; an event is dispatched at a blank line.
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */

/**
 * One dispatched event: its `event:` name (default `message`), joined data and last `id:`.
 * `error` holds a non-standard `error:` field, which llama.cpp's server (before PR 16486) used
 * for a failure inside an HTTP 200 stream (tools/server/server.cpp, `server_sent_event(sink,
 * "error", …)`); an event with only that field is dispatched too.
 */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
  error?: string;
  /**
   * Lines that are no field but a JSON object: Ollama writes its error as raw JSON into a stream
   * that has already started (middleware/openai.go, `writeError`). Kept for the caller to read.
   */
  stray?: string;
}

export interface SseParser {
  /** Feeds bytes (or already decoded text); returns the events completed by them. */
  push(chunk: Uint8Array | string): SseEvent[];
  /**
   * Ends the stream: flushes the decoder and returns an event whose data lines arrived but whose
   * closing blank line did not (servers that end with `data: [DONE]` and no blank line). Whether
   * such an event is a complete response is for the caller to judge.
   */
  finish(): SseEvent[];
}

const LINE_FEED = 10;
const CARRIAGE_RETURN = 13;

/**
 * Creates a parser for one stream.
 * @example
 * const parser = createSseParser();
 * for (const event of parser.push(bytes)) console.log(event.data);
 */
export function createSseParser(): SseParser {
  const decoder = new TextDecoder('utf-8');
  let partialLine = '';
  let dropLeadingLineFeed = false;
  let dataLines: string[] = [];
  let eventName = '';
  let lastId: string | undefined;
  let hasData = false;
  let errorLines: string[] = [];
  let strayLines: string[] = [];

  function dispatch(events: SseEvent[]): void {
    if (hasData || errorLines.length > 0 || strayLines.length > 0) {
      const event: SseEvent = { event: eventName === '' ? 'message' : eventName, data: dataLines.join('\n') };
      if (lastId !== undefined) event.id = lastId;
      if (errorLines.length > 0) event.error = errorLines.join('\n');
      if (strayLines.length > 0) event.stray = strayLines.join('\n');
      events.push(event);
    }
    dataLines = [];
    errorLines = [];
    strayLines = [];
    hasData = false;
    eventName = '';
  }

  function processLine(line: string, events: SseEvent[]): void {
    if (line === '') {
      dispatch(events);
      return;
    }
    if (line.charCodeAt(0) === 58 /* ':' comment */) return;
    if (line.charCodeAt(0) === 123 /* '{' */) {
      strayLines.push(line);
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* one optional space */) value = value.slice(1);
    if (field === 'data') {
      dataLines.push(value);
      hasData = true;
    } else if (field === 'event') {
      eventName = value;
    } else if (field === 'error') {
      errorLines.push(value);
    } else if (field === 'id') {
      if (!value.includes('\u0000')) lastId = value;
    }
    // `retry:` and other fields are ignored: reconnection is not how model streams resume.
  }

  function processText(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    if (dropLeadingLineFeed && text.length > 0) {
      if (text.charCodeAt(0) === LINE_FEED) start = 1;
      dropLeadingLineFeed = false;
    }
    let lineStart = start;
    for (let index = start; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code !== LINE_FEED && code !== CARRIAGE_RETURN) continue;
      const piece = text.slice(lineStart, index);
      const line = partialLine === '' ? piece : partialLine + piece;
      partialLine = '';
      processLine(line, events);
      if (code === CARRIAGE_RETURN) {
        if (index + 1 < text.length) {
          if (text.charCodeAt(index + 1) === LINE_FEED) index++;
        } else {
          dropLeadingLineFeed = true;
        }
      }
      lineStart = index + 1;
    }
    if (lineStart < text.length) partialLine += text.slice(lineStart);
    return events;
  }

  return {
    push(chunk) {
      const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      return processText(text);
    },
    finish() {
      const events = processText(decoder.decode());
      if (partialLine !== '') {
        processLine(partialLine, events);
        partialLine = '';
      }
      dispatch(events);
      return events;
    },
  };
}
