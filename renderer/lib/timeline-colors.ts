/**
 * The retry timeline's bar colours and the colours of the labels drawn on them, per theme. They
 * live here rather than in the stylesheet so that a unit test can hold every pair to WCAG's 4.5:1
 * (timeline-colors.test.ts); RetryTimeline hands them to its CSS as custom properties.
 *
 * On the light theme labels are white on darkened bars; on the dark theme, where the bars are
 * bright, labels are near-black (white on the dark theme's bright green read at 1.9:1). A running
 * bar's stripes mix its colour with `stripe`, which moves away from the label colour, so the
 * stripes only raise the contrast.
 */

export interface TimelineColors {
  succeeded: string;
  failed: string;
  running: string;
  /** The label on succeeded, failed and running bars. */
  label: string;
  /** Mixed 30 % into a running bar's stripes. */
  stripe: string;
  cancelled: string;
  cancelledLabel: string;
  /** The dashed marker of the next attempt and the countdown beside a waiting task. */
  pendingLabel: string;
  /** The panel behind the pending marker and the backoff labels. */
  surface: string;
}

export const TIMELINE_COLORS = {
  light: {
    succeeded: '#1a7f45',
    failed: '#d93036',
    running: '#2f6fdf',
    label: '#ffffff',
    stripe: '#000000',
    cancelled: '#eceef2',
    cancelledLabel: '#5d6577',
    pendingLabel: '#8f5500',
    surface: '#ffffff',
  },
  dark: {
    succeeded: '#3ecf7a',
    failed: '#ff6b6b',
    running: '#6b9cff',
    label: '#10131a',
    stripe: '#ffffff',
    cancelled: '#252b37',
    cancelledLabel: '#a1aab9',
    pendingLabel: '#f5b041',
    surface: '#161a22',
  },
} as const satisfies Record<'light' | 'dark', TimelineColors>;

/** The colours as the custom properties run-detail.css reads (`--tl-succeeded`, …). */
export function timelineColorVars(dark: boolean): Record<string, string> {
  const colors: TimelineColors = dark ? TIMELINE_COLORS.dark : TIMELINE_COLORS.light;
  return {
    '--tl-succeeded': colors.succeeded,
    '--tl-failed': colors.failed,
    '--tl-running': colors.running,
    '--tl-label': colors.label,
    '--tl-stripe': colors.stripe,
    '--tl-cancelled': colors.cancelled,
    '--tl-cancelled-label': colors.cancelledLabel,
    '--tl-pending-label': colors.pendingLabel,
  };
}
