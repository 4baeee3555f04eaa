// Shared esbuild settings for every target.
import { readFile } from 'node:fs/promises';
import { etaEsbuildPlugin } from './eta-transform.mjs';

export const banner = '// tea-edge — built by build/build.mjs';

/** Options every bundle shares: ESM, ES2022, the Eta plugin, no code generation. */
export function baseOptions(extra = {}) {
  return {
    bundle: true,
    format: 'esm',
    target: 'es2022',
    logLevel: 'warning',
    legalComments: 'eof',
    ...extra,
    plugins: [etaEsbuildPlugin(), agentSchemaForValidation(), ...(extra.plugins ?? [])],
  };
}

/**
 * The engine bundles src/spec/agent-schema.json only to validate agent files, which never reads a
 * `description` or `title`: those (a quarter of the schema) are left out of every bundle. The
 * editor's completion and hover text read the whole schema through `virtual:agent-schema`, and
 * dist/agent-schema.json is copied whole.
 */
function agentSchemaForValidation() {
  return {
    name: 'agent-schema-for-validation',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]spec[\\/]agent-schema\.json$/ }, async (args) => {
        // Only annotations go: the keys of a name → subschema map (`properties`, `definitions`,
        // …) are names (a node's `description` field stays), and data (`enum`, `const`,
        // `default`) is kept as it is.
        const NAMED = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);
        const DATA = new Set(['enum', 'const', 'default', 'examples']);
        const strip = (schema) => {
          if (Array.isArray(schema)) return schema.map(strip);
          if (schema === null || typeof schema !== 'object') return schema;
          const kept = {};
          for (const [key, field] of Object.entries(schema)) {
            if ((key === 'description' || key === 'title') && typeof field === 'string') continue;
            if (DATA.has(key)) kept[key] = field;
            else if (NAMED.has(key) && field !== null && typeof field === 'object' && !Array.isArray(field))
              kept[key] = Object.fromEntries(Object.entries(field).map(([name, sub]) => [name, strip(sub)]));
            else kept[key] = strip(field);
          }
          return kept;
        };
        return { contents: JSON.stringify(strip(JSON.parse(await readFile(args.path, 'utf8')))), loader: 'json' };
      });
    },
  };
}
