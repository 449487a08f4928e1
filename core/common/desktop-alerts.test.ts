import { describe, expect, it } from 'vitest';
import { freshDesktopAlerts, NO_DESKTOP_ALERTS_SHOWN } from './desktop-alerts.js';

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
