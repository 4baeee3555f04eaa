/** The README's tour agent runs as the README says. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgent, runAgent } from '../../src/index.js';

const README = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

describe('README', () => {
  it('the five-minute tour agent self-corrects with the scripted model', async () => {
    const yaml = /```yaml\n(name: product-card[\s\S]*?)```/.exec(README)?.[1];
    expect(yaml).toBeDefined();
    const result = await runAgent(loadAgent(yaml!, { file: 'card.yaml' }), { product: 'a kettle' }).result;
    expect(result.status).toBe('completed');
    const card = result.state.card as { valid: boolean; iterations: number; output: unknown };
    expect(card.valid).toBe(true);
    expect(card.iterations).toBe(2);
    expect(card.output).toEqual({ name: 'Kettle', price: 39.5 });
  });

  it('names the two commands', () => {
    expect(README).toContain('npm ci && npm start');
    expect(README).toContain('npm ci && npm test');
  });
});
