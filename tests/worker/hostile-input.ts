/**
 * The hostile and the honest input for tests/worker/hostile-agents/hostile-input.yaml, shared by
 * the Node (`tea-edge serve`) and workerd tests of issue 12 point 4.
 */
export const HOSTILE_INPUT = {
  code: `${'a'.repeat(5000)}!`,
  csv: ','.repeat(20_000),
  words: `${'word '.repeat(4000)}!`,
  letters: `${'é '.repeat(10_000)}1`,
  site: `http://${'a'.repeat(3000)}${'-'.repeat(3000)}`,
  mail: `${'a'.repeat(60)}@${'a-'.repeat(10_000)}`,
  tags: { [`${'a'.repeat(5000)}b`]: 1, [`${'a'.repeat(5000)}`]: 'not an integer' },
  colours: [...Array.from({ length: 1500 }, (_, index) => `c${index}`), 'c7'],
};

/** Every field of HOSTILE_INPUT is wrong; each must be named in the error. */
export const HOSTILE_PATHS = ['/code', '/csv', '/words', '/letters', '/site', '/mail', '/tags', '/colours'];

export const HONEST_INPUT = {
  code: 'aaa',
  csv: ',,,,,x',
  words: 'two words',
  letters: 'é a',
  site: 'https://example.com/x',
  mail: 'a@example.com',
  tags: { aa: 1 },
  colours: ['c1', 'c2'],
};
