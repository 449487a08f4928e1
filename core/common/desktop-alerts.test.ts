import { describe, expect, it } from 'vitest';
import { freshDesktopAlerts, NO_DESKTOP_ALERTS_SHOWN, oneReadAtATime } from './desktop-alerts.js';

describe('freshDesktopAlerts', () => {
  it('gives each id once across overlapping answers, in answer order, and remembers a bounded number', () => {
    const first = freshDesktopAlerts(NO_DESKTOP_ALERTS_SHOWN, [{ id: 'a' }, { id: 'b' }]);
    expect(first.fresh.map((a) => a.id)).toEqual(['a', 'b']);
    const second = freshDesktopAlerts(first.memory, [{ id: 'b' }, { id: 'c' }, { id: 'c' }]);
    expect(second.fresh.map((a) => a.id)).toEqual(['c']);
    expect(freshDesktopAlerts(second.memory, [{ id: 'a' }, { id: 'c' }])).toEqual({ fresh: [], memory: second.memory });

    const many = Array.from({ length: 600 }, (_, i) => ({ id: `x${i}` }));
    const full = freshDesktopAlerts(second.memory, many).memory;
    expect(full.shown).toHaveLength(500);
    expect(full.shown[0]).toBe('x100');
    expect(full.shown.at(-1)).toBe('x599');
  });
});

describe('oneReadAtATime', () => {
  /** Reads the test answers one by one, in the order they began. */
  const settled = async (): Promise<void> => {
    for (let i = 0; i < 10; i += 1) await Promise.resolve();
  };

  function heldReads() {
    const answers: { resolve: () => void; reject: (error: Error) => void }[] = [];
    const read = () => new Promise<void>((resolve, reject) => answers.push({ resolve, reject }));
    return { answers, check: oneReadAtATime(read) };
  }

  it('answers calls made during a read with one more read after it, shared by all of them', async () => {
    const { answers, check } = heldReads();
    const done: string[] = [];
    const first = check().then(() => done.push('first'));
    const during = [check(), check(), check()].map((p, i) => p.then(() => done.push(`during ${i}`)));
    expect(answers).toHaveLength(1);
    answers[0]!.resolve();
    await first;
    // The second read began only once the first had ended, and the calls made meanwhile wait for it.
    await settled();
    expect(answers).toHaveLength(2);
    expect(done).toEqual(['first']);
    answers[1]!.resolve();
    await Promise.all(during);
    expect(done).toEqual(['first', 'during 0', 'during 1', 'during 2']);
    // Idle again: the next call reads at once.
    void check();
    expect(answers).toHaveLength(3);
    answers[2]!.resolve();
  });

  it('a read that fails rejects its own callers and still lets the one queued after it run', async () => {
    const { answers, check } = heldReads();
    const failed = check();
    const queued = check();
    answers[0]!.reject(new Error('the server is away'));
    await expect(failed).rejects.toThrow('the server is away');
    await settled();
    expect(answers).toHaveLength(2);
    answers[1]!.resolve();
    await expect(queued).resolves.toBeUndefined();
  });
});
