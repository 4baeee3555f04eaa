/**
 * A list whose rows all have one height, drawn whole while it is short and windowed when it is
 * long: only the rows in view (and a few around them) are in the DOM, with two spacers standing
 * for the rest, so a 10,000-row list costs what a 60-row one does. The list scrolls inside its box
 * (focusable, so the keyboard scrolls it too).
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Up to this many rows the list is drawn whole (every row reachable by Tab and by find). */
export const WINDOW_AFTER = 300;
/** Rows drawn above and below the ones in view. */
const OVERSCAN = 12;

export interface VirtualListProps {
  id: string;
  class: string;
  label: string;
  count: number;
  /** The height of every row, in px (the CSS must give the rows exactly this height). */
  rowHeight: number;
  /** The height of the box, in px. */
  height: number;
  row(index: number): ComponentChildren;
  /** A row to bring into view (a new value scrolls once). */
  scrollTo?: number | undefined;
}

export function VirtualList({ id, class: className, label, count, rowHeight, height, row, scrollTo }: VirtualListProps) {
  const [top, setTop] = useState(0);
  const list = useRef<HTMLOListElement>(null);
  useLayoutEffect(() => {
    const box = list.current;
    if (scrollTo === undefined || !box) return;
    const at = scrollTo * rowHeight;
    // Only when it is out of view; then a third of the box above it, for context.
    if (at < box.scrollTop || at + rowHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, at - Math.floor(height / 3));
      setTop(box.scrollTop);
    }
  }, [scrollTo]);
  const windowed = count > WINDOW_AFTER;
  const first = windowed ? Math.max(0, Math.floor(top / rowHeight) - OVERSCAN) : 0;
  const last = windowed ? Math.min(count, Math.ceil((top + height) / rowHeight) + OVERSCAN) : count;
  const rows: ComponentChildren[] = [];
  // Spacers stand for the rows not drawn (padding on the list itself would grow its box).
  if (first > 0) rows.push(<li key="before" class="vl-spacer" aria-hidden="true" style={{ height: `${first * rowHeight}px` }} />);
  for (let index = first; index < last; index++) rows.push(row(index));
  if (last < count) rows.push(<li key="after" class="vl-spacer" aria-hidden="true" style={{ height: `${(count - last) * rowHeight}px` }} />);
  return (
    <ol ref={list} class={`${className}${windowed ? ' windowed' : ''}`} id={id} tabindex={0} aria-label={label} style={{ maxHeight: `${height}px` }} onScroll={windowed ? (event) => setTop(event.currentTarget.scrollTop) : undefined}>
      {rows}
    </ol>
  );
}
