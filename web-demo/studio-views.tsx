/**
 * The studio's views of a run beyond the basics, loaded after the first paint (their own chunk):
 * the timeline, and a view per action. The run view renders them with every update.
 */
import type { AgentGraph } from './agent-graph.js';
import type { RunSummary } from './run-summary.js';
import type { ExtraViews } from './run-view.js';
import { TimelineView, type TimelineProps } from './timeline-view.js';
import { EventLog } from './event-log.js';
import { ActionViews, findActions } from './action-views.js';
import { GraphPanel, type GraphPanelProps } from './graph-panel.js';

/** What the run view draws under the graph (see graph-panel.tsx). */
export function graphPanel(props: GraphPanelProps) {
  return <GraphPanel {...props} />;
}

export interface StudioViewOptions {
  onRunFrom?: TimelineProps['onRunFrom'];
  /** The node picked on the graph: its runs are marked in the timeline, the last one selected. */
  focusNode?: string | undefined;
  /** Saves the run as an offline HTML report (absent while it runs). */
  onReport?: () => void;
}

export function studioViews(summary: RunSummary, graph: AgentGraph | undefined, options: StudioViewOptions = {}): ExtraViews {
  const kinds = new Map((graph?.nodes ?? []).map((node) => [node.name, node.kind]));
  const found = findActions(summary.events);
  return {
    // The reflection view (verdicts, feedback, candidates) replaces the live attempts list.
    coversAttempts: found.reflection.length > 0,
    main: (
      <>
        {options.onReport ? (
          <p class="row report-row">
            <button type="button" id="save-report" onClick={options.onReport}>Save as HTML report</button>
          </p>
        ) : null}
        <TimelineView key={summary.run_id} events={summary.events} kinds={kinds} running={summary.status === 'running'} onRunFrom={options.onRunFrom} focusNode={options.focusNode} />
        <ActionViews summary={summary} found={found} />
      </>
    ),
    tail: <EventLog events={summary.events} />,
  };
}
