/**
 * `memo` without preact/compat (which would add its React layer to the first load): a component
 * that re-renders only when one of its props changed (compared with ===).
 */
import { Component, h, type FunctionComponent } from 'preact';

export function memo<P extends object>(render: FunctionComponent<P>): FunctionComponent<P> {
  class Memoised extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      const now = this.props as Record<string, unknown>;
      const then = next as Record<string, unknown>;
      for (const key of new Set([...Object.keys(now), ...Object.keys(then)]))
        if (key !== 'children' && now[key] !== then[key]) return true;
      return now.children !== then.children;
    }
    override render() {
      return h(render, this.props);
    }
  }
  return Memoised as unknown as FunctionComponent<P>;
}
