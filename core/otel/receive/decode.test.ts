import { describe, expect, it } from 'vitest';
import { decodeOtlp, nestsDeeperThan, OtlpDecodeError } from './decode.js';
import { sessionOf } from '../mapping.js';
import { fixture } from '../testing.js';

const oneRecord = (record: object, resource: object[] = []): Buffer =>
  Buffer.from(JSON.stringify({ resourceLogs: [{ resource: { attributes: resource }, scopeLogs: [{ logRecords: [record] }] }] }));

describe('decodeOtlp', () => {
  it('reads the Claude Code fixture as named records with resource and attributes', () => {
    const records = decodeOtlp('logs', 'json', fixture('claude-code-logs', 'json'));
    expect(records).toHaveLength(11);
    expect(records[0]).toMatchObject({
      name: 'claude_code.user_prompt',
      timeMs: 1763900001000,
      signal: 'logs',
      resource: { 'service.name': 'claude-code', 'service.version': '2.0.50' },
      attributes: { 'session.id': '7f3c9a2e-1b4d-4e8a-9c6f-2d5e8b1a0c33', 'prompt.id': 'p-1', prompt_length: 27 },
    });
    expect(records[1]?.attributes).toMatchObject({ status_code: '529', attempt: 1, model: 'claude-sonnet-4-5' });
  });

  // The .pb fixtures were encoded by the generated encoder of @opentelemetry/otlp-transformer 0.57
  // (built from the official .proto files), not by this schema: a wrong field number here fails.
  it.each(['claude-code-logs', 'codex-cli-logs'])('decodes %s the same from protobuf as from JSON', (name) => {
    expect(decodeOtlp('logs', 'protobuf', fixture(name, 'protobuf'))).toEqual(decodeOtlp('logs', 'json', fixture(name, 'json')));
  });

  it('flattens span events of a trace payload, with the span attributes beside their own', () => {
    const json = decodeOtlp('traces', 'json', fixture('codex-cli-traces', 'json'));
    expect(json.map((r) => r.name)).toEqual(['codex.user_prompt', 'codex.api_request', 'codex.turn_ttft']);
    expect(json[1]?.attributes).toMatchObject({ 'conversation.id': '0199a5e2-codex-conv-43', 'http.response.status_code': 503 });
    expect(decodeOtlp('traces', 'protobuf', fixture('codex-cli-traces', 'protobuf'))).toEqual(json);
  });

  it('names what is wrong with a malformed payload', () => {
    const bad = (signal: 'logs' | 'traces', encoding: 'json' | 'protobuf', body: string | Buffer): string => {
      try {
        decodeOtlp(signal, encoding, Buffer.isBuffer(body) ? body : Buffer.from(body));
      } catch (error) {
        expect(error).toBeInstanceOf(OtlpDecodeError);
        return (error as Error).message;
      }
      throw new Error('decoded');
    };
    expect(bad('logs', 'json', '{"resourceLogs": [')).toMatch(/^the body is not JSON: /);
    expect(bad('logs', 'json', '[1]')).toBe('the body must be a JSON object (an OTLP export request)');
    expect(bad('logs', 'json', '{"resourceLogs": {"x": 1}}')).toBe('resourceLogs must be an array');
    expect(bad('logs', 'json', '{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"timeUnixNano": "soon"}]}]}]}')).toBe(
      'a time must be an unsigned integer of nanoseconds, got "soon"',
    );
    expect(bad('logs', 'protobuf', Buffer.from([0x0a, 0xff, 0xff, 0x01]))).toMatch(/^the body is not a protobuf ExportLogsServiceRequest: /);
  });

  it('accepts an empty request', () => {
    expect(decodeOtlp('logs', 'json', Buffer.from('{}'))).toEqual([]);
    expect(decodeOtlp('traces', 'protobuf', Buffer.alloc(0))).toEqual([]);
  });

  it('refuses JSON nested past 100 levels with a reason, before any recursive walk', () => {
    const levels = 10_000;
    const deep = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"attributes":[{"key":"a","value":${'{"kvlistValue":{"values":[{"key":"k","value":'.repeat(levels)}{"stringValue":"x"}${'}]}}'.repeat(levels)}}]}]}]}]}`;
    expect(() => decodeOtlp('logs', 'json', Buffer.from(deep))).toThrow(
      new OtlpDecodeError('the JSON nests deeper than 100 levels (an OTLP request needs about 12, and 4 more per nested attribute value)'),
    );
    expect(nestsDeeperThan(JSON.parse(`${'['.repeat(101)}${']'.repeat(101)}`), 100)).toBe(true);
    expect(nestsDeeperThan(JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`), 100)).toBe(false);
  });

  it("keys named __proto__, constructor and prototype are data: own keys, never the object's prototype", () => {
    const smuggled = { kvlistValue: { values: [{ key: 'session.id', value: { stringValue: 'smuggled' } }] } };
    const [record] = decodeOtlp(
      'logs',
      'json',
      oneRecord(
        {
          body: { stringValue: 'claude_code.api_error' },
          attributes: [
            { key: '__proto__', value: smuggled },
            { key: 'constructor', value: { stringValue: 'c' } },
            { key: 'prototype', value: { stringValue: 'p' } },
          ],
        },
        [{ key: '__proto__', value: smuggled }],
      ),
    );
    expect(Object.getPrototypeOf(record!.attributes)).toBe(Object.prototype);
    expect(Object.keys(record!.attributes)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(Object.getOwnPropertyDescriptor(record!.attributes, '__proto__')?.value).toEqual({ 'session.id': 'smuggled' });
    expect(JSON.parse(JSON.stringify(record!.attributes))).toMatchObject({ constructor: 'c', prototype: 'p' });
    // Nothing the prototype key carried is read as the record's own session.
    expect(sessionOf(record!).sessionId).toBe('unknown');
  });

  it('reads any unsigned time as given: past a fixed64 it is NaN (ingest replaces it), zero is unset', () => {
    const timeOf = (timeUnixNano: unknown, observedTimeUnixNano?: unknown) => {
      const [record] = decodeOtlp('logs', 'json', oneRecord({ timeUnixNano, observedTimeUnixNano, body: { stringValue: 'x.y' } }));
      return { ms: record!.timeMs, given: record!.timeGiven, field: record!.timeField };
    };
    expect(timeOf('10413792000000000000')).toEqual({ ms: Date.UTC(2300, 0, 1), given: '10413792000000000000', field: 'timeUnixNano' });
    expect(timeOf('18446744073709551616')).toEqual({ ms: Number.NaN, given: '18446744073709551616', field: 'timeUnixNano' });
    expect(timeOf(`1${'0'.repeat(39)}`)).toMatchObject({ ms: Number.NaN });
    expect(timeOf(1e25)).toEqual({ ms: Number.NaN, given: '10000000000000000905969664', field: 'timeUnixNano' });
    expect(timeOf('0', '1763900000000000000')).toEqual({ ms: 1763900000000, given: '1763900000000000000', field: 'observedTimeUnixNano' });
    expect(timeOf(undefined)).toMatchObject({ given: null });
    // A megabyte of digits is not parsed (that would take long), and a long wrong value is quoted short.
    expect(timeOf('9'.repeat(1024 * 1024))).toMatchObject({ ms: Number.NaN });
    expect(() => timeOf('x'.repeat(1000))).toThrow(/^a time must be an unsigned integer of nanoseconds, got "x{63}…$/);
  });
});
