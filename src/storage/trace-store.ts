/**
 * The TraceStore and CheckpointStore seams live in the contracts layer (src/core/trace-store.ts).
 * This module re-exports them for the code that imported them from here.
 */
export type * from '../core/trace-store.js';
