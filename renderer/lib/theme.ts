import { useSyncExternalStore } from 'react';

/**
 * Light or dark, following the OS (`prefers-color-scheme`). CSS does the theming through custom
 * properties; charts (SVG attributes, which cannot read them) get concrete colours from here.
 */

const query = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

function subscribe(listener: () => void): () => void {
  query?.addEventListener('change', listener);
  return () => query?.removeEventListener('change', listener);
}

export function useDarkMode(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => query?.matches ?? false,
    () => false,
  );
}

export interface ChartTheme {
  text: string;
  muted: string;
  grid: string;
  cursor: string;
  tooltipBg: string;
  tooltipBorder: string;
  brushFill: string;
  accent: string;
}

const LIGHT: ChartTheme = {
  text: '#1f2430',
  muted: '#5d6577',
  grid: '#e3e6ec',
  cursor: 'rgba(80, 100, 140, 0.12)',
  tooltipBg: '#ffffff',
  tooltipBorder: '#d5d9e2',
  brushFill: '#f3f5f9',
  accent: '#2f6fdf',
};

const DARK: ChartTheme = {
  text: '#e4e7ee',
  muted: '#9aa3b5',
  grid: '#2c3240',
  cursor: 'rgba(160, 180, 220, 0.12)',
  tooltipBg: '#1b1f29',
  tooltipBorder: '#363d4d',
  brushFill: '#181c25',
  accent: '#6b9cff',
};

export function useChartTheme(): ChartTheme {
  return useDarkMode() ? DARK : LIGHT;
}

/** One colour per error category, readable on both themes. */
const CATEGORY_COLORS: Record<string, string> = {
  system: '#8b5cf6',
  runtime: '#e5484d',
  agent: '#f5a524',
  scope: '#12a594',
  verification: '#3e8ef7',
  git: '#f76b15',
  user: '#e93d82',
  policy: '#7c8798',
};

const FALLBACK = ['#3e8ef7', '#12a594', '#f5a524', '#8b5cf6', '#e93d82', '#f76b15', '#7c8798', '#e5484d'];

export function colorFor(key: string, index = 0): string {
  return CATEGORY_COLORS[key] ?? (FALLBACK[index % FALLBACK.length] as string);
}
