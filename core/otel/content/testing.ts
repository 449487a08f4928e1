import { fixtureIds, readFixture } from '../../../agents-real/recording/fixtures-io.js';
import { CONTENT } from '../../../agents-real/genai-sdks/apps.js';
import { genAiFixtureIds, readGenAiFixture } from '../../../agents-real/recording/genai-fixtures.js';
import type { OtlpEncoding, OtlpSignal } from '../receive/decode.js';
import { ExportTraceServiceRequest, TO_OBJECT_OPTIONS } from '../receive/schema.js';
import { fixture } from '../testing.js';

/** The recorded OTLP exports of each scheme the content allow-list covers (content/allow-list.ts), as they arrived. */

export interface RecordedExport {
  /** Where it was recorded: `claude-code/text.json-out.otlp-json.default-retries#2`. */
  source: string;
  signal: Exclude<OtlpSignal, 'metrics'>;
  encoding: OtlpEncoding;
  payload: Buffer;
}

function cliExports(cli: 'claude-code' | 'codex-cli'): RecordedExport[] {
  return fixtureIds(cli).flatMap((id) => {
    const f = readFixture(cli, id);
    return (f?.exports ?? [])
      .filter((e) => e.signal === 'logs' || e.signal === 'traces')
      .map((e) => ({
        source: `${cli}/${id}#${e.seq}`,
        signal: e.signal as Exclude<OtlpSignal, 'metrics'>,
        encoding: e.encoding as OtlpEncoding,
        payload: e.payload,
      }));
  });
}

function sdkExports(family: string): RecordedExport[] {
  return genAiFixtureIds(family).flatMap((id) => {
    const f = readGenAiFixture(id, family);
    return (f?.bodies ?? []).map((payload, i) => ({
      source: `${family}/${id}#${i + 1}`,
      signal: 'traces' as const,
      encoding: f?.run.exports[i]?.contentType.includes('protobuf') ? ('protobuf' as const) : ('json' as const),
      payload,
    }));
  });
}

/** The recordings per scheme; the catalog example of Claude Code's logs too (the CLI recordings were made with prompts off). */
export function recordedExports(): Record<string, RecordedExport[]> {
  return {
    'claude-code': [
      ...cliExports('claude-code'),
      { source: 'core/otel/fixtures/claude-code-logs.json', signal: 'logs', encoding: 'json', payload: fixture('claude-code-logs', 'json') },
    ],
    'codex-cli': cliExports('codex-cli'),
    'genai conventions': [...sdkExports('genai-openai'), ...sdkExports('genai-traceloop')],
    'ai-sdk': sdkExports('genai-ai-sdk'),
    openinference: sdkExports('genai-openinference'),
    openllmetry: sdkExports('genai-traceloop'),
  };
}

/** Text each scheme's recordings carry as content: none of it may be kept. */
export const RECORDED_CONTENT: Record<string, readonly string[]> = {
  'claude-code': ['<REDACTED>', 'fix the flaky test in io.ts'],
  'codex-cli': ['[REDACTED]', 'echo hivewatch-tool-ran', 'Wall time:'],
  'genai conventions': Object.values(CONTENT),
  'ai-sdk': Object.values(CONTENT),
  openinference: Object.values(CONTENT),
  openllmetry: Object.values(CONTENT),
};

type Obj = Record<string, unknown>;

/**
 * A traces export as OTLP/JSON with an `exception` event added to every span: the decoder makes a
 * record of each span event with its span's attributes (decode.ts), so a span the ingest does not
 * map (OpenInference's) still has its attributes reach the journal that way when it records an error.
 */
export function withEventOnEverySpan(e: RecordedExport): Buffer {
  const request = (
    e.encoding === 'json'
      ? JSON.parse(e.payload.toString('utf8'))
      : ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(e.payload), TO_OBJECT_OPTIONS)
  ) as Obj;
  for (const rs of (request.resourceSpans as Obj[] | undefined) ?? []) {
    for (const ss of (rs.scopeSpans as Obj[] | undefined) ?? []) {
      for (const span of (ss.spans as Obj[] | undefined) ?? []) {
        const thrown = { name: 'exception', timeUnixNano: span.endTimeUnixNano, attributes: [{ key: 'exception.type', value: { stringValue: 'Error' } }] };
        span.events = [...((span.events as Obj[] | undefined) ?? []), thrown];
      }
    }
  }
  return Buffer.from(JSON.stringify(request));
}
