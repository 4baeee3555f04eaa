/** SWI's dict predicates over the JSON objects state/2 gives (src/prolog/swi-dicts.ts). */
import { describe, expect, it } from 'vitest';
import { compilePrologChunk } from '../../src/prolog/compile-prolog.js';

const solve = (code: string, state: Record<string, unknown>) => compilePrologChunk(code).solve({ state }).returns;

describe('is_dict/1, get_dict/3, dict_pairs/3', () => {
  it('read a JSON object from the state as SWI reads a dict', () => {
    const state = { sensor: { distance: 12, lidar: true, tags: ['a', 'b'], nested: { level: 2 } }, list: [1, 2] };
    expect(
      solve(
        [
          'state(sensor, S), is_dict(S), return(is_dict, yes).',
          'state(list, L), ( is_dict(L) -> return(list_is_dict, yes) ; return(list_is_dict, no) ).',
          'state(sensor, S2), get_dict(distance, S2, D), get_dict(nested, S2, N), get_dict(level, N, Level), return(values, [D, Level]).',
          'state(sensor, S3), ( get_dict(missing, S3, _) -> return(missing, found) ; return(missing, none) ).',
          'state(sensor, S4), findall(K, get_dict(K, S4, _), Keys), return(keys, Keys).',
          'state(sensor, S5), dict_pairs(S5, _, Pairs), findall(K2, member(K2-_, Pairs), Sorted), return(sorted, Sorted).',
        ].join('\n'),
        state,
      ),
    ).toEqual({
      is_dict: 'yes',
      list_is_dict: 'no',
      values: [12, 2],
      missing: 'none',
      keys: ['distance', 'lidar', 'tags', 'nested'],
      sorted: ['distance', 'lidar', 'nested', 'tags'],
    });
  });

  it('get_dict on something that is not a dict is type_error(dict, _)', () => {
    expect(solve('catch(get_dict(a, [1], _), error(E, _), true), return(e, E).', {}).e).toBe('type_error(dict,[1])');
  });
});
