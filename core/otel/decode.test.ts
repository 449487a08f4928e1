import { describe, expect, it } from 'vitest';
import { decodeOtlp, OtlpDecodeError } from './decode.js';
import { fixture } from './testing.js';

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
});
