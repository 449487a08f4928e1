/**
 * WCAG 2.x contrast of two sRGB colours: (L1 + 0.05) / (L2 + 0.05) of their relative
 * luminances, from 1 (same) to 21 (black on white). Text needs 4.5 (WCAG 1.4.3, level AA).
 * Source of the formulas: https://www.w3.org/TR/WCAG21/#dfn-relative-luminance
 */

export type Rgb = readonly [number, number, number];

/** "#1f9d55" or "#fff" → [31, 157, 85]; anything else is an error (a typo must not pass a test). */
export function parseHex(hex: string): Rgb {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) throw new Error(`not a #rgb or #rrggbb colour: ${JSON.stringify(hex)}`);
  const digits = m[1] as string;
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join('') : digits;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) as unknown as Rgb;
}

function channel(value: number): number {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function relativeLuminance(color: string | Rgb): number {
  const [r, g, b] = typeof color === 'string' ? parseHex(color) : color;
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function contrastRatio(a: string | Rgb, b: string | Rgb): number {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** CSS `color-mix(in srgb, a p, b)`: each channel p·a + (1−p)·b, rounded. */
export function mixSrgb(a: string, b: string, weightOfA: number): Rgb {
  const ca = parseHex(a);
  const cb = parseHex(b);
  return [0, 1, 2].map((i) => Math.round((ca[i] as number) * weightOfA + (cb[i] as number) * (1 - weightOfA))) as unknown as Rgb;
}
