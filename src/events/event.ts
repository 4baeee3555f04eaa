/**
 * The event stream of a run (docs/spec.md#17-events). A run is an ordered list of events; every event has a
 * type, the run id, a per-run sequence number starting at 1, an ISO-8601 UTC timestamp with
 * milliseconds, and a data object. Events are inert JSON.
 *
 * The contract itself (the union of every event type and its fields) lives in src/core/events.ts;
 * this module re-exports it for the code that imported it from here.
 */
export { EVENT_TYPES, isTruncatedData } from '../core/events.js';
export type {
  AgentEvent,
  DoneData,
  EmitEvent,
  EmittedEvent,
  EventData,
  EventDataMap,
  EventError,
  EventOf,
  EventType,
  RunStatus,
  StopReason,
  StoredEventData,
  SubRunFrame,
  TruncatedEventData,
} from '../core/events.js';
