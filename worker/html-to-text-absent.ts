/**
 * What a worker bundle has in place of src/tools/html-to-text.ts when none of its agents names
 * `web.scrape` (build/targets/30-worker.mjs, OPTIONAL_MODULES): the HTML reader is left out, and a
 * `web.scrape` of an agent a host adds later fails with a typed error instead of a missing module.
 */
import { AgentError } from '../src/core/agent-error.js';

export function htmlToReadable(): never {
  throw new AgentError(
    'FORBIDDEN',
    "this worker was built without web.scrape's HTML reader (none of its bundled agents names web.scrape), so a page cannot be read",
    { details: { feature: 'web.scrape' } },
  );
}
