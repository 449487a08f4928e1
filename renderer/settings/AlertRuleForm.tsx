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
  format: string;
  throttle: string;
}

const EMPTY_DRAFT: RuleDraft = { condition: 'run-failed', value: '', flow: '', code: '', webhook: '', format: 'json', throttle: '10m' };

/** The form's draft and its submission: the rule as the service takes it, the refusal in its words. */
function useRuleDraft(onAdded: () => void) {
  const api = useApi();
  const toast = useToast();
  const [draft, setDraft] = useState<RuleDraft>(EMPTY_DRAFT);
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const field = (key: keyof RuleDraft) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    setSaving(true);
    setProblem(null);
    const { condition, value, flow, code, webhook, format, throttle } = draft;
    try {
      const rule = await api.addAlertRule({
        when: whenText(condition, value),
        webhook: webhook.trim(),
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
  return { draft, field, submit, saving, problem };
}

/**
 * The add form: a condition (with its duration or count), optional flow and code filters, the
 * webhook, its body format and the throttle. The service checks everything; a refusal is shown
 * under the form in the service's own words (the CLI prints the same).
 */
export function AlertRuleForm({ onAdded }: { onAdded: () => void }) {
  const { draft, field, submit, saving, problem } = useRuleDraft(onAdded);
  const { condition, value, flow, code, webhook, format, throttle } = draft;
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
          <span>Webhook URL</span>
          <input
            type="text"
            inputMode="url"
            autoComplete="off"
            value={webhook}
            onChange={(e) => field('webhook')(e.target.value)}
            name="webhook"
            required
            placeholder="https://hooks.slack.com/services/…"
          />
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
