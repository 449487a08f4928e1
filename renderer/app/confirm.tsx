import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { Dialog } from '../components/Dialog.js';

/** `await confirm({...})` → true when the operator confirms. One dialog at a time. */

export interface ConfirmOptions {
  title: string;
  body: ReactNode;
  confirmLabel: string;
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
            <button type="button" onClick={() => answer(false)}>
              Keep it
            </button>
            <button type="button" className={pending.danger ? 'danger' : 'primary'} data-autofocus onClick={() => answer(true)}>
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
