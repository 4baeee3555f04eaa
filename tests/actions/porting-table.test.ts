/**
 * docs/porting-from-tea.md agrees with the registry and with src/actions/tea-unsupported.ts, and
 * every action TEA documents is either run by tea-edge or refused with a reason.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createActionRegistry } from '../../src/builtins.js';
import { teaUnsupportedReason } from '../../src/actions/tea-unsupported.js';
import { loadError } from '../engine/helpers.js';

const doc = readFileSync(new URL('../../docs/porting-from-tea.md', import.meta.url), 'utf8');
const registry = createActionRegistry();

/** Backticked action names in the first column of the table under `heading`. */
function firstColumnNames(heading: string): string[] {
  const section = doc.split(`### ${heading}`)[1]!.split(/\n#{2,3} /)[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!));
}

/** The actions TEA's reference lists (docs/shared/yaml-reference/actions/README.md, names only). */
const TEA_DOCUMENTED =
  `a2a.broadcast a2a.delegate a2a.discover a2a.heartbeat a2a.receive a2a.register a2a.send a2a.state.get
a2a.state.set a2a.unregister agent.coordinate agent.crewai_delegate agent.dispatch agent.parallel agent.sequential auth.get_user
auth.verify cache.get cache.invalidate cache.wrap checkpoint.load checkpoint.save code.execute code.sandbox csv.parse csv.stringify
data.create_table data.delete data.filter data.insert data.merge data.query data.update data.validate embedding.create
error.clear error.get error.has error.is_retryable error.retry error.type file.read file.write firestore.batch firestore.delete
firestore.get firestore.query firestore.set graph.query graph.store_entity graph.store_relation http.get http.post http.respond
json.parse json.stringify json.transform llamaextract.delete_agent llamaextract.extract llamaextract.get_agent
llamaextract.list_agents llamaextract.upload_agent llm.call llm.retry llm.stream llm.tools llm.chat llm.embed ltm.delete ltm.retrieve
ltm.search ltm.store memory.cloud_list memory.cloud_retrieve memory.cloud_store memory.embed memory.grep memory.retrieve
memory.sql_query memory.store memory.summarize memory.vector_search opik.healthcheck plan.decompose plan.execute plan.replan
plan.status ratelimit.wrap reason.cot reason.decompose reason.dspy.compile reason.dspy.cot reason.dspy.react reason.react
reason.self_correct reflection.correct reflection.evaluate reflection.loop retry.loop schema.merge secrets.get secrets.has
session.delete session.exists session.load session.save storage.copy storage.delete storage.exists storage.info storage.list
storage.mkdir tools.crewai tools.discover tools.langchain tools.mcp trace.end trace.log trace.start validate.extraction
validate.generate_prompt validate.input validate.schema vector.query vector.store web.ai_scrape web.crawl web.scrape web.search
state.set return core.return`.split(/\s+/);

describe('docs/porting-from-tea.md', () => {
  it('every "Supported" and "Aliases" action resolves in the registry', () => {
    const names = [...firstColumnNames('Supported'), ...firstColumnNames('Aliases')].filter(
      (name) => !name.includes('<'),
    );
    expect(names.length).toBeGreaterThan(25);
    for (const name of names) expect(registry.get(name), name).toBeDefined();
  });

  it('every "Refused" action is unknown to the registry and has a reason', () => {
    const names = firstColumnNames('Refused (load error with this reason)').filter(
      (name) => !name.startsWith('.') && !name.includes(' '),
    );
    expect(names.length).toBeGreaterThan(40);
    for (const name of names) {
      const concrete = name.endsWith('*') ? `${name.slice(0, -1)}anything` : name;
      expect(registry.get(concrete), name).toBeUndefined();
      expect(teaUnsupportedReason(concrete), name).toBeTypeOf('string');
    }
  });

  it('every action TEA documents is run by tea-edge or refused with a reason', () => {
    const unaccounted = TEA_DOCUMENTED.filter(
      (name) => registry.get(name) === undefined && teaUnsupportedReason(name) === undefined,
    );
    expect(unaccounted).toEqual([]);
  });

  it('the load error of a refused TEA action carries its reason; an unknown non-TEA name keeps the suggestion', () => {
    const refused = loadError('nodes:\n  - { name: r, uses: http.post, with: { url: a } }\n');
    expect(refused.code).toBe('UNKNOWN_ACTION');
    expect(refused.message).toContain(
      "TEA's action 'http.post' is not available in tea-edge: requests with side effects",
    );
    const aliased = loadError('nodes:\n  - { name: r, uses: actions.llm_retry }\n');
    expect(aliased.message).toContain('max_retries');
    const typo = loadError('nodes:\n  - { name: r, uses: llm.cal, with: { prompt: x } }\n');
    expect(typo.message).toContain('did you mean llm.call');
  });
});
