import type { HivewatchStore } from '../store/contract.js';
import { parseDuration } from '../base/duration.js';
import { DEFAULT_QUIET_MS } from './receive/ingest.js';
import { DEFAULT_OTEL_PORT, startOtlpReceiver, type OtlpReceiver } from './receive/receiver.js';

/**
 * The receiver as a shell starts it (`serve`, the Electron main process): the port from the
 * flag, else HIVEWATCH_OTEL_PORT, else 4318; `off` starts none. A taken port does not stop the
 * app: the reason is logged and the window works without ingest.
 */

const OTEL_PORT_ENV = 'HIVEWATCH_OTEL_PORT';
export const OTEL_IDLE_ENV = 'HIVEWATCH_OTEL_IDLE';
/** The shortest quiet period: a session quieter than a CLI's own export interval (Codex: 5 s for traces) would end between two exports. */
const MIN_QUIET_MS = 10_000;

/**
 * The quiet period after which an agent session ends (ms): `--otel-idle`, else
 * HIVEWATCH_OTEL_IDLE, else 2 minutes (DEFAULT_QUIET_MS). A duration such as `90s`, `10m`, `1h`.
 */
export function otelIdleOf(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const text = (flag ?? env[OTEL_IDLE_ENV] ?? '').trim();
  if (text === '') return DEFAULT_QUIET_MS;
  const parsed = parseDuration(text);
  if (!parsed.ok || parsed.ms < MIN_QUIET_MS) {
    throw new Error(`the OTLP quiet period must be a duration of at least 10s such as "90s" or "10m", got "${text}" (--otel-idle / ${OTEL_IDLE_ENV})`);
  }
  return parsed.ms;
}

/** The port to listen on, or null for `off`. Throws a usage message for anything else. */
export function otelPortOf(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number | null {
  const text = (flag ?? env[OTEL_PORT_ENV] ?? '').trim();
  if (text === '') return DEFAULT_OTEL_PORT;
  if (text === 'off') return null;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) {
    throw new Error(`the OTLP port must be a number from 0 to 65535 or "off", got "${text}" (--otel-port / ${OTEL_PORT_ENV})`);
  }
  return Number(text);
}

export async function startHostReceiver(
  store: HivewatchStore,
  port: number | null,
  log: (line: string) => void,
  quietMs: number = DEFAULT_QUIET_MS,
): Promise<OtlpReceiver | null> {
  if (port === null) return null;
  try {
    const receiver = await startOtlpReceiver({ store, port, log, quietMs });
    log(`OpenTelemetry: receiving OTLP/HTTP on ${receiver.endpoint} (/v1/logs, /v1/traces, /v1/metrics); \`hivewatch otel-env\` prints an agent's settings`);
    return receiver;
  } catch (error) {
    log(`OpenTelemetry: no receiver: ${(error as Error).message}`);
    return null;
  }
}
