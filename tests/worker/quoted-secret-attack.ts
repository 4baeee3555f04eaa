/**
 * The attack of issue 24 cause 3 over HTTP: a viewer token chooses how much text comes before a
 * host secret in a value an error message quotes and cuts (the test agent `quoter`, whose
 * math.calculate expression is `<pad><SEARCH_TOKEN> +`), trying every position across the cut;
 * neither the run's answer nor its stored events may hold two or more of the secret's first
 * characters.
 */
import { expect } from 'vitest';
import type { Send } from './run-access-attack.js';

/** 33 characters, as in the finding. */
export const QUOTED_SECRET = 'ZQX9wK7vJ2mN4pR6tY8uH3gF5dS1aL0cE';

export async function attackQuotedSecret(send: Send, token: string): Promise<void> {
  let cut = 0;
  for (let pad = 40; pad <= 100; pad++) {
    const answer = await send(
      'POST',
      '/agents/quoter/runs',
      JSON.stringify({ input: { pad: '-'.repeat(pad) } }),
      token,
    );
    expect(answer.json.status).toBe('failed');
    const events = await send('GET', `/runs/${answer.json.run_id}/events`, undefined, token);
    expect(events.status).toBe(200);
    const text = answer.text + events.text;
    if (JSON.stringify(answer.json).includes('…[+')) cut++;
    const leaked = [];
    for (let length = 2; length <= QUOTED_SECRET.length; length++)
      if (text.includes(QUOTED_SECRET.slice(0, length))) leaked.push(length);
    expect({ pad, leaked }).toEqual({ pad, leaked: [] });
  }
  expect(cut).toBeGreaterThan(QUOTED_SECRET.length);
}
