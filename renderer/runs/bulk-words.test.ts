import { describe, expect, it } from 'vitest';
import { confirmLabel, everyRunOfFilter, previewText, progressText, refusalLines, summaryText } from './bulk-words.js';

describe('the words of the bulk actions', () => {
  it('says the summary, the progress, the preview and the confirm button as the operator reads them', () => {
    expect(summaryText({ action: 'cancel', done: 198, refused: 2 })).toBe('198 cancelled, 2 refused');
    expect(summaryText({ action: 'retryNow', done: 1_000, refused: 0 })).toBe('1,000 retried now, 0 refused');
    expect(progressText('cancel', 50, 200)).toBe('Cancelling… 50 of 200 runs');
    expect(previewText({ action: 'cancel', matched: 200, done: 200, refused: 0 })).toBe('200 of 200 runs will be cancelled.');
    expect(previewText({ action: 'resume', matched: 3, done: 1, refused: 2 })).toBe('1 of 3 runs will be resumed; 2 will be refused:');
    expect(confirmLabel('retryNow', 1)).toBe('Retry 1 run now');
    expect(confirmLabel('retry', 12)).toBe('Retry 12 runs');
  });

  it('puts runs refused for the same reason on one line, and counts the runs beyond three reasons', () => {
    const completed = (id: string) => ({
      runId: id,
      outcome: 'refused' as const,
      message: `run ${id} completed; a completed run is retried on its own, never in bulk`,
    });
    const active = (id: string, status: string) => ({
      runId: id,
      outcome: 'refused' as const,
      message: `run ${id} is ${status}; cancel it or let it finish before retrying`,
    });
    const results = [completed('run_a'), { runId: 'run_ok', outcome: 'done' as const }, completed('run_b'), completed('run_c'), active('run_d', 'running')];
    expect(refusalLines(results)).toEqual([
      'run run_a completed; a completed run is retried on its own, never in bulk — and 2 more runs like it',
      'run run_d is running; cancel it or let it finish before retrying',
    ]);
    const more = [
      ...results,
      active('run_e', 'queued'),
      active('run_f', 'cancelling'),
      active('run_g', 'cancelling'),
      { runId: 'run_h', outcome: 'refused' as const },
    ];
    expect(refusalLines(more).slice(2)).toEqual([
      'run run_e is queued; cancel it or let it finish before retrying',
      'and 3 more runs refused for other reasons',
    ]);
  });

  it('names a filter of statuses alone for what it is, every run of them, and nothing for one that narrows', () => {
    expect(everyRunOfFilter({ status: ['failed'] })).toBe('every failed run');
    expect(everyRunOfFilter({ status: ['failed', 'cancelled', 'interrupted'] })).toBe('every failed, cancelled or interrupted run');
    expect(everyRunOfFilter({})).toBe('every run');
    expect(everyRunOfFilter({ status: ['running'], flow: 'user/a.prose' })).toBeNull();
    expect(everyRunOfFilter({ since: 0 })).toBeNull();
    expect(everyRunOfFilter({ issue: 'ab12' })).toBeNull();
  });
});
