import { attributes, type Attributes, firstTime, isObj, list, type Obj, OtlpDecodeError, type OtlpEncoding, parseJson, timeOf } from '../receive/decode.js';
import { ExportMetricsServiceRequest, TO_OBJECT_OPTIONS } from '../receive/schema.js';

/**
 * OTLP/HTTP metrics request bodies (`http/json` and `http/protobuf`) decoded into their data
 * points, each with its metric's name and its resource's attributes. The shape is
 * opentelemetry-proto's metrics.proto: ExportMetricsServiceRequest → ResourceMetrics →
 * ScopeMetrics → Metric, whose one data field (gauge, sum, histogram, exponential histogram,
 * summary) holds the data points, each with its own attributes (docs/otel.md "Metrics").
 * Hivewatch reads a point's attributes, time and number; buckets, exemplars and quantiles are
 * never read, so they are not decoded.
 */

type MetricKind = 'gauge' | 'sum' | 'histogram' | 'exponentialHistogram' | 'summary';

export interface MetricPoint {
  metric: string;
  kind: MetricKind;
  attributes: Attributes;
  resource: Attributes;
  /** As TelemetryRecord's: the point's time, else its start time; 0 when neither is set. */
  timeMs: number;
  timeGiven: string | null;
  timeField: string;
  /** A gauge's or sum's number (`asInt` / `asDouble`), a histogram's or summary's count; null when the point has none. */
  value: number | null;
}

const KINDS: readonly MetricKind[] = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'];

/** A number as OTLP/JSON writes it (64-bit integers as text) or protobufjs gives it; null when absent or not a number. */
function numberOf(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

function valueOf(kind: MetricKind, point: Obj): number | null {
  if (kind === 'gauge' || kind === 'sum') return numberOf(point.asInt) ?? numberOf(point.asDouble);
  return numberOf(point.count);
}

function pointsOf(metric: Obj, where: string, resource: Attributes): MetricPoint[] {
  const name = typeof metric.name === 'string' ? metric.name : '';
  const kinds = KINDS.filter((k) => metric[k] !== undefined && metric[k] !== null);
  // A metric without data (or of a kind newer than this list) has no point to read.
  const kind = kinds[0];
  if (kind === undefined) return [];
  const data = metric[kind];
  if (!isObj(data)) throw new OtlpDecodeError(`${where}.${kind} must be an object`);
  return list(data.dataPoints, `${where}.${kind}.dataPoints`).map((point, d) => {
    const at = `${where}.${kind}.dataPoints[${d}]`;
    if (!isObj(point)) throw new OtlpDecodeError(`${at} must be an object`);
    const time = firstTime(timeOf(point.timeUnixNano, 'timeUnixNano'), timeOf(point.startTimeUnixNano, 'startTimeUnixNano'));
    return {
      metric: name,
      kind,
      attributes: attributes(point.attributes, `${at}.attributes`),
      resource,
      timeMs: time.ms,
      timeGiven: time.given,
      timeField: time.field,
      value: valueOf(kind, point),
    };
  });
}

function metricPoints(request: Obj): MetricPoint[] {
  const out: MetricPoint[] = [];
  for (const [r, rm] of list(request.resourceMetrics, 'resourceMetrics').entries()) {
    if (!isObj(rm)) throw new OtlpDecodeError(`resourceMetrics[${r}] must be an object`);
    const resource = attributes(isObj(rm.resource) ? rm.resource.attributes : undefined, `resourceMetrics[${r}].resource.attributes`);
    for (const [s, sm] of list(rm.scopeMetrics, `resourceMetrics[${r}].scopeMetrics`).entries()) {
      if (!isObj(sm)) throw new OtlpDecodeError(`resourceMetrics[${r}].scopeMetrics[${s}] must be an object`);
      for (const [m, metric] of list(sm.metrics, `resourceMetrics[${r}].scopeMetrics[${s}].metrics`).entries()) {
        const where = `resourceMetrics[${r}].scopeMetrics[${s}].metrics[${m}]`;
        if (!isObj(metric)) throw new OtlpDecodeError(`${where} must be an object`);
        out.push(...pointsOf(metric, where, resource));
      }
    }
  }
  return out;
}

function parseProtobuf(body: Buffer): Obj {
  try {
    return ExportMetricsServiceRequest.toObject(ExportMetricsServiceRequest.decode(body), TO_OBJECT_OPTIONS) as Obj;
  } catch (error) {
    throw new OtlpDecodeError(`the body is not a protobuf ${ExportMetricsServiceRequest.name}: ${(error as Error).message}`);
  }
}

/** Decodes one OTLP/HTTP metrics request body into its data points. Throws OtlpDecodeError naming what is wrong. */
export function decodeMetrics(encoding: OtlpEncoding, body: Buffer): MetricPoint[] {
  return metricPoints(encoding === 'json' ? parseJson(body) : parseProtobuf(body));
}
