import { beforeAll, expect, it } from 'vitest';
import type { HivewatchApi } from './api.js';
import type { ConformanceContext } from './testing.js';

/**
 * The conformance suite's cases for error issues, on every shell
 * (in-process, HTTP, IPC): list, get by a prefix, resolve, the runs an issue hit, bad input.
 * Registered by `apiConformanceSuite` (conformance.suite.ts) after its beforeAll.
 */
export function issueConformanceCases(context: ConformanceContext): void {
  let api: HivewatchApi;
  beforeAll(() => {
    ({ api } = context);
  });

  it('an error becomes an issue with a title; resolving it is journaled as the window; Runs filter by it', async () => {
    const runId = await context.start('examples/02-rate-limited-api.prose', { virtualClock: true });
    await context.finished(runId);
    const title = 'RUNTIME_RATE_LIMIT · runtime fake was rate limited: Error: <n> Too Many Requests (rate limit exceeded)';
    const listed = await api.listIssues({ sort: 'runs' });
    const issue = listed.items.find((i) => i.title === title);
    expect(issue).toMatchObject({ status: 'unresolved', code: 'RUNTIME_RATE_LIMIT', culprit: expect.stringContaining('02-rate-limited-api › ') as string });
    const id = issue!.id;
    // All time: its last 30 days by day, the current day still filling.
    expect(issue).toMatchObject({ trendBucketMs: 86_400_000, trendPartial: true });
    expect(issue!.trend).toHaveLength(31);
    expect(await api.getIssue({ id: id.slice(0, 10) })).toMatchObject({ id, title });
    expect(await api.setIssueStatus({ id, action: 'resolve', reason: 'fixed upstream' })).toMatchObject({
      id,
      status: 'resolved',
      changedBy: 'window',
      reason: 'fixed upstream',
    });
    expect((await api.listIssues({ status: 'resolved' })).items.map((i) => i.id)).toContain(id);
    expect((await api.listRuns({ issue: id })).items.map((r) => r.id)).toContain(runId);
    expect((await api.countRuns({ issue: id })).total).toBeGreaterThanOrEqual(1);
    expect(await api.setIssueStatus({ id, action: 'reopen' })).toMatchObject({ status: 'unresolved', changedBy: 'window' });
  });

  it("an issue's page, the list over a period sorted by trend, and the error views narrowed to an issue status", async () => {
    const runId = await context.start('examples/02-rate-limited-api.prose', { virtualClock: true });
    await context.finished(runId);
    const since = Date.now() - 24 * 3_600_000;
    const listed = await api.listIssues({ since, sort: 'trend' });
    const issue = listed.items.find((i) => i.code === 'RUNTIME_RATE_LIMIT');
    expect(issue?.period).toMatchObject({ since, events: expect.any(Number) as number, previous: { since: since - (issue!.period.until - since) } });
    expect(issue!.period.events).toBeGreaterThan(0);
    const page = await api.getIssueDetail({ id: issue!.id.slice(0, 8), since });
    expect(page.issue).toMatchObject({ id: issue!.id, period: { events: issue!.period.events } });
    expect(page.latest?.occurrence).toMatchObject({ code: 'RUNTIME_RATE_LIMIT' });
    expect(page.latest?.chain[0]).toMatchObject({ code: 'RUNTIME_RATE_LIMIT' });
    expect(page.activity[0]).toMatchObject({ kind: 'first-seen' });
    expect(page.flowChange?.flow).toBe('examples/02-rate-limited-api.prose');
    // Narrowed to resolved issues: none yet, so nothing is counted or listed.
    expect(await api.errorCounts({ by: 'code', issueStatus: 'resolved' })).toEqual([]);
    expect((await api.listErrors({ issueStatus: 'resolved' })).items).toEqual([]);
    await api.setIssueStatus({ id: issue!.id, action: 'resolve' });
    const codes = await api.errorCounts({ by: 'code', issueStatus: 'resolved' });
    expect(codes.map((c) => c.key)).toEqual(['RUNTIME_RATE_LIMIT']);
    expect((await api.listErrors({ issueStatus: 'resolved', limit: 5 })).items.every((o) => o.fingerprint === issue!.id)).toBe(true);
    await api.setIssueStatus({ id: issue!.id, action: 'reopen' });
  });

  it('refuses an unknown issue, an unknown action, a malformed id and a bad sort, with the field named', async () => {
    const cases: [() => Promise<unknown>, number, string, string][] = [
      [() => api.getIssue({ id: '0123abcd' }), 404, 'issue_not_found', 'no such issue "0123abcd"'],
      [() => api.setIssueStatus({ id: '0123abcd', action: 'ignore', forMs: 3_600_000 }), 404, 'issue_not_found', 'no such issue "0123abcd"'],
      [() => api.setIssueStatus({ id: '0123abcd', action: 'archive' as never }), 400, 'invalid_input', 'action: must be one of resolve, ignore, reopen'],
      [() => api.getIssue({ id: 'not-hex' }), 400, 'invalid_input', 'id: must be an issue id (its fingerprint, or the start of it: hex digits)'],
      [() => api.listIssues({ sort: 'count' as never }), 400, 'invalid_input', 'sort: must be one of last-seen, first-seen, events, failures, runs, trend'],
      [() => api.setIssueStatus({ id: '0123abcd', action: 'ignore', forMs: 5 }), 400, 'invalid_input', 'forMs: must be at least 60000'],
      [() => api.listRuns({ issue: 'zz' }), 400, 'invalid_input', 'issue: must be an issue id (its fingerprint, or the start of it: hex digits)'],
      [() => api.getIssueDetail({ id: '0123abcd' }), 404, 'issue_not_found', 'no such issue "0123abcd"'],
      [
        () => api.errorCounts({ by: 'code', issueStatus: 'archived' as never }),
        400,
        'invalid_input',
        'issueStatus: must be one of unresolved, resolved, ignored, regressed, escalating, new, ongoing',
      ],
    ];
    for (const [call, status, code, message] of cases) await expect(call()).rejects.toMatchObject({ status, apiCode: code, message });
  });
}
