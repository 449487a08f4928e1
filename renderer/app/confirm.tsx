import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { Dialog } from '../components/Dialog.js';

/**
 * `await confirm({...})` → true when the operator confirms. One dialog at a time.
 *
 * A `danger` dialog (cancel, replace) opens with the focus on the safe button, and Enter never
 * confirms it, not even with the focus on the confirm button: a key pressed out of habit (or a
 * second Enter after the one that opened the dialog) must not stop a run. Space or a click does.
 */

export interface ConfirmOptions {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  /** The safe button's label ("Keep running"); default "Keep it". */
  keepLabel?: string;
  danger?: boolean;
}

type Confirm = (options: ConfirmOptions) => Promise<boolean>;

const ConfirmContext = createContext<Confirm>(() => Promise.resolve(false));

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [pending, setPending] = useState<(ConfirmOptions & { resolve: (ok: boolean) => void }) | null>(null);

  const confirm = useCallback<Confirm>(
    (options) =>
      new Promise<boolean>((resolve) => {
        setPending((current) => {
          current?.resolve(false);
          return { ...options, resolve };
        });
      }),
    [],
  );

  const answer = (ok: boolean): void => {
    pending?.resolve(ok);
    setPending(null);
  };

  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      {pending && (
        <Dialog title={pending.title} onClose={() => answer(false)} className="confirm-dialog" labelledBy="confirm-title">
          <div className="dialog-body">{pending.body}</div>
          <div className="dialog-actions">
            <button type="button" data-testid="confirm-keep" {...(pending.danger ? { 'data-autofocus': true } : {})} onClick={() => answer(false)}>
              {pending.keepLabel ?? 'Keep it'}
            </button>
            <button
              type="button"
              className={pending.danger ? 'danger' : 'primary'}
              data-testid="confirm-ok"
              {...(pending.danger ? {} : { 'data-autofocus': true })}
              onKeyDown={(event) => {
                if (pending.danger && event.key === 'Enter') event.preventDefault();
              }}
              onClick={() => answer(true)}
            >
              {pending.confirmLabel}
            </button>
          </div>
        </Dialog>
      )}
    </ConfirmContext.Provider>
  );
}

export function useConfirm(): Confirm {
  return useContext(ConfirmContext);
}
