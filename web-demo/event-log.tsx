/**
 * The raw events of a run in a <details> (closed at first; it stays as the user leaves it while
 * the run streams).
 */
import type { AgentEvent } from '../src/core/events.js';
import { memo } from './memo.js';
import { VirtualList } from './virtual-list.js';

export function EventLog({ events }: { events: AgentEvent[] }) {
  return (
    <details class="event-log" id="event-log">
      <summary>{`Events (${events.length})`}</summary>
      <EventList events={events} count={events.length} />
    </details>
  );
}

/**
 * The raw events, one line each (windowed past a few hundred: a long run's 10,000 rows are not
 * all drawn). `count` is passed because the array is appended in place: the list re-renders when
 * it grew, and each row (memoised by its event) is created once.
 */
const EventList = memo(function EventList({ events }: { events: AgentEvent[]; count: number }) {
  return <VirtualList id="event-list" class="events" label="Events of the run" count={events.length} rowHeight={EVENT_ROW_PX} height={320} row={(index) => <EventRow key={events[index]!.seq} event={events[index]!} />} />;
});

/** The height of an event row (styles.css gives `.events li` this height). */
const EVENT_ROW_PX = 21;

const EventRow = memo(function EventRow({ event }: { event: AgentEvent }) {
  return (
    <li data-seq={event.seq}>
      <code>{`#${event.seq}`}</code> <b>{event.type}</b>
      {event.node ? <> <code>{event.node}</code></> : null} <span class="muted">{event.ts.slice(11, 23)}</span>
    </li>
  );
});
