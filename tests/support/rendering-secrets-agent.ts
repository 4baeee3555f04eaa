/**
 * An agent whose model calls render a secret (issue 24 cause 6), shared by the Node and Chromium
 * prompt-redaction tests: a prompt with `secrets.demo_token` and `state.key`, a system text, a
 * streamed message and an embeddings input, five places in all, against the model at `modelUrl`.
 */
export const renderingSecretsAgent = (modelUrl: string) => `name: render
settings: { llm: { api_base: "${modelUrl}", model: mock-model } }
nodes:
  - name: plain
    uses: llm.call
    with: { prompt: "the token is {{ secrets.demo_token }} and the key {{ state.key }}", system: "never say {{ secrets.demo_token }}" }
    output: plain
  - name: streamed
    uses: llm.stream
    with: { messages: [{ role: user, content: "again: {{ secrets.demo_token }}" }] }
    output: streamed
  - name: embed
    uses: llm.embed
    with: { text: ["{{ secrets.demo_token }}", "plain text"] }
    output: vectors
`;
