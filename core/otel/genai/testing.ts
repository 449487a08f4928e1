/** OTLP/JSON trace payloads of hand-written spans, for the GenAI mapping's tests on shapes no recorded client sends. */

type SpanValue = string | number | boolean;

export interface SpanSpec {
  name: string;
  attributes: Record<string, SpanValue>;
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  /** Ms; null leaves the time out. Default: `t0 + i * 100` (start) and 50 ms later (end), i the span's place. */
  startMs?: number | null;
  endMs?: number | null;
  status?: { code: number; message?: string };
  events?: { name: string; attributes: Record<string, SpanValue> }[];
}

const nanos = (ms: number): string => `${BigInt(ms) * 1_000_000n}`;
const value = (v: SpanValue) =>
  typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
const attributes = (attrs: Record<string, SpanValue>) => Object.entries(attrs).map(([key, v]) => ({ key, value: value(v) }));

/** One export request of `service`'s spans, as an SDK's OTLP/JSON exporter sends it. */
export function spanPayload(service: string, spans: readonly SpanSpec[], t0: number): Buffer {
  const otlpSpans = spans.map((s, i) => ({
    traceId: s.traceId ?? 'a'.repeat(32),
    spanId: s.spanId ?? `${i + 1}`.padStart(16, '0'),
    ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
    name: s.name,
    kind: 3,
    ...(s.startMs === null ? {} : { startTimeUnixNano: nanos(s.startMs ?? t0 + i * 100) }),
    ...(s.endMs === null ? {} : { endTimeUnixNano: nanos(s.endMs ?? t0 + i * 100 + 50) }),
    attributes: attributes(s.attributes),
    status: s.status ?? {},
    ...(s.events
      ? { events: s.events.map((e) => ({ name: e.name, timeUnixNano: nanos(s.endMs ?? t0 + i * 100 + 50), attributes: attributes(e.attributes) })) }
      : {}),
  }));
  const resource = { attributes: [{ key: 'service.name', value: { stringValue: service } }] };
  return Buffer.from(JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'test' }, spans: otlpSpans }] }] }));
}
