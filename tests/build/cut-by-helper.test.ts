/**
 * A message that quotes a value it shortens uses the one cut helper (src/util/cut-text.ts), whose
 * mark redaction knows: a value cut by hand inside a message can leave the start of a secret that
 * redaction then does not see (docs/security.md "Secrets"). Every `${value.slice(0, n)}` in shipped
 * code is either gone or listed here with why it is not a quoted value.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FOLDERS = ['src', 'cli', 'worker', 'adapters', 'web-demo'];
const HAND_CUT = /\$\{[^}]*\.(?:slice|substring|substr)\(0,/;

/** file → why its hand cut is not a value quoted into a message. */
const NOT_QUOTED_VALUES: Readonly<Record<string, string>> = {
  'src/lua/error-text.ts':
    'elides the middle of a conversion path built from the script’s own keys, after cutText cut each key',
  'src/lua/sandbox-functions.ts':
    'the print budget: the script’s own output, cut to the bytes it has left, before events are redacted whole',
  'src/llm/payload-capture.ts': 'the text is redacted with the run’s secrets before it is cut (redact, then cut)',
  'src/templates/python-time.ts': 'an ISO timestamp’s fixed-width date and time',
  'src/reflection/review/insights.ts': 'a grouping key, never shown',
  'worker/run-routes.ts': 'a run id from the URL, not a secret-bearing value',
  'worker/cloudflare/durable-routes.ts': 'a run id from the URL, not a secret-bearing value',
  'adapters/fs/safe-name.ts': 'a file name made from an id, with its hash',
  'web-demo/probe-report.ts': 'the model names a server lists',
  'web-demo/probe-diagnosis.ts': 'the tab’s own server text shown to the tab’s user, who holds the key',
  'web-demo/agent-graph.ts': 'a condition from the agent file, drawn on the graph',
  'web-demo/dom.ts': 'text shown in the tab to the user who holds the key',
  'web-demo/graph-view.ts': 'a node label from the agent file',
  'web-demo/run-flow.ts': 'a run id prefix',
};

function files(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return name === 'vendor' ? [] : files(full);
    return full.endsWith('.ts') && !full.endsWith('.test.ts') && !full.endsWith('.d.ts') ? [full] : [];
  });
}

describe('values quoted into messages', () => {
  it('are cut by the one helper, or are listed with the reason they are not quoted values', () => {
    const cutByHand = FOLDERS.flatMap((folder) => files(path.join(ROOT, folder)))
      .filter((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .some((line) => HAND_CUT.test(line)),
      )
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'));
    expect(cutByHand.filter((file) => NOT_QUOTED_VALUES[file] === undefined)).toEqual([]);
  });

  it('the list holds no file that no longer cuts by hand', () => {
    const stale = Object.keys(NOT_QUOTED_VALUES).filter((file) => {
      const full = path.join(ROOT, file);
      return (
        !existsSync(full) ||
        !readFileSync(full, 'utf8')
          .split('\n')
          .some((line) => HAND_CUT.test(line))
      );
    });
    expect(stale).toEqual([]);
  });
});
