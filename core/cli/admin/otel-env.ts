import { otelPortOf } from '../../otel/host.js';
import { OTEL_AGENTS, otelEnvText, type OtelAgent } from '../../runtimes/presets/telemetry-env.js';
import { openTelemetrySettings } from '../../service/history/telemetry-settings.js';
import { stringFlag, UsageError, type ParsedArgs } from '../args.js';
import { databasePathOf } from '../database.js';
import { ExitCode, type CliIo } from '../io.js';

/**
 * `hivewatch otel-env [--agent claude-code|codex-cli] [--db PATH] [--port N] [--store-prompts on|off]`: the settings that
 * point an agent at this database's receiver. The token is the database's (made on first use),
 * so the printed settings stay valid across restarts of the app. `--store-prompts on` lets prompt
 * text arriving in telemetry into the journal (default off).
 */
export async function otelEnvCommand(args: ParsedArgs, io: CliIo): Promise<number> {
  const agent = stringFlag(args, 'agent') ?? 'claude-code';
  if (!(OTEL_AGENTS as readonly string[]).includes(agent)) throw new UsageError(`--agent must be one of ${OTEL_AGENTS.join(', ')}, got "${agent}"`);
  let port: number | null;
  try {
    port = otelPortOf(stringFlag(args, 'port'), io.env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (port === null || port === 0) throw new UsageError('otel-env needs the fixed port the app listens on (not "off" or 0)');
  const storePrompts = stringFlag(args, 'store-prompts');
  if (storePrompts !== undefined && storePrompts !== 'on' && storePrompts !== 'off')
    throw new UsageError(`--store-prompts must be on or off, got "${storePrompts}"`);
  const settings = await openTelemetrySettings(databasePathOf(args, io));
  try {
    if (storePrompts !== undefined) {
      await settings.setStorePrompts(storePrompts === 'on');
      io.err(`prompt text from telemetry is ${storePrompts === 'on' ? 'now stored' : 'no longer stored'} in ${settings.location}\n`);
    }
    io.out(otelEnvText(agent as OtelAgent, { endpoint: `http://127.0.0.1:${port}`, token: await settings.token() }));
  } finally {
    await settings.close();
  }
  return ExitCode.ok;
}
