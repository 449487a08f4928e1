import { useState } from 'react';
import type { FlowInfo } from '../../core/service/api.js';
import { ApiError } from '../../core/common/api-errors.js';
import { useApi } from '../app/api-context.js';
import { useConfirm } from '../app/confirm.js';
import { useToast } from '../app/toasts.js';
import { errorText } from '../lib/use-async.js';

/** What the name field starts with: the operator's own flow keeps its name; an example gets a copy's. */
function suggestedName(flow: FlowInfo): string {
  return flow.bundled ? `${flow.name}-copy` : flow.name;
}

/**
 * Saves a draft that checks into the operator's flows folder (`user/<name>.prose`). Replacing
 * an existing file takes a confirmation; every refusal is the service's own message. `from`
 * names the flow the draft was made from: the window shows its secrets as `[secret NAME]`,
 * and the service puts the values back when saving.
 */
export function SaveDraft({
  flow,
  draft,
  checksOk,
  existing,
  onSaved,
}: {
  flow: FlowInfo;
  draft: string;
  checksOk: boolean;
  /** Flow ids listed now: a name already taken is confirmed before the save, not after a refusal. */
  existing: ReadonlySet<string>;
  onSaved: (saved: FlowInfo) => void;
}) {
  const api = useApi();
  const confirm = useConfirm();
  const toast = useToast();
  const [name, setName] = useState(suggestedName(flow));
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const save = async (): Promise<void> => {
    setSaving(true);
    setProblem(null);
    const file = name.endsWith('.prose') ? name : `${name}.prose`;
    const askReplace = (): Promise<boolean> =>
      confirm({
        title: `Replace ${file}?`,
        body: (
          <p>
            <code>user/{file}</code> already exists in your flows folder. Saving replaces its text with this draft; runs already made from it keep the text they
            ran.
          </p>
        ),
        confirmLabel: 'Replace',
        danger: true,
      });
    try {
      let saved: FlowInfo;
      if (existing.has(`user/${file}`)) {
        if (!(await askReplace())) return;
        saved = await api.saveFlow({ name, source: draft, overwrite: true, from: flow.id });
      } else {
        try {
          saved = await api.saveFlow({ name, source: draft, from: flow.id });
        } catch (error) {
          // Made meanwhile (another window, an editor): the same question.
          if (!(error instanceof ApiError && error.apiCode === 'flow_exists')) throw error;
          if (!(await askReplace())) return;
          saved = await api.saveFlow({ name, source: draft, overwrite: true, from: flow.id });
        }
      }
      toast(`Saved ${saved.id}`, 'info');
      onSaved(saved);
    } catch (error) {
      setProblem(errorText(error));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="save-draft"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <label>
        Save as&nbsp;<span className="mono muted">user/</span>
        <input className="mono" aria-label="Flow file name" value={name} onChange={(e) => setName(e.currentTarget.value)} spellCheck={false} maxLength={64} />
        <span className="mono muted">.prose</span>
      </label>
      <button
        type="submit"
        className="primary small"
        disabled={!checksOk || saving || name.trim() === ''}
        title={checksOk ? 'save into your flows folder' : 'only a draft that checks can be saved'}
      >
        {saving ? 'Saving…' : 'Save draft'}
      </button>
      {problem && (
        <p className="error-text small-print" role="alert" data-testid="save-problem">
          {problem}
        </p>
      )}
    </form>
  );
}
