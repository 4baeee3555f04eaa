/** Eta prompt templates, compiled to render functions at build time (build/eta-transform.mjs). */
declare module '*.eta' {
  const render: (data: Record<string, unknown>) => string;
  export default render;
}
