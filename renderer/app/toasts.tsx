import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * Short notices about what an action did ("Started a new run …0f3e1a"), read aloud politely. A
 * notice may link to what the action made (the new runs); one with links stays longer, and no
 * notice goes while the pointer or the focus is on it, so its link can be reached.
 */

type ToastKind = 'info' | 'success' | 'error';
export interface ToastLink {
  href: string;
  label: string;
  /** The link's tooltip (a run's full id). */
  title?: string;
}
interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
  links: readonly ToastLink[];
}

type Notify = (text: string, kind?: ToastKind, links?: readonly ToastLink[]) => void;

const ToastContext = createContext<Notify>(() => undefined);

/** How long a notice stays: longer for an error, and for one with links to follow. */
function lifetime(toast: Toast): number {
  if (toast.links.length > 0) return 12_000;
  return toast.kind === 'error' ? 8000 : 4000;
}

function ToastItem({ toast, onDismiss }: { toast: Toast; onDismiss: (id: number) => void }) {
  const timer = useRef<number | null>(null);
  const arm = useCallback(() => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = window.setTimeout(() => onDismiss(toast.id), lifetime(toast));
  }, [toast, onDismiss]);
  const hold = (): void => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
  };
  useEffect(() => {
    arm();
    return hold;
  }, [arm]);
  return (
    <div className={`toast toast-${toast.kind}`} data-testid="toast" onPointerEnter={hold} onPointerLeave={arm} onFocus={hold} onBlur={arm}>
      <span>
        {toast.text}
        {toast.links.map((link, i) => (
          <span key={link.href}>
            {i > 0 ? ', ' : ' '}
            <a href={link.href} title={link.title} className="mono">
              {link.label}
            </a>
          </span>
        ))}
      </span>
      <button type="button" className="icon" aria-label="Dismiss" onClick={() => onDismiss(toast.id)}>
        ×
      </button>
    </div>
  );
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);

  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);

  const notify = useCallback<Notify>((text, kind = 'info', links = []) => {
    const id = next.current++;
    setToasts((list) => [...list.slice(-3), { id, kind, text, links }]);
  }, []);

  return (
    <ToastContext.Provider value={notify}>
      {children}
      {/* A landmark of its own: every part of the window is inside one (axe's `region`). */}
      <section className="toasts" aria-label="Notices">
        <div role="status" aria-live="polite">
          {toasts.map((t) => (
            <ToastItem key={t.id} toast={t} onDismiss={dismiss} />
          ))}
        </div>
      </section>
    </ToastContext.Provider>
  );
}

export function useToast(): Notify {
  return useContext(ToastContext);
}
