import { describe, expect, it } from 'vitest';
import { checkWebhook, describeChannels, parseAlertDuration, parseWhen, redactWebhook, ruleFromInput } from './rules.js';
import { jsonBody, slackBody } from './webhook.js';

describe('alert rules', () => {
  it('reads --when: conditions with their values, refusing unknown ones and bad values', () => {
    expect(parseWhen('retrying-longer-than=10m')).toEqual({ condition: 'retrying-longer-than', thresholdMs: 600_000, thresholdCount: null });
    expect(parseWhen('retrying-more-than=3')).toEqual({ condition: 'retrying-more-than', thresholdMs: null, thresholdCount: 3 });
    expect(parseWhen('running-longer-than=2d')).toMatchObject({ thresholdMs: 172_800_000 });
    expect(parseWhen('usage-limit')).toEqual({ condition: 'usage-limit', thresholdMs: null, thresholdCount: null });
    expect(() => parseWhen('usage-limit=5')).toThrow('usage-limit takes no value, got "usage-limit=5"');
    expect(() => parseWhen('running-longer-than=10m=1')).toThrow(
      'running-longer-than needs a duration like running-longer-than=10m, got "running-longer-than=10m=1"',
    );
    expect(() => parseWhen('')).toThrow(/^unknown alert condition ""/);
    expect([parseAlertDuration('0m'), parseAlertDuration('1.5h'), parseAlertDuration('90s')]).toEqual([null, null, 90_000]);
  });

  it('accepts only http(s) webhooks and never repeats the URL in a refusal', () => {
    expect(checkWebhook(' https://example.com/x ')).toBe('https://example.com/x');
    for (const bad of ['javascript:alert(1)', 'ftp://u:secret@example.com/', 'mailto:a@b.c', '//example.com/x', 'secret-token']) {
      expect(() => checkWebhook(bad)).toThrow(/^--webhook must be an http or https URL/);
      try {
        checkWebhook(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain('secret');
      }
    }
  });

  it('takes a webhook, the desktop, or both; refuses a rule with neither', () => {
    const none = 'an alert rule needs somewhere to deliver: --webhook URL, --desktop, or both';
    expect(() => ruleFromInput({ when: 'run-failed' }, 'alr_1', 0, 'test')).toThrow(none);
    expect(() => ruleFromInput({ when: 'run-failed', desktop: false }, 'alr_1', 0, 'test')).toThrow(none);
    expect(ruleFromInput({ when: 'run-failed', desktop: true }, 'alr_1', 0, 'test')).toMatchObject({ webhook: null, desktop: true });
    // The window's form sends an empty webhook field when only the desktop is ticked.
    expect(ruleFromInput({ when: 'run-failed', desktop: true, webhook: ' ' }, 'alr_1', 0, 'test')).toMatchObject({ webhook: null, desktop: true });
    const both = ruleFromInput({ when: 'run-failed', desktop: true, webhook: 'https://example.com/h' }, 'alr_1', 0, 'test');
    expect([both.webhook, both.desktop, describeChannels(both)]).toEqual(['https://example.com/h', true, 'webhook + desktop']);
    expect(describeChannels(ruleFromInput({ when: 'run-failed', webhook: 'https://example.com/h' }, 'alr_1', 0, 'test'))).toBe('webhook');
    // A webhook given is checked even beside the desktop.
    expect(() => ruleFromInput({ when: 'run-failed', desktop: true, webhook: 'ftp://example.com/' }, 'alr_1', 0, 'test')).toThrow(
      '--webhook must be an http or https URL, not ftp:',
    );
  });

  it("refuses a --code or --category no error can have (the rule would never fire); accepts the taxonomy's", () => {
    const base = { when: 'run-failed', webhook: 'https://example.com/' };
    expect(ruleFromInput({ ...base, code: 'RUNTIME_TIMEOUT', category: 'runtime' }, 'alr_1', 0, 'test')).toMatchObject({
      code: 'RUNTIME_TIMEOUT',
      category: 'runtime',
    });
    expect(() => ruleFromInput({ ...base, category: 'Runtime' }, 'alr_1', 0, 'test')).toThrow(
      '--category must be one of system, runtime, agent, scope, verification, git, user, policy, got "Runtime"',
    );
    expect(() => ruleFromInput({ ...base, code: 'runtime_timeout' }, 'alr_1', 0, 'test')).toThrow(
      /^--code must be an error code like RUNTIME_CRASHED .*, got "runtime_timeout"$/,
    );
  });

  it('redacts a webhook to scheme, credentials marker and host', () => {
    expect(redactWebhook('https://hooks.slack.com/services/T000/B000/XXXX')).toBe('https://hooks.slack.com/…');
    expect(redactWebhook('https://user:pass@example.com:8443/a?token=abc')).toBe('https://***@example.com:8443/…');
    expect(redactWebhook('http://127.0.0.1:9000/')).toBe('http://127.0.0.1:9000/');
    expect(redactWebhook('http://127.0.0.1:9000/?k=v')).toBe('http://127.0.0.1:9000/…');
    expect(redactWebhook('not a url at all with a secret')).toBe('(not a URL)');
  });

  it('builds the generic JSON body and the Slack body from one delivery', () => {
    const rule = ruleFromInput({ when: 'run-failed', webhook: 'https://example.com/' }, 'alr_1', 0, 'test');
    const delivery = {
      id: 'dlv_1',
      ruleId: 'alr_1',
      subject: 'run_1',
      occurrence: 'failed:9',
      throttleKey: 'flow:a',
      kind: 'resolve' as const,
      refersTo: 'dlv_0',
      title: 'Resolved: Run run_1 failed: A & <B>',
      facts: { condition: 'run-failed' as const, text: 'x', at: 0 },
      status: 'pending' as const,
      attempts: 1,
      responseCode: null,
      lastError: null,
      createdAt: Date.UTC(2026, 10, 26, 14, 5),
      nextAttemptAt: 0,
      sentAt: null,
    };
    const context = { suppressed: null, refersTo: { id: 'dlv_0', title: 'Run run_1 failed: A & <B>' } };
    expect(jsonBody(rule, delivery, context)).toMatchObject({
      version: 1,
      delivery: 'dlv_1',
      kind: 'resolve',
      text: 'Resolved: Run run_1 failed: A & <B>',
      refersTo: context.refersTo,
      at: '2026-11-26T14:05:00.000Z',
    });
    expect(slackBody(rule, delivery, context)).toEqual({
      text: 'Resolved: Run run_1 failed: A &amp; &lt;B&gt;',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: ':white_check_mark: Resolved: Run run_1 failed: A &amp; &lt;B&gt;' } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'rule alr_1 (run-failed) · delivery dlv_1 · follows up delivery dlv_0' }] },
      ],
    });
  });
});
