import { useEffect, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { dialogClosed, dialogOpened } from '../app/keyboard.js';

/**
 * A modal dialog: traps Tab inside, closes on Escape or a click outside, gives the focus back
 * to where it was. Global shortcuts pause while it is open.
 */
export function Dialog({
  title,
  onClose,
  children,
  className = '',
  labelledBy = 'dialog-title',
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  className?: string;
  labelledBy?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    dialogOpened();
    const previous = document.activeElement as HTMLElement | null;
    const box = ref.current;
    const focusable = (): HTMLElement[] =>
      box ? [...box.querySelectorAll<HTMLElement>('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])')] : [];
    (box?.querySelector<HTMLElement>('[data-autofocus]') ?? focusable()[0] ?? box)?.focus();
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') {
        event.preventDefault();
        closeRef.current();
      } else if (event.key === 'Tab') {
        const items = focusable();
        if (items.length === 0) return;
        const first = items[0] as HTMLElement;
        const last = items[items.length - 1] as HTMLElement;
        if (event.shiftKey && document.activeElement === first) {
          event.preventDefault();
          last.focus();
        } else if (!event.shiftKey && document.activeElement === last) {
          event.preventDefault();
          first.focus();
        }
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      dialogClosed();
      previous?.focus?.();
    };
  }, []);

  return createPortal(
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={ref} className={`dialog ${className}`} role="dialog" aria-modal="true" aria-labelledby={labelledBy} tabIndex={-1}>
        <h2 id={labelledBy} className="dialog-title">
          {title}
        </h2>
        {children}
      </div>
    </div>,
    document.body,
  );
}
