import { useState, type FormEvent } from 'react';
import { useApi } from '../app/api-context.js';
import { useToast } from '../app/toasts.js';
import { errorText } from '../lib/use-async.js';
import { CONDITION_CHOICES, whenText } from './alert-conditions.js';

interface RuleDraft {
  condition: string;
  value: string;
  flow: string;
  code: string;
  webhook: string;
  /** Show each firing as a desktop notification in every Hivewatch window. */
  desktop: boolean;
  format: string;
  throttle: string;
}

const EMPTY_DRAFT: RuleDraft = { condition: 'run-failed', value: '', flow: '', code: '', webhook: '', desktop: false, format: 'json', throttle: '10m' };
type TextField = Exclude<keyof RuleDraft, 'desktop'>;

/** The form's draft and its submission: the rule as the service takes it, the refusal in its words. */
function useRuleDraft(onAdded: () => void) {
  const api = useApi();
  const toast = useToast();
  const [draft, setDraft] = useState<RuleDraft>(EMPTY_DRAFT);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const field = (key: TextField) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));
  const setDesktop = (desktop: boolean) => setDraft((d) => ({ ...d, desktop }));

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setSaving(true);
    setProblem(null);
    const { condition, value, flow, code, webhook, desktop, format, throttle } = draft;
    try {
      const rule = await api.addAlertRule({
        when: whenText(condition, value),
        // With the desktop ticked the webhook is optional: an empty field means none.
        ...(webhook.trim() !== '' || !desktop ? { webhook: webhook.trim() } : {}),
        ...(desktop ? { desktop } : {}),
        format,
        throttle: throttle.trim() === '' ? '0' : throttle.trim(),
        ...(flow.trim() !== '' ? { flow: flow.trim() } : {}),
        ...(code.trim() !== '' ? { code: code.trim() } : {}),
      });
      toast(`Added alert rule ${rule.id}`, 'success');
      setDraft((d) => ({ ...d, webhook: '' }));
      onAdded();
    } catch (error) {
      setProblem(errorText(error));
    } finally {
      setSaving(false);
    }
  };
  return { draft, field, setDesktop, submit, saving, problem };
}

/**
 * The add form: a condition (with its duration or count), optional flow and code filters, where
 * it delivers (a webhook, a desktop notification in every Hivewatch window, or both: the webhook
 * is optional once the desktop is ticked), the webhook's body format and the throttle. The service checks everything; a refusal is shown
 * under the form in the service's own words (the CLI prints the same).
 */
export function AlertRuleForm({ onAdded }: { onAdded: () => void }) {
  const { draft, field, setDesktop, submit, saving, problem } = useRuleDraft(onAdded);
  const { condition, value, flow, code, webhook, desktop, format, throttle } = draft;
  const needs = CONDITION_CHOICES.find((c) => c.name === condition)?.value ?? null;

  return (
    <form className="alert-form" onSubmit={(e) => void submit(e)} aria-describedby={problem ? 'alert-form-problem' : undefined}>
      <div className="alert-form-grid">
        <label>
          <span>When</span>
          <select value={condition} onChange={(e) => field('condition')(e.target.value)} name="condition">
            {CONDITION_CHOICES.map((c) => (
              <option key={c.name} value={c.name}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        {needs && (
          <label>
            <span>{needs === 'duration' ? 'Duration (e.g. 10m, 1h)' : 'Attempts'}</span>
            <input
              type="text"
              value={value}
              onChange={(e) => field('value')(e.target.value)}
              name="value"
              required
              placeholder={needs === 'duration' ? '10m' : '3'}
            />
          </label>
        )}
        <label>
          <span>Flow (optional)</span>
          <input type="text" value={flow} onChange={(e) => field('flow')(e.target.value)} name="flow" placeholder="examples/02-rate-limited-api.prose" />
        </label>
        <label>
          <span>Error code (optional)</span>
          <input type="text" value={code} onChange={(e) => field('code')(e.target.value)} name="code" placeholder="RUNTIME_RATE_LIMIT" />
        </label>
        <label className="alert-form-wide">
          <span>{desktop ? 'Webhook URL (optional)' : 'Webhook URL'}</span>
          <input
            type="text"
            inputMode="url"
            autoComplete="off"
            value={webhook}
            onChange={(e) => field('webhook')(e.target.value)}
            name="webhook"
            required={!desktop}
            placeholder="https://hooks.slack.com/services/…"
          />
        </label>
        <label className="alert-form-check" title="Every open Hivewatch window shows the alert as a desktop notification">
          <input type="checkbox" checked={desktop} onChange={(e) => setDesktop(e.target.checked)} name="desktop" />
          <span>Desktop notification</span>
        </label>
        <label>
          <span>Body</span>
          <select value={format} onChange={(e) => field('format')(e.target.value)} name="format">
            <option value="json">Generic JSON</option>
            <option value="slack">
              Slack ({'{'}text, blocks{'}'})
            </option>
          </select>
        </label>
        <label>
          <span>Throttle (one alert per …)</span>
          <input type="text" value={throttle} onChange={(e) => field('throttle')(e.target.value)} name="throttle" placeholder="10m" />
        </label>
      </div>
      {problem && (
        <p className="alert-form-problem" id="alert-form-problem" role="alert">
          {problem}
        </p>
      )}
      <button type="submit" className="primary" disabled={saving}>
        {saving ? 'Adding…' : 'Add rule'}
      </button>
    </form>
  );
}
