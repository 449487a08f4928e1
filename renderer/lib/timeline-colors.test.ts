import { describe, expect, it } from 'vitest';
import { contrastRatio, mixSrgb, parseHex } from './contrast.js';
import { TIMELINE_COLORS, timelineColorVars } from './timeline-colors.js';

describe('contrastRatio', () => {
  it('gives WCAG’s reference values', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#fff', '#fff')).toBe(1);
    // #767676 on white is the well-known lightest grey that passes 4.5:1.
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#777777', '#ffffff')).toBeLessThan(4.5);
    expect(contrastRatio('#ffffff', '#767676')).toBe(contrastRatio('#767676', '#ffffff'));
  });

  it('rejects what is not a hex colour', () => {
    expect(() => parseHex('red')).toThrow('not a #rgb or #rrggbb colour: "red"');
  });

  it('mixes like color-mix in srgb', () => {
    expect(mixSrgb('#ffffff', '#000000', 0.5)).toEqual([128, 128, 128]);
  });
});

describe('timeline bar colours', () => {
  for (const theme of ['light', 'dark'] as const) {
    const c = TIMELINE_COLORS[theme];
    it(`${theme}: every bar label reads at 4.5:1 or better`, () => {
      const pairs: Array<[string, string | readonly [number, number, number], string]> = [
        ['succeeded', c.succeeded, c.label],
        ['failed', c.failed, c.label],
        ['running', c.running, c.label],
        ['running stripe', mixSrgb(c.running, c.stripe, 0.7), c.label],
        ['cancelled', c.cancelled, c.cancelledLabel],
        ['next attempt', c.surface, c.pendingLabel],
      ];
      const weak = pairs.map(([name, bar, label]) => ({ name, ratio: contrastRatio(bar, label) })).filter((p) => p.ratio < 4.5);
      expect(weak).toEqual([]);
    });
  }

  it('would have caught the old dark-theme white labels', () => {
    expect(contrastRatio(TIMELINE_COLORS.dark.succeeded, '#ffffff')).toBeLessThan(4.5);
  });

  it('hands the theme’s colours to the stylesheet', () => {
    expect(timelineColorVars(true)['--tl-label']).toBe(TIMELINE_COLORS.dark.label);
    expect(timelineColorVars(false)['--tl-succeeded']).toBe(TIMELINE_COLORS.light.succeeded);
  });
});
