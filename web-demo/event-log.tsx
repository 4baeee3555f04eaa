/**
 * The raw events of a run in a <details> (closed at first; it stays as the user leaves it while
 * the run streams).
 */
import type { AgentEvent } from '../src/events/event.js';
import { memo } from './memo.js';

export function EventLog({ events }: { events: AgentEvent[] }) {
  return (
    <details class="event-log" id="event-log">
      <summary>{`Events (${events.length})`}</summary>
      <EventList events={events} count={events.length} />
    </details>
  );
}

/**
 * The raw events, one line each. `count` is passed because the array is appended in place: the
 * list re-renders when it grew, and each row (memoised by its event) is created once.
 */
const EventList = memo(function EventList({ events }: { events: AgentEvent[]; count: number }) {
  return (
    <ol class="events" id="event-list" tabindex={0} aria-label="Events of the run">
      {events.map((event) => <EventRow key={event.seq} event={event} />)}
    </ol>
  );
});

const EventRow = memo(function EventRow({ event }: { event: AgentEvent }) {
  return (
    <li data-seq={event.seq}>
      <code>{`#${event.seq}`}</code> <b>{event.type}</b>
      {event.node ? <> <code>{event.node}</code></> : null} <span class="muted">{event.ts.slice(11, 23)}</span>
    </li>
  );
});
