/**
 * The agent of the recorded-tool-result tests (tests/worker/durable-checkpoints.test.ts, and on
 * Deno tests/deno/deno-runs-journal.ts): `send` uses a host-registered `test.send_twice`, which
 * calls a side-effecting tool twice; `prepare` and `finish` frame it.
 */
export const JOURNAL_AGENT = `
name: journal
nodes:
  - name: prepare
    run: |
      return { n = 1 }
  - name: send
    uses: test.send_twice
  - name: finish
    run: |
      return { finished = true }
`;
