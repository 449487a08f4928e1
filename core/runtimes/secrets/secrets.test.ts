import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HivewatchError } from '../../base/errors/hivewatch-error.js';
import { assertProperty } from '../../testing/property.js';
import { isSecretName, isSwitchValue } from './secret-names.js';
import { Redactor } from './secrets.js';

describe('Redactor', () => {
  const redactor = Redactor.ofAgents([{ env: { TOKEN: 'tok-SEKRIT-123', PREFIX_KEY: 'tok-SEKRIT', PASSWORD: 'secret', QUOTED_SECRET: 'a"b\\c-long' } }]);

  it('replaces every secret by [secret NAME], longest first, in one pass', () => {
    expect(redactor.text('use tok-SEKRIT-123 or tok-SEKRIT now')).toBe('use [secret TOKEN] or [secret PREFIX_KEY] now');
  });

  it('leaves its own markers alone, so redacting twice changes nothing', () => {
    const once = redactor.text('secret tok-SEKRIT-123');
    expect(once).toBe('[secret PASSWORD] [secret TOKEN]');
    expect(redactor.text(once)).toBe(once);
    // A marker another redactor wrote (the host's variables) is left whole too.
    expect(redactor.text('[secret GH_TOKEN] secret')).toBe('[secret GH_TOKEN] [secret PASSWORD]');
  });

  it('finds a value in its JSON-escaped form too', () => {
    expect(redactor.text(JSON.stringify({ v: 'a"b\\c-long' }))).toBe('{"v":"[secret QUOTED_SECRET]"}');
  });

  it('matches whole values: not inside a longer word, wherever non-word characters bound it', () => {
    expect(redactor.text('secrets, secretly, my_secret, secret2, nosecret, ésecret')).toBe('secrets, secretly, my_secret, secret2, nosecret, ésecret');
    expect(redactor.text('(secret) "secret" x-secret-y a.secret: =secret&')).toBe(
      '([secret PASSWORD]) "[secret PASSWORD]" x-[secret PASSWORD]-y a.[secret PASSWORD]: =[secret PASSWORD]&',
    );
    // A value that begins or ends with a non-word character needs no boundary on that side.
    const dashed = Redactor.ofAgents([{ env: { SIGNING_KEY: '-k9-' } }]);
    expect(dashed.text('a-k9-b and x-k9-')).toBe('a[secret SIGNING_KEY]b and x[secret SIGNING_KEY]');
  });

  it('redacts every string of a JSON-like value and keeps the rest', () => {
    expect(redactor.deep({ a: ['tok-SEKRIT-123', 3, null], b: { c: true, d: 'x tok-SEKRIT-123' } })).toEqual({
      a: ['[secret TOKEN]', 3, null],
      b: { c: true, d: 'x [secret TOKEN]' },
    });
    const none = Redactor.none();
    const value = { a: 'tok-SEKRIT-123' };
    expect(none.deep(value)).toBe(value);
  });

  it("leaves an error's origin, code, category and hint as written, and redacts its message and context", () => {
    const named = Redactor.ofAgents([{ env: { API_KEY: 'claude' } }]);
    const envelope = new HivewatchError('RUNTIME_TIMEOUT', {
      message: 'claude said claude',
      origin: 'runtime:claude',
      context: { said: 'claude' },
    }).toEnvelope();
    const shown = named.deep(envelope);
    expect(shown).toMatchObject({ code: 'RUNTIME_TIMEOUT', category: 'runtime', origin: 'runtime:claude', recovery_hint: 'Retry with an extended timeout' });
    expect(shown.message).toBe('[secret API_KEY] said [secret API_KEY]');
    expect(shown.context).toEqual({ said: '[secret API_KEY]' });
  });
});

describe('the words of an operator are not secrets', () => {
  const flow = Redactor.ofAgents([{ env: { MODE: 'timeout', NODE_ENV: 'production', REGION: 'eu-west-1', API_KEY: 'sk-live-77aa' } }]);

  it('MODE=timeout leaves a hint, an issue title and an origin as they are', () => {
    const texts = ['Retry with an extended timeout', 'agent claude-code timed out: the timeout was 30 s', 'agent:claude-timeout'];
    for (const text of texts) expect(flow.text(text)).toBe(text);
  });

  it('NODE_ENV=production and REGION=eu-west-1 blank nothing, while the key beside them is hidden', () => {
    expect(flow.text('deploying to production in eu-west-1 with sk-live-77aa')).toBe('deploying to production in eu-west-1 with [secret API_KEY]');
  });

  it("an agent's environment redacts nothing of Hivewatch's short or ordinary settings", () => {
    const child = Redactor.forChild({ env: { MODE: 'timeout' } }, { HOME: '/home/op', NODE_ENV: 'production', GH_TOKEN: 'ghp_0123456789' });
    expect(child.text('production timeout /home/op ghp_0123456789')).toBe('production timeout /home/op [secret GH_TOKEN]');
  });
});

/** Name words: secret ones, words that only contain one, and ordinary ones. */
const NAME_WORDS = [
  'API',
  'KEY',
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'AUTH',
  'CREDENTIALS',
  'TOKENIZER',
  'AUTHOR',
  'KEYBOARD',
  'TOKENS',
  'MODE',
  'NODE',
  'ENV',
  'REGION',
  'HOME',
  'MODEL',
  'PATH',
  'DB',
];
const names = fc.oneof(
  fc.array(fc.constantFrom(...NAME_WORDS), { minLength: 1, maxLength: 3 }).map((words) => words.join('_')),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,14}$/),
);
/** Values: word characters (ASCII, accented, digits) with inner `-`, `.`, `~`; never starting or ending with a separator. */
const WORD_CHARS = [...'abcxyzXYZ019_é'];
const valueText = fc
  .tuple(
    fc.array(fc.constantFrom(...WORD_CHARS), { minLength: 1, maxLength: 6 }),
    fc.array(fc.tuple(fc.constantFrom('-', '.', '~'), fc.array(fc.constantFrom(...WORD_CHARS), { minLength: 1, maxLength: 4 })), { maxLength: 2 }),
  )
  .map(([head, rest]) => head.join('') + rest.map(([sep, word]) => sep + word.join('')).join(''));
const SEPARATORS = [' ', '\n', ', ', '(', ')', '"', ': ', '/'];

interface Variable {
  name: string;
  value: string;
  declared: boolean;
}

/** Distinct names and values, no value inside another: each token of the text below holds exactly one value or none. */
const variables = fc
  .uniqueArray(fc.record({ name: names, value: valueText, declared: fc.boolean() }), { minLength: 1, maxLength: 6, selector: (v) => v.name })
  .filter((vars) => vars.every((a, i) => vars.every((b, j) => i === j || !b.value.includes(a.value))));

/** How a value appears in a text: whole, or glued to a word character (then it is part of a longer word). */
type Use = { kind: 'whole' } | { kind: 'glued'; before: string; after: string };
const use: fc.Arbitrary<Use> = fc.oneof(
  fc.constant({ kind: 'whole' as const }),
  fc.record({ kind: fc.constant('glued' as const), before: fc.constantFrom('', 'x', '_', '7', 'é'), after: fc.constantFrom('x', '_', '7', 'é') }),
  fc.record({ kind: fc.constant('glued' as const), before: fc.constantFrom('x', '_', '7', 'é'), after: fc.constant('') }),
);

describe('redaction properties (seeded)', () => {
  it('only secret-named or declared values change, each to its marker; words that merely contain one do not', async () => {
    await assertProperty(
      fc.property(variables, fc.array(fc.tuple(fc.nat(), use, fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 12 }), (vars, uses) => {
        const secret = (v: Variable): boolean => v.declared || (isSecretName(v.name) && !isSwitchValue(v.value));
        const redactor = Redactor.ofAgents([
          { env: Object.fromEntries(vars.map((v) => [v.name, v.value])), secrets: vars.filter((v) => v.declared).map((v) => v.name) },
        ]);
        let text = '';
        let expected = '';
        for (const [index, how, separator] of uses) {
          const v = vars[index % vars.length] as Variable;
          const token = how.kind === 'whole' ? v.value : `${how.before}${v.value}${how.after}`;
          text += token + separator;
          expected += (how.kind === 'whole' && secret(v) ? `[secret ${v.name}]` : token) + separator;
        }
        expect(redactor.text(text)).toBe(expected);
      }),
      { seed: 3301, numRuns: 400 },
    );
  });

  it('redaction is idempotent and never grows a marker out of a marker', async () => {
    await assertProperty(
      fc.property(
        variables,
        fc.array(fc.oneof(valueText, fc.constantFrom(' ', '[secret ', ']', '[secret API_KEY]', '"')), { maxLength: 20 }),
        (vars, pieces) => {
          const redactor = Redactor.ofAgents([
            { env: Object.fromEntries(vars.map((v) => [v.name, v.value])), secrets: vars.filter((v) => v.declared).map((v) => v.name) },
          ]);
          const once = redactor.text(pieces.join(''));
          expect(redactor.text(once)).toBe(once);
        },
      ),
      { seed: 3302, numRuns: 300 },
    );
  });
});
