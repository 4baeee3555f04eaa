import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createActionRegistry } from '../../src/builtins.js';
import { renderActionReference } from '../support/action-reference.js';

const FILE = new URL('../../docs/actions.md', import.meta.url);

describe('docs/actions.md', () => {
  it('is the reference the registry renders today (TEA_WRITE_DOCS=1 rewrites it)', () => {
    const actions = createActionRegistry().list();
    const rendered = renderActionReference(actions);
    if (process.env.TEA_WRITE_DOCS === '1') writeFileSync(FILE, rendered);
    expect(readFileSync(FILE, 'utf8')).toBe(rendered);
    // Every action has a section, so an action added without docs fails here.
    for (const action of actions) expect(rendered).toContain(`## ${action.name}\n`);
  });
});
