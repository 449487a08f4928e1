import { useCallback, useRef, useState } from 'react';

/**
 * The content width of an element, kept current with a ResizeObserver. A callback ref, so the
 * observer follows the element even when it mounts after the component (loading states).
 */
export function useWidth<T extends HTMLElement>(): [(el: T | null) => void, number] {
  const [width, setWidth] = useState(0);
  const observer = useRef<ResizeObserver | null>(null);
  const ref = useCallback((el: T | null) => {
    observer.current?.disconnect();
    observer.current = null;
    if (!el) return;
    setWidth(el.clientWidth);
    observer.current = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.current.observe(el);
  }, []);
  return [ref, width];
}
