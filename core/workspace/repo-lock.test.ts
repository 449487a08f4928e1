import { describe, expect, it } from 'vitest';
import { oneAtATime } from './repo-lock.js';

/** A task that records when it starts and ends, and ends when the test says so. */
function gate(log: string[], name: string) {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    open,
    work: async () => {
      log.push(`${name} starts`);
      await opened;
      log.push(`${name} ends`);
      return name;
    },
  };
}

describe('worktree changes of one repository, one at a time', () => {
  it('runs them in the order asked, never two of one repository at once, and another repository alongside', async () => {
    const log: string[] = [];
    const a = gate(log, 'a');
    const b = gate(log, 'b');
    const other = gate(log, 'other');
    const first = oneAtATime('/repo', a.work);
    const second = oneAtATime('/repo', b.work);
    const elsewhere = oneAtATime('/other-repo', other.work);
    await Promise.resolve();
    await Promise.resolve();
    expect(log).toEqual(['a starts', 'other starts']);
    b.open();
    other.open();
    await elsewhere;
    expect(log).toEqual(['a starts', 'other starts', 'other ends']);
    a.open();
    expect(await first).toBe('a');
    expect(await second).toBe('b');
    expect(log).toEqual(['a starts', 'other starts', 'other ends', 'a ends', 'b starts', 'b ends']);
  });

  it('a change that fails hands its error to its caller and lets the next one run', async () => {
    const failing = oneAtATime('/repo', () => Promise.reject(new Error('git said no')));
    const next = oneAtATime('/repo', () => Promise.resolve('ran'));
    await expect(failing).rejects.toThrow('git said no');
    expect(await next).toBe('ran');
  });
});
