/**
 * The names of the graph's start and end nodes, on their own so the page's graph view needs no
 * part of agent-graph.ts (which the page loads only in server mode).
 */
export const START = '__start__';
export const END = '__end__';
