import { describe, expect, it } from 'vitest';
import { foreignLanguageOf } from './python-detector.js';

describe('foreignLanguageOf', () => {
  it('a Python block holding ":-" in a string is Python, not Prolog (TEA safety/human-teaching.yaml)', () => {
    const python = 'import json\nrule = state.get("rule", "")\nrule_valid = ":-" in rule or rule.endswith(".")\nreturn {"ok": rule_valid}\n';
    expect(foreignLanguageOf(python)).toBe('python');
    expect(foreignLanguageOf("text = 'a :- b'\nif text:\n    pass\n")).toBe('python');
  });

  it('Prolog rules and queries decide, also beside quoted atoms; the marker decides', () => {
    expect(foreignLanguageOf("label('a:-b', X) :- X = 1.\n")).toBe('prolog');
    expect(foreignLanguageOf('?- member(X, [1, 2]).')).toBe('prolog');
    expect(foreignLanguageOf('% prolog\nfoo(1).')).toBe('prolog');
    expect(foreignLanguageOf("state(name, N), return(greeting, 'hi').")).toBe('prolog');
  });

  it('neither: undefined', () => {
    expect(foreignLanguageOf('x = = 1')).toBeUndefined();
  });
});
