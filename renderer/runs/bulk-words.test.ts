import { describe, expect, it } from 'vitest';
import { confirmLabel, previewText, progressText, summaryText } from './bulk-words.js';

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
});
