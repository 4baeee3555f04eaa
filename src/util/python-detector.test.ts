import { describe, expect, it } from 'vitest';
import { foreignLanguageOf } from './python-detector.js';

describe('foreignLanguageOf', () => {
  it('a Python block holding ":-" in a string is Python, not Prolog (TEA safety/human-teaching.yaml)', () => {
    const python =
      'import json\nrule = state.get("rule", "")\nrule_valid = ":-" in rule or rule.endswith(".")\nreturn {"ok": rule_valid}\n';
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

describe('foreignLanguageOf on TEA blocks once taken for Prolog', () => {
  it('a Python slice `[8:-1]` is no Prolog rule (TEA predicate-invention/classify-state.yaml)', () => {
    const python =
      'import json\nfor pred in preds:\n    if pred.startswith("holding("):\n        obj = pred[8:-1]  # Extract object\nreturn {"objects": objs}\n';
    expect(foreignLanguageOf(python)).toBe('python');
  });

  it('Prolog rules inside a triple-quoted Python string are text (TEA traffic-rules/jurisdiction-swap.yaml)', () => {
    const python =
      'jurisdiction = state["jurisdiction"]\n\nrules = """\nmust_stop :- signal(red).\nlegal(action(stop, _)) :- true.\n"""\nreturn {"rules": rules}\n';
    expect(foreignLanguageOf(python)).toBe('python');
    expect(foreignLanguageOf('x = 1  # a :- b\nif x:\n    pass\n')).toBe('python');
  });

  it('Prolog stays Prolog: CLP(FD) `#=` is no comment, and a rule body on the next line still decides', () => {
    expect(foreignLanguageOf('solve(X) :-\n    X #= 3 + 4.\n')).toBe('prolog');
    expect(foreignLanguageOf(':- use_module(library(clpfd)).\nX #= 1.\n')).toBe('prolog');
  });
});
