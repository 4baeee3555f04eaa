/** Modules the web-demo build (build/targets/40-web-demo.mjs) generates at build time. */
declare module 'virtual:examples' {
  /** The example agents from examples/*.yaml: file name and source. */
  const examples: { file: string; source: string }[];
  export default examples;
}

declare module 'virtual:agent-schema' {
  /** src/spec/agent-schema.json, or `{}` when the build found none. */
  const schema: Record<string, unknown>;
  export default schema;
}

declare module '*.yaml?raw' {
  /** A file's text, as Vite (and so the Node unit tests under Vitest) imports it with `?raw`. */
  const text: string;
  export default text;
}
