import { describe, expect, it } from 'vitest';
import { ignoreWords } from './ignore-words.js';

const NOW = new Date(2026, 10, 26, 12, 0, 0).getTime();

describe('an ignored issue says until when', () => {
  it('names the time it comes back, with the date unless it is today', () => {
    expect(ignoreWords({ until: new Date(2026, 10, 26, 14, 5).getTime(), count: null, escalating: false }, NOW).label).toBe('ignored until 14:05');
    // Ignored for 24 hours: the same time tomorrow, not "until 12:00".
    expect(ignoreWords({ until: NOW + 86_400_000, count: null, escalating: false }, NOW).label).toBe('ignored until 27 Nov 12:00');
    expect(ignoreWords({ until: new Date(2026, 10, 27, 0, 30).getTime(), count: null, escalating: false }, NOW).label).toBe('ignored until 27 Nov 00:30');
    expect(ignoreWords({ until: new Date(2027, 0, 2, 8, 0).getTime(), count: null, escalating: false }, NOW).label).toBe('ignored until 2 Jan 2027 08:00');
    const later = ignoreWords({ until: new Date(2026, 11, 3, 9, 30).getTime(), count: null, escalating: false }, NOW);
    expect(later.label).toBe('ignored until 3 Dec 09:30');
    expect(later.title).toBe('ignored until 2026-12-03 09:30:00.000, then unresolved again');
  });

  it('says how many more occurrences, or that it waits to escalate; an ignore with no end says none', () => {
    expect(ignoreWords({ until: null, count: 100, escalating: false }, NOW).label).toBe('ignored until 100 more occurrences');
    expect(ignoreWords({ until: null, count: 1, escalating: false }, NOW).label).toBe('ignored until 1 more occurrence');
    expect(ignoreWords({ until: null, count: null, escalating: true }, NOW).label).toBe('ignored until it escalates');
    expect(ignoreWords(null, NOW)).toEqual({ label: 'ignored', title: 'ignored until someone reopens it' });
  });
});
