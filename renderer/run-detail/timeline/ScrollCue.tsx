import { useEffect, useState, type ReactNode, type RefObject } from 'react';

/**
 * A shaded edge with an arrow where the timeline goes on past what is shown (attempts cut off
 * at the right, or scrolled past at the left), so a wide run never looks like it ends at the
 * panel's edge. Visual only: the table itself is whole for a screen reader.
 */
export function ScrollCue({ scroller, trackWidth, children }: { scroller: RefObject<HTMLElement | null>; trackWidth: number; children: ReactNode }) {
  const [edges, setEdges] = useState({ left: false, right: false });
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = (): void => {
      const left = el.scrollLeft > 1;
      const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      setEdges((prev) => (prev.left === left && prev.right === right ? prev : { left, right }));
    };
    measure();
    el.addEventListener('scroll', measure, { passive: true });
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => {
      el.removeEventListener('scroll', measure);
      observer.disconnect();
    };
  }, [scroller, trackWidth]);
  return (
    <div className="timeline-cue-frame" data-more-left={edges.left} data-more-right={edges.right}>
      {children}
      {edges.left && (
        <span className="timeline-cue cue-left" aria-hidden="true">
          ‹
        </span>
      )}
      {edges.right && (
        <span className="timeline-cue cue-right" aria-hidden="true" data-testid="timeline-more-right">
          ›
        </span>
      )}
    </div>
  );
}
