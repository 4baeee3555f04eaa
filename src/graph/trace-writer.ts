/**
 * The run's side of the trace store: events are buffered within the per-run trace cap (10,000
 * events / 8 MiB, see src/events/redact.ts) and appended in batches; the run record is written at
 * the start and the end. The storage-failure policy lives here: the first failure is remembered,
 * no more events are written (a trace with a hole is worse than a short one), the run that could
 * not be stored never reports success (`failRunIfBroken`), and its final record is still tried
 * once (`putFinalRecord`): a record left `running` would say the run goes on when it has ended.
 */
import { type AgentError, toAgentError } from '../core/agent-error.js';
import type { AgentEvent } from '../core/events.js';
import { createRunEventCap } from '../events/redact.js';
import { freezeJson, sealFrozenList } from '../util/frozen-json.js';
import type { RunRecord, TraceStore } from '../core/trace-store.js';
import type { RunResult } from './run-types.js';

/** Buffered events are appended in batches of at least this many (and at the end). */
const PERSIST_BATCH = 64;

export class TraceWriter {
  private pending: AgentEvent[] = [];
  private readonly cap = createRunEventCap();
  private failure: AgentError | undefined;

  constructor(
    private readonly store: TraceStore | undefined,
    private readonly runId: string,
  ) {}

  /** Buffers an event (already numbered, sanitised and frozen: RunEvents) within the trace cap. */
  keep(event: AgentEvent, bytes: number): void {
    if (this.store === undefined) return;
    const kept = this.cap.admit(event, bytes);
    if (kept === undefined) return;
    // The cap's truncation notice is its own new event: frozen like the others.
    this.pending.push(kept === event ? event : freezeJson(kept));
  }

  /** True when enough events wait for a batch write. */
  get due(): boolean {
    return this.pending.length >= PERSIST_BATCH;
  }

  /** Appends the buffered events; a failure is remembered and fails the run. */
  async persist(): Promise<void> {
    if (this.store === undefined || this.pending.length === 0 || this.failure !== undefined) return;
    // Every buffered event is frozen, so the batch is sealed: a store may keep it by reference.
    const batch = sealFrozenList(this.pending) as AgentEvent[];
    this.pending = [];
    await this.attempt(() => this.store!.appendEvents(this.runId, batch));
  }

  async putRecord(record: RunRecord): Promise<void> {
    await this.attempt(() => this.store!.putRun(record));
  }

  /**
   * The record of the run's end, tried even after an earlier failure (a full disk may have room for
   * one small file again; a batch that failed does not make the record wrong). A failure here is
   * remembered like any other, so the host learns the record is not durable from the result.
   */
  async putFinalRecord(record: RunRecord): Promise<void> {
    if (this.store === undefined) return;
    try {
      await this.store.putRun(record);
    } catch (error) {
      this.failure ??= toAgentError(error, 'STORAGE_ERROR');
    }
  }

  /** Asks the store to make what it has durable (stores that buffer writes). */
  async flush(): Promise<void> {
    await this.attempt(() => this.store!.flush(this.runId));
  }

  /** Records a failure of another store of the run (the checkpoint store); the first one wins. */
  noteFailure(error: unknown): void {
    this.failure ??= toAgentError(error, 'STORAGE_ERROR');
  }

  /**
   * A run whose trace or checkpoint could not be stored never reports success: the result becomes
   * failed with the STORAGE_ERROR (the run's own error, if any, kept in its details). True when
   * the result was changed.
   */
  failRunIfBroken(result: RunResult): boolean {
    const failure = this.failure;
    if (failure === undefined || result.error?.code === 'STORAGE_ERROR') return false;
    const runError = result.error;
    result.status = 'failed';
    result.stop_reason = 'error';
    result.error = {
      ...failure.toJSON(),
      ...(runError !== undefined ? { details: { ...failure.details, run_error: runError } } : {}),
    };
    delete result.interrupt;
    return true;
  }

  private async attempt(write: () => Promise<void>): Promise<void> {
    if (this.store === undefined || this.failure !== undefined) return;
    try {
      await write();
    } catch (error) {
      this.failure = toAgentError(error, 'STORAGE_ERROR');
    }
  }
}
