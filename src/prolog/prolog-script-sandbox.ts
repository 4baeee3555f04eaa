/**
 * `prologSandbox`: the Prolog implementation of the ScriptSandbox seam (src/core/script-sandbox.ts),
 * on tau-prolog (engine choice and figures: docs/prolog.md). Importing this module brings in the
 * engine (about 53 KB gzipped); hosts that leave it out get SCRIPT_ENGINE_NOT_LOADED for agents
 * with Prolog. Stateless: each call builds its own session.
 */
import type { ScriptSandbox } from '../core/script-sandbox.js';
import { compilePrologChunk } from './compile-prolog.js';
import { prologBudgetFromSettings } from './prolog-budget.js';

export const prologSandbox: ScriptSandbox = Object.freeze({
  language: 'prolog',
  errorCodes: Object.freeze({ syntax: 'PROLOG_SYNTAX', runtime: 'PROLOG_ERROR', budget: 'PROLOG_BUDGET' }),
  compile: compilePrologChunk,
  budgetFromSettings: prologBudgetFromSettings,
});
