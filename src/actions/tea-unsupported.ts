/**
 * TEA actions tea-edge does not have, each with the reason and what to write instead. The loader's
 * UNKNOWN_ACTION message quotes it, so porting an agent says why a node cannot run, not only that
 * it cannot; docs/porting-from-tea.md prints the same table (a test keeps them in step).
 *
 * Sources: TEA's `docs/shared/yaml-reference/actions/` and the names its Python runtime registers.
 */

const PYTHON = 'it runs Python, which tea-edge never executes (use Lua `run:` or a host-registered action)';
const STORAGE =
  'it needs a storage backend tea-edge does not ship; use memory.store/memory.retrieve for run memory, or have the host register an action';
const PAID = 'it calls a paid third-party service; have the host register an action for the service you use';
const HOST = "this is the host's job in tea-edge (tea-edge serve and the host adapters), not an action";

/** Exact TEA action names → why tea-edge refuses them. */
const EXACT: ReadonlyMap<string, string> = new Map([
  ['llm.retry', 'every model call retries 429/5xx/timeouts already: set `max_retries` on llm.call or in settings.llm'],
  ['llm.similarity', 'compute it from llm.embed vectors in a Lua node (dot product / cosine)'],
  ['http.post', 'requests with side effects are not built in; the host can register an http.post with its own policy'],
  ['json.transform', 'JMESPath/JSONPath are not built in: use json.query, a template, or Lua'],
  ['json.stringify', 'use the `| tojson` filter or `json.encode` in Lua'],
  ['csv.parse', 'parse it in Lua (string.gmatch) or have the host register an action'],
  ['csv.stringify', 'build it in Lua with table.concat'],
  ['data.validate', 'use validate.schema (JSON Schema)'],
  ['data.merge', 'merge in Lua, or let two nodes write their keys (state updates merge shallowly)'],
  ['data.filter', 'filter in Lua or with a template'],
  ['embedding.create', 'use llm.embed (OpenAI-compatible /v1/embeddings)'],
  ['memory.embed', 'use llm.embed'],
  ['memory.embed_batch', 'use llm.embed with a list of texts'],
  ['memory.summarize', 'call llm.call with the text to summarise'],
  ['secrets.get', 'read `{{ secrets.NAME }}` in a template (secrets come from the host)'],
  ['secrets.has', 'test `{{ secrets.NAME is defined }}` in a template'],
  ['ratelimit.wrap', 'use settings.limits budgets (max_llm_calls, max_tokens, max_duration_ms)'],
  ['checkpoint.save', 'the engine checkpoints itself at interrupts; a run is resumed by its id'],
  ['checkpoint.load', 'the engine checkpoints itself at interrupts; a run is resumed by its id'],
  ['validate.input', 'declare `input_schema:`; the run is refused with INPUT_INVALID before any node'],
  ['http.respond', HOST],
  ['auth.verify', HOST],
  ['auth.get_user', HOST],
  ['error.respond', HOST],
  ['web.crawl', PAID + ' (TEA uses Firecrawl); web.scrape reads one page'],
  ['web.ai_scrape', PAID + ' (TEA uses ScrapeGraphAI); use web.scrape, then llm.call with a response_format'],
  ['reason.dspy.compile', 'DSPy is a Python library; reason.dspy.cot and reason.dspy.react run the native actions'],
  ['reason.dspy.optimize', 'DSPy is a Python library'],
  ['reason.dspy.export', 'DSPy is a Python library'],
  ['reason.dspy.import', 'DSPy is a Python library'],
  ['reason.dspy.list_compiled', 'DSPy is a Python library'],
  ['code.execute', PYTHON],
  ['code.sandbox', PYTHON],
  [
    'agent.coordinate',
    'leader-worker coordination is not built in; use agent.dispatch / agent.parallel nodes, or reason.decompose',
  ],
  ['agent.crewai_delegate', 'CrewAI is a Python framework'],
  [
    'core.switch',
    'routing by a node-level `edges:` map is not supported: write `goto: [{if: "{{ … }}", to: node}, {to: other}]` on the node',
  ],
  [
    'core.condition',
    'routing by a node-level `edges:` map is not supported: write `goto: [{if: "{{ … }}", to: node}, {to: other}]` on the node',
  ],
  ['notify', 'notifications need a service; have the host register an action'],
  ['text.insert_citations', 'not built in; do it in Lua'],
  ['markdown.parse', 'not built in; do it in Lua'],
  ['schema.merge', 'merge JSON Schemas in Lua or write the merged schema in `schemas:`'],
  ['opik.healthcheck', 'tea-edge records every run in its own trace store'],
]);

/** TEA action namespaces → why tea-edge refuses every action in them. */
const PREFIXES: ReadonlyArray<[string, string]> = [
  [
    'llm.local.',
    'in-process llama.cpp models do not run on edge workers; point settings.llm at an OpenAI-compatible server (llama.cpp server, Ollama, LM Studio)',
  ],
  ['auth.', HOST],
  ['csv.', 'parse or build CSV in Lua (string.gmatch, table.concat)'],
  ['ltm.', STORAGE],
  ['cache.', STORAGE],
  ['memory.cloud_', STORAGE],
  ['memory.mem0.', PAID],
  ['memory.vector_', STORAGE + ' (rank llm.embed vectors in Lua for small sets)'],
  ['memory.', STORAGE],
  ['vector.', STORAGE + ' (rank llm.embed vectors in Lua for small sets)'],
  ['graph.', STORAGE + ' (graph databases)'],
  ['neo4j.', STORAGE + ' (Neo4j)'],
  ['data.', STORAGE + ' (DuckDB tables)'],
  ['catalog.', STORAGE + ' (DuckLake catalog)'],
  ['storage.', 'there is no file system on an edge worker'],
  ['session.', HOST + ': runs are stored and resumed by id'],
  ['firestore.', STORAGE + ' (Firestore)'],
  ['a2a.', 'agent-to-agent messaging needs shared infrastructure tea-edge does not have'],
  ['plan.', 'planning actions are not built in; use reason.decompose'],
  ['learn.textgrad.', 'TextGrad is a Python library'],
  ['textgrad.', 'TextGrad is a Python library'],
  [
    'tools.',
    'tool bridges to Python ecosystems (MCP, LangChain, CrewAI) are not built in; tools are registered actions',
  ],
  ['llamaextract.', PAID + ' (LlamaExtract)'],
  ['rag.llamaindex.', 'LlamaIndex is a Python library'],
  ['academic.', PAID],
  ['github.', 'have the host register an action with its own token'],
  ['git.', 'there is no git or file system on an edge worker'],
  ['validate.', "TEA's extraction validation is not built in; use validate.schema or a reflection evaluator"],
  ['trace.', 'tea-edge records every run in its trace store'],
  ['obs.', 'tea-edge records every run in its trace store'],
  ['error.', 'use `on_error:` on the node'],
  ['semtools.', 'not built in'],
  ['context.', 'not built in'],
  ['bmad.', 'not built in'],
];

/**
 * Why tea-edge has no action `name` when TEA does, or undefined for a name TEA does not define
 * (or one tea-edge has: callers ask only after the registry found nothing).
 * @example teaUnsupportedReason('file.read') // → 'there is no file system on an edge worker; …'
 */
export function teaUnsupportedReason(name: string): string | undefined {
  const exact = EXACT.get(name);
  if (exact !== undefined) return exact;
  return PREFIXES.find(([prefix]) => name.startsWith(prefix))?.[1];
}

/** The exact names and prefixes, for the porting table's test. */
export function teaUnsupportedEntries(): { exact: string[]; prefixes: string[] } {
  return { exact: [...EXACT.keys()], prefixes: PREFIXES.map(([prefix]) => prefix) };
}
