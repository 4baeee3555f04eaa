/** The usage text of tea-edge and of each subcommand (`tea-edge <command> --help`, exit 0). */

const RUN = `tea-edge run <agent.yaml> [options]
  Runs an agent and prints its final state (JSON) on stdout.

  --input <json>            the run input (a JSON object)
  --input-file <path>       the run input, read from a file
  --stream                  print every event as NDJSON instead of the final state
  --trace-dir <dir>         keep the trace, run record and checkpoints in <dir> (the run id is printed on stderr)
  --record                  keep model requests and responses in the trace (needs --trace-dir), for --replay
  --replay <dir>/<run-id>   answer model calls from a recorded run; uses its input unless --input is given
  --llm-base-url <url>      OpenAI-compatible endpoint for every model call (also TEA_LLM_BASE_URL)
  --llm-model <name>        model for every call (also TEA_LLM_MODEL)
  --llm-api-key <key>       API key of the model endpoint (also TEA_LLM_API_KEY); never stored or printed
  --llm-provider <name>     provider preset (also TEA_LLM_PROVIDER)
  --max-llm-calls <n>       model-call budget of this run (default 100, or the agent's settings.limits)
  --role <role>             caller role for tool permissions: viewer, user, operator, admin
  --env <NAME>              let templates read this environment variable as env.NAME (repeatable; also the
                            agent's settings.env list). No other variable is passed; the model key never is.
  --secret <NAME>           give agents this environment variable as secrets.NAME (templates, MCP headers
                            {secret: NAME}); it must be set, and it is redacted from all output (repeatable).
  --files <dir>             the folder file.read / file.write work in (paths never leave it); without it
                            they are refused. agent.* runs {file: x.yaml} agents from the agent's own folder.
  --accept-file-race        where the folder cannot be walked by descriptors (no /proc/self/fd: macOS,
                            Windows), use the check-then-verify walk, which another process swapping
                            folders can still beat, instead of refusing every file read and write (warns once)
  --shell-provider <NAME=COMMAND [ARG...]>
                            answer TEA's \`provider: shell\` (with \`shell_provider: NAME\`) by running COMMAND:
                            {prompt} in an argument is the conversation, else it goes to stdin (repeatable).
                            Only the host names commands; an agent's settings.shell_providers is not read.
`;

const RESUME = `tea-edge resume <run-id> --trace-dir <dir> [options]
  Continues an interrupted run with the agent file and model endpoint it was started with.

  --approve | --deny        answer a pending tool confirmation (required when one is pending)
  --state-update <json>     merge this JSON object into the state first
  --stream, --llm-*, --max-llm-calls, --role, --env, --secret, --files   as for run (the API key and secrets
                            are never stored: give them again)
`;

const VALIDATE = `tea-edge validate <agent.yaml> [more.yaml ...] [--json] [--strict] [--online [--secret NAME ...]] [--shell-provider NAME=COMMAND ...]
  Checks agent files without running them: "ok", or every problem as file:line:column CODE message.

  --json                    print {ok, errors, warnings} as JSON on stdout
  --strict                  warnings (unrouted nodes, ignored keys) are errors (exit 2)
  --online                  also list the agent's MCP servers: every allow-listed tool must exist
  --secret <NAME>           with --online: give the servers' {secret: NAME} headers this environment variable
  --shell-provider <NAME=COMMAND>
                            check as a host that answers \`provider: shell\` with COMMAND (as tea-edge run --shell-provider)
`;

const SERVE = `tea-edge serve [--port 8787] [--host 127.0.0.1] [--agents <dir>] [--trace-dir <dir>] [--files <dir>] [--accept-file-race] [--allow-no-auth] [--shell-provider NAME=COMMAND ...]
  Serves the HTTP API for the agents in <dir> (default: examples) and the studio (the web demo) at /.
  Agents run other agent files of <dir> with agent.* ({file: x.yaml}); --files gives file.read /
  file.write their folder (without it they are refused). Environment: TEA_LLM_BASE_URL, TEA_LLM_MODEL,
  TEA_LLM_API_KEY, TEA_API_TOKENS, TEA_CORS_ORIGINS, and TEA_AGENT_SECRETS (comma-separated names of
  variables agents get as secrets.NAME, redacted from every answer); TEA_MAX_CONCURRENT_RUNS (runs at
  once, default 4 per processor) and TEA_RUN_QUEUE (starts waiting beyond it, default 256; then
  503 OVERLOADED with Retry-After); TEA_RUN_LEASE_MS (default 10000); TEA_RETAIN_RUNS and
  TEA_RETAIN_DAYS (history kept: default 10000 runs, 30 days; 0 turns a limit off).

  --host <address>          the interface to listen on (default 127.0.0.1, this machine only). Another
                            address (0.0.0.0, a LAN address) needs TEA_API_TOKENS, or --allow-no-auth
  --allow-no-auth           serve an open API (no tokens) on an address other machines reach, on purpose
  --shell-provider <NAME=COMMAND [ARG...]>
                            answer TEA's \`provider: shell\` with COMMAND, as tea-edge run --shell-provider
                            (repeatable). Only the host names commands; an agent's settings.shell_providers is not read.
  --accept-file-race        as for run: the check-then-verify walk for --files and <dir> where no
                            descriptor walk exists, instead of refusing their reads and writes
`;

const PROBE = `tea-edge probe --llm-base-url <url> [--llm-model <name>] [--llm-api-key <key>] [--timeout <s>] [--json]
  Asks an OpenAI-compatible endpoint what it supports (streaming, JSON schema, tool calls).
`;

const BENCH = `tea-edge bench [suite ...] [--json]
  Runs the benchmarks (all, or the suites whose name contains a given word: engine, reasoning,
  reflection, llm, lua, prolog, templates, storage, scale, worker, bundles, browser, durable) and
  prints their figures. \`durable\`: also a real \`tea-edge serve\` at 10/50/200 clients (runs/s, p99, 503s,
  /health p99). \`scale\`: CPU per step of each node kind with a 1 KB, 100 KB and 1 MB state, bytes
  written per step by each durable store and the trace, heap per paused and per running run, and a
  1 MB state through the worker in Miniflare.
  --json prints one JSON object per figure: {suite, name, value, unit, baseline_value?, ratio?}.
`;

export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  run: RUN,
  resume: RESUME,
  validate: VALIDATE,
  serve: SERVE,
  probe: PROBE,
  bench: BENCH,
};

/** The overview: each command's synopsis (the first line of its own help), so the two never differ. */
export const USAGE = `tea-edge — run YAML LLM agents (The Edge Agent format)

${Object.values(COMMAND_USAGE)
  .map((usage) => `  ${usage.split('\n')[0]}\n`)
  .join('')}  tea-edge <command> --help     the command's options

Exit codes: 0 completed · 1 run failed (one line on stderr: CODE node=… message (run …, stop reason …))
            · 2 invalid agent or usage · 3 interrupted, waiting for resume · 130 cancelled with Ctrl-C.
Environment: TEA_LLM_BASE_URL, TEA_LLM_MODEL, TEA_LLM_API_KEY override every model endpoint.
`;
