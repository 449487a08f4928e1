/**
 * The hostile OTLP set, for the tests that send it to a real receiver
 * (core/otel/receive/hostile.test.ts on both engines, e2e/hostile-telemetry.test.ts for the screens):
 * impossible timestamps, nesting past any sane depth, NUL and unpaired surrogates, megabyte ids,
 * values of the wrong type, and prototype keys. Each payload says what the receiver must answer.
 * Every accepted payload is its own session (`conversation.id` / `session.id` below), so each
 * becomes its own external run.
 */

export interface HostilePayload {
  name: string;
  signal: 'logs' | 'traces';
  contentType: 'application/json' | 'application/x-protobuf';
  body: Buffer;
  /** 200: taken (with adjustments); 400: refused with a reason matching `error`. */
  expect: { status: 200 } | { status: 400; error: RegExp };
}

type Value = Record<string, unknown>;
const str = (value: string): Value => ({ stringValue: value });
const int = (value: string | number): Value => ({ intValue: value });
const dbl = (value: number | string): Value => ({ doubleValue: value });
const kv = (key: string, value: Value): Value => ({ key, value });

/** Nanoseconds since the epoch, as OTLP/JSON writes them (a decimal string). */
const nanos = (ms: number): string => `${BigInt(Math.round(ms)) * 1_000_000n}`;

const YEAR_2300_NS = `${BigInt(Date.UTC(2300, 0, 1)) * 1_000_000n}`;
const MAX_FIXED64 = '18446744073709551615';
const FORTY_DIGITS = `1${'0'.repeat(39)}`;
const MEGABYTE = 1024 * 1024;

function logs(resource: Value[], records: Value[]): Buffer {
  return Buffer.from(JSON.stringify({ resourceLogs: [{ resource: { attributes: resource }, scopeLogs: [{ logRecords: records }] }] }));
}

const claude = [kv('service.name', str('claude-code')), kv('service.version', str('2.0.50'))];

function apiError(session: string, time: unknown, extra: Value[] = []): Value {
  return {
    timeUnixNano: time,
    body: str('claude_code.api_error'),
    attributes: [
      kv('session.id', str(session)),
      kv('prompt.id', str('p-1')),
      kv('error', str('Overloaded')),
      kv('status_code', str('529')),
      kv('duration_ms', int(1200)),
      ...extra,
    ],
  };
}

/** `levels` kvlist values inside one another, as JSON text (JSON.stringify would overflow building it). */
function nestedKvlist(levels: number): string {
  return `${'{"kvlistValue":{"values":[{"key":"k","value":'.repeat(levels)}{"stringValue":"bottom"}${'}]}}'.repeat(levels)}`;
}

/** A log payload with one record whose attribute `deep` is `levels` kvlists deep. */
function deepJson(levels: number, time: string): Buffer {
  const record = `{"timeUnixNano":"${time}","body":{"stringValue":"claude_code.api_request"},"attributes":[{"key":"deep","value":${nestedKvlist(levels)}}]}`;
  return Buffer.from(`{"resourceLogs":[{"resource":{"attributes":${JSON.stringify(claude)}},"scopeLogs":[{"logRecords":[${record}]}]}]}`);
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  let rest = n;
  while (rest >= 0x80) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A length-delimited protobuf field. */
const field = (number: number, payload: Buffer): Buffer => Buffer.concat([varint((number << 3) | 2), varint(payload.length), payload]);

/** ExportLogsServiceRequest bytes with one attribute whose kvlist values nest `levels` deep (field numbers of schema.ts). */
function deepProtobuf(levels: number): Buffer {
  let anyValue = field(1, Buffer.from('bottom'));
  for (let i = 0; i < levels; i++) {
    const keyValue = Buffer.concat([field(1, Buffer.from('k')), field(2, anyValue)]);
    anyValue = field(6, field(1, keyValue));
  }
  const attribute = Buffer.concat([field(1, Buffer.from('deep')), field(2, anyValue)]);
  return field(1, field(2, field(2, field(6, attribute))));
}

/** A JSON log payload; taken unless `expect` says what refusal it must meet. */
function json(name: string, body: Buffer, expect: HostilePayload['expect'] = { status: 200 }): HostilePayload {
  return { name, signal: 'logs', contentType: 'application/json', body, expect };
}

/** Record times no agent writes: year 2300, the fixed64 maximum, 40 digits, before 2000, a JSON number. */
function hostileTimes(): HostilePayload[] {
  return [
    json('time-year-2300', logs(claude, [apiError('hostile-time-2300', YEAR_2300_NS)])),
    json('time-max-fixed64', logs(claude, [apiError('hostile-time-max', MAX_FIXED64)])),
    json(
      'time-40-digits',
      logs(claude, [
        {
          timeUnixNano: FORTY_DIGITS,
          body: str('claude_code.user_prompt'),
          attributes: [kv('session.id', str('hostile-time-40')), kv('prompt.id', str('p-1'))],
        },
        {
          timeUnixNano: FORTY_DIGITS,
          body: str('claude_code.api_request'),
          attributes: [kv('session.id', str('hostile-time-40')), kv('prompt.id', str('p-1')), kv('duration_ms', dbl(1e308))],
        },
      ]),
    ),
    json('time-before-2000', logs(claude, [apiError('hostile-time-1970', '1000')])),
    json('time-json-number-1e25', logs(claude, [apiError('hostile-time-number', 1e25)])),
  ];
}

/** Text and values a receiver must take without choking: NUL and lone surrogates, megabyte ids, values of the wrong type. */
function hostileValues(recent: string): HostilePayload[] {
  return [
    json(
      'nul-and-surrogates',
      logs(claude, [
        apiError('hostile-nul\u0000session', recent, [
          kv('prompt.id', str('p\u0000\uD800')),
          kv('error', str('bad\u0000message \uDC00')),
          kv('note', str('a\u0000b')),
        ]),
      ]),
    ),
    json(
      'huge-ids',
      logs(
        [kv('service.name', str(`svc-${'s'.repeat(MEGABYTE)}`))],
        [
          {
            timeUnixNano: recent,
            body: str('custom.started'),
            attributes: [kv('session.id', str(`huge-${'x'.repeat(MEGABYTE)}`)), kv('prompt.id', str('y'.repeat(MEGABYTE)))],
          },
        ],
      ),
    ),
    json(
      'wrong-types',
      logs(
        [...claude, kv('hivewatch.run_id', str('run-x')), kv('hivewatch.task_id', str('t')), kv('hivewatch.attempt', dbl(1e308))],
        [
          apiError('hostile-types', recent, [
            kv('status_code', int('99999999999999999999')),
            kv('duration_ms', str('-5')),
            kv('attempt', dbl(1e308)),
            kv('model', { boolValue: 'yes' }),
            kv('weird', { bytesValue: { not: 'bytes' } }),
            kv('number-as-text', { stringValue: 5 }),
          ]),
        ],
      ),
    ),
  ];
}

/** Keys named like object internals (`__proto__`, `constructor`), in logs and in a trace's events: data, never properties. */
function prototypeKeys(recent: string): HostilePayload[] {
  return [
    json(
      'prototype-keys',
      logs(
        [...claude, kv('__proto__', { kvlistValue: { values: [kv('service.name', str('smuggled-service'))] } })],
        [
          {
            timeUnixNano: recent,
            body: str('claude_code.api_error'),
            attributes: [
              // No session.id of its own: one smuggled through the prototype must not be read.
              kv('conversation.id', str('hostile-proto')),
              kv('__proto__', { kvlistValue: { values: [kv('session.id', str('smuggled-session')), kv('prompt.id', str('smuggled-prompt'))] } }),
              kv('constructor', str('data, not a property')),
              kv('prototype', str('data too')),
              kv('error', str('Overloaded')),
            ],
          },
        ],
      ),
    ),
    {
      name: 'traces-hostile',
      signal: 'traces',
      contentType: 'application/json',
      expect: { status: 200 },
      body: Buffer.from(
        JSON.stringify({
          resourceSpans: [
            {
              resource: { attributes: [kv('service.name', str('codex'))] },
              scopeSpans: [
                {
                  spans: [
                    {
                      startTimeUnixNano: FORTY_DIGITS,
                      attributes: [kv('conversation.id', str('hostile-trace'))],
                      events: [{ name: `codex.\u0000${'e'.repeat(5_000)}`, timeUnixNano: YEAR_2300_NS, attributes: [kv('__proto__', str('kept as data'))] }],
                    },
                  ],
                },
              ],
            },
          ],
        }),
      ),
    },
  ];
}

/** Payloads the receiver must refuse, each with the reason it must give: nesting too deep, fields of the wrong shape. */
function refusedPayloads(recent: string): HostilePayload[] {
  return [
    json('depth-json-10000', deepJson(10_000, recent), { status: 400, error: /^malformed OTLP payload: the JSON nests deeper than 100 levels/ }),
    json('depth-attributes-20', deepJson(20, recent), { status: 400, error: /^malformed OTLP payload: .*attribute values nest deeper than 16 levels$/ }),
    {
      name: 'depth-protobuf-1000',
      signal: 'logs',
      contentType: 'application/x-protobuf',
      body: deepProtobuf(1_000),
      expect: { status: 400, error: /^malformed OTLP payload: the body is not a protobuf ExportLogsServiceRequest: max depth exceeded/ },
    },
    json('wrong-type-attributes', logs(claude, [{ timeUnixNano: recent, body: str('claude_code.api_request'), attributes: 'not a list' }]), {
      status: 400,
      error: /^malformed OTLP payload: resourceLogs\[0\]\.scopeLogs\[0\]\.logRecords\[0\]\.attributes must be an array$/,
    }),
    json('wrong-type-time', logs(claude, [{ timeUnixNano: { later: true }, body: str('claude_code.api_request') }]), {
      status: 400,
      error: /^malformed OTLP payload: a time must be an unsigned integer of nanoseconds, got \{"later":true\}$/,
    }),
    json('wrong-type-key', logs(claude, [{ timeUnixNano: recent, body: str('claude_code.api_request'), attributes: [{ key: 5, value: str('x') }] }]), {
      status: 400,
      error: /must be a \{key, value\} object$/,
    }),
  ];
}

/** The set, with sane record times near `now` wherever a payload is not about time. */
export function hostilePayloads(now: number): HostilePayload[] {
  const recent = nanos(now - 60_000);
  return [...hostileTimes(), ...hostileValues(recent), ...prototypeKeys(recent), ...refusedPayloads(recent)];
}

/** The sessions of the accepted payloads whose runs must exist afterwards (the huge id is shortened, so it is matched by prefix). */
export const HOSTILE_SESSIONS = [
  'hostile-time-2300',
  'hostile-time-max',
  'hostile-time-40',
  'hostile-time-1970',
  'hostile-time-number',
  'hostile-nul\uFFFDsession',
  'hostile-types',
  'hostile-proto',
  'hostile-trace',
] as const;
