/**
 * The action seam (ActionDefinition, ActionContext, ActionCompiler, pauses as values) lives in the
 * contracts layer (src/core/action.ts). This module re-exports it for the code that imported it
 * from here.
 */
export type * from '../core/action.js';
