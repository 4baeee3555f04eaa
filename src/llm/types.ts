/**
 * The ModelProvider seam and the Chat Completions shapes that cross it live in the contracts
 * layer (src/core/model-provider.ts). This module re-exports them for the code that imported
 * them from here.
 */
export type * from '../core/model-provider.js';
