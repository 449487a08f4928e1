import { STORE_PROMPTS_SETTING } from '../../otel/receive/ingest.js';
import { otelToken } from '../../otel/receive/receiver.js';
import { openStore } from '../../store/index.js';

/** What a database keeps for the agents that report to its receiver. */
export interface TelemetrySettings {
  /** Where it is (a file path, or a PostgreSQL URL without its password). */
  readonly location: string;
  /** The receiver's token: the database's, made on first use, so it stays valid across restarts. */
  token(): Promise<string>;
  /** Whether prompt text arriving in telemetry is kept in the journal (off until turned on). */
  setStorePrompts(on: boolean): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a database's telemetry settings (`hivewatch otel-env`). Without recovery: printing
 * settings must not touch the runs of an app that has the database open.
 */
export async function openTelemetrySettings(path: string): Promise<TelemetrySettings> {
  const store = await openStore({ path, recover: false });
  return {
    location: store.location,
    token: () => otelToken(store),
    setStorePrompts: (on) => store.setSetting(STORE_PROMPTS_SETTING, on ? 'on' : 'off'),
    close: () => store.close(),
  };
}
