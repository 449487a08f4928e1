import { describe, expect, it } from 'vitest';
import { contrastRatio } from '../lib/contrast.js';
import { SYNTAX_COLORS, syntaxColorVars } from './syntax-colors.js';

describe('syntax colours', () => {
  for (const theme of ['light', 'dark'] as const) {
    it(`${theme}: every token colour reads at 4.5:1 or better on the source panel`, () => {
      const { panel, ...tokens } = SYNTAX_COLORS[theme];
      for (const [kind, color] of Object.entries(tokens)) {
        expect(contrastRatio(color, panel), `${theme} ${kind} ${color}`).toBeGreaterThanOrEqual(4.5);
      }
      expect(Object.keys(syntaxColorVars(theme))).toEqual(Object.keys(tokens).map((k) => `--syn-${k}`));
    });
  }
});
