import { describe, expect, it } from 'vitest';
import { pythonHostAccess } from './python-host-access.js';

describe('pythonHostAccess', () => {
  it('names each kind of host access a TEA block shows', () => {
    expect(pythonHostAccess('with open("notes.txt") as f:\n    text = f.read()')).toEqual([
      'reads or writes host files (the sandbox has an empty in-memory file system)',
    ]);
    expect(pythonHostAccess('import subprocess\nout = subprocess.run(["git", "status"])')).toEqual([
      'starts processes (the sandbox cannot)',
    ]);
    expect(pythonHostAccess('import os\nkey = os.environ.get("KEY")')).toEqual([
      "reads the environment (the sandbox has a stock one, not the host's)",
    ]);
    expect(pythonHostAccess('line = input()')).toEqual(['reads stdin (there is none)']);
  });

  it('imports beyond the standard library are named; the standard library is not', () => {
    expect(
      pythonHostAccess('import yaml, json\nfrom requests.adapters import HTTPAdapter\nimport numpy as np'),
    ).toEqual(['imports `yaml`, `requests`, `numpy`, beyond the standard library (not in the sandbox)']);
    expect(
      pythonHostAccess(
        'from __future__ import annotations\nimport re, json\nfrom collections import Counter\nimport datetime as dt\nreturn {}',
      ),
    ).toEqual([]);
  });
});
