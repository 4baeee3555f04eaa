/**
 * The host ceilings of the times and sizes an agent can set, shared by the parameter schemas (a
 * literal past one is a load error naming the key and the ceiling) and by the code that reads a
 * templated value at run time (the same refusal, as INVALID_PARAMS). Each stays well below
 * 2^31 − 1 ms, where a JavaScript timer overflows and fires at once. The agent schema
 * (agent-schema.json) repeats them as `maximum`; docs/security.md ("Ceilings") lists every one,
 * and tests/validate/setting-ceilings.test.ts holds the table, the schemas and these together.
 */

/** A model call's `timeout`, in seconds per attempt (default 300, TEA's). */
export const MODEL_TIMEOUT_SECONDS_CEILING = 3_600;

/** A model call's `max_tokens` (the reply's length). */
export const MODEL_MAX_TOKENS_CEILING = 1_000_000;

/** A model call's `max_retries` (each retry may wait a backoff and a whole timeout). */
export const MODEL_RETRIES_CEILING = 10;

/** `settings.http.timeout_ms` and `web.scrape`'s `timeout` (default 10 s). */
export const HTTP_TIMEOUT_MS_CEILING = 300_000;

/** `settings.http.max_bytes`: the largest body `http.get` and the web tools read (default 256 KiB). */
export const HTTP_MAX_BYTES_CEILING = 8 * 1024 * 1024;

/** A node's `timeout_ms` (none by default): the same day as `settings.limits.max_duration_ms`. */
export const NODE_TIMEOUT_MS_CEILING = 86_400_000;

/** `llm.tools`'s `max_tool_rounds` (model calls, default 10): no more than a run's model calls. */
export const TOOL_ROUNDS_CEILING = 10_000;
