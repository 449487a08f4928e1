import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestReceiver } from '../../service/alerts/testing.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import type { CliIo } from '../io.js';
import { main } from '../main.js';

/**
 * `hivewatch alerts` on a SQLite database: the exact refusals of bad input (nothing written),
 * webhooks redacted in every listing, `test` posting to a real receiver, the delivery log.
 */

const tempDir = tempDirs();
let db = '';
const receiver = new TestReceiver();
let hook = '';

beforeAll(async () => {
  const dir = tempDir('hw-alerts-cli-');
  db = join(dir, 'hivewatch.db');
  // The database's flows folder holds a.prose: `--flow user/a.prose` (or its path, or `a`) names it.
  mkdirSync(join(dir, 'flows'));
  writeFileSync(join(dir, 'flows', 'a.prose'), 'agent worker:\n  runtime: "fake"\n\nsession: worker\n  prompt: "a"\n');
  hook = await receiver.start();
});
afterAll(() => receiver.stop());

async function hivewatch(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), stdout: new PassThrough(), env: {} };
  const code = await main([...argv, '--db', db], io);
  return { code, out, err };
}

const SECRET_HOOK = 'https://bot:hunter2@hooks.slack.com/services/T000SECRET/B000SECRET/XXXXSECRET?token=querysecret';

describe('hivewatch alerts', () => {
  it.each([
    [['--when', 'run-failed', '--webhook', 'ftp://bot:hunter2@example.com/x'], 'hivewatch alerts: --webhook must be an http or https URL, not ftp:\n'],
    [['--when', 'run-failed', '--webhook', 'not a url'], 'hivewatch alerts: --webhook must be an http or https URL (the value given is not a URL)\n'],
    [
      ['--when', 'run-crashed', '--webhook', 'https://example.com/h'],
      'hivewatch alerts: unknown alert condition "run-crashed" (one of: run-failed, new-issue, regression, escalating, retrying-longer-than, retrying-more-than, running-longer-than, usage-limit, session-failed, approval-pending-longer-than, telemetry-silent-longer-than)\n',
    ],
    [
      ['--when', 'retrying-longer-than=ten', '--webhook', 'https://example.com/h'],
      'hivewatch alerts: retrying-longer-than needs a duration like retrying-longer-than=10m, got "retrying-longer-than=ten"\n',
    ],
    [
      ['--when', 'running-longer-than', '--webhook', 'https://example.com/h'],
      'hivewatch alerts: running-longer-than needs a duration like running-longer-than=10m, got "running-longer-than"\n',
    ],
    [
      ['--when', 'retrying-more-than=0', '--webhook', 'https://example.com/h'],
      'hivewatch alerts: retrying-more-than needs a number of attempts from 1 to 1000 like retrying-more-than=3, got "retrying-more-than=0"\n',
    ],
    [
      ['--when', 'run-failed', '--webhook', 'https://example.com/h', '--throttle', 'soon'],
      'hivewatch alerts: --throttle must be a duration like 10m (or 0 for none), got "soon"\n',
    ],
    [['--when', 'run-failed', '--webhook', 'https://example.com/h', '--format', 'xml'], 'hivewatch alerts: --format must be json or slack, got "xml"\n'],
    [['--webhook', 'https://example.com/h'], 'hivewatch alerts: alerts add needs --when CONDITION\n'],
    [['--when', 'run-failed'], 'hivewatch alerts: an alert rule needs somewhere to deliver: --webhook URL, --desktop, or both\n'],
    [['--when', 'run-failed', '--desktop', '--webhook', 'gopher://example.com/'], 'hivewatch alerts: --webhook must be an http or https URL, not gopher:\n'],
    [
      ['--when', 'run-failed', '--webhook', 'https://example.com/h', '--category', 'network'],
      'hivewatch alerts: --category must be one of system, runtime, agent, scope, verification, git, user, policy, got "network"\n',
    ],
    [
      ['--when', 'run-failed', '--webhook', 'https://example.com/h', '--code', 'RATE_LIMIT'],
      'hivewatch alerts: --code must be an error code like RUNTIME_CRASHED or RUNTIME_RATE_LIMIT (hivewatch errors --by code lists those seen), got "RATE_LIMIT"\n',
    ],
    [
      ['--when', 'running-longer-than=366d', '--webhook', 'https://example.com/h'],
      'hivewatch alerts: running-longer-than must be at most 365d (a year), got "running-longer-than=366d"\n',
    ],
    [
      ['--when', 'retrying-longer-than=9999999999999d', '--webhook', 'https://example.com/h'],
      'hivewatch alerts: retrying-longer-than must be at most 365d (a year), got "retrying-longer-than=9999999999999d"\n',
    ],
    [
      ['--when', 'run-failed', '--webhook', 'https://example.com/h', '--throttle', '400d'],
      'hivewatch alerts: --throttle must be at most 365d (a year), got "400d"\n',
    ],
    [
      ['--when', 'run-failed', '--webhook', 'https://example.com/h', '--flow', 'flows/b.prose'],
      expect.stringMatching(
        /^hivewatch alerts: --flow: no flow file flows\/b\.prose \(\/.*\/flows\/b\.prose\), and no run was started from it; give the name/,
      ) as unknown as string,
    ],
    [
      ['--when', 'run-failed', '--webhook', 'https://example.com/h', '--flow', 'api'],
      'hivewatch alerts: --flow: no flow is named "api": no run has that name and neither flows folder holds api.prose; give the name `hivewatch runs` shows, the flow file’s path, or its id (examples/<file>.prose, user/<file>.prose)\n',
    ],
    [
      ['--when', 'new-issue', '--webhook', 'https://example.com/h', '--flow', 'a'],
      'hivewatch alerts: --flow does not apply to new-issue: an issue spans runs and flows; filter it with --code\n',
    ],
    [
      ['--when', 'run-failed', '--webhook', 'https://example.com/h', '--throttle', '1e3m'],
      'hivewatch alerts: --throttle must be a duration like 10m (or 0 for none), got "1e3m"\n',
    ],
    [['deliveries', '--limit', '99999999999999999999'], 'hivewatch alerts: --limit must be a whole number from 1 to 1000, got 99999999999999999999\n'],
  ])('add %j is refused with its exact message, exit 64, nothing written', async (args, message) => {
    const result = args[0] === 'deliveries' ? await hivewatch('alerts', ...args) : await hivewatch('alerts', 'add', ...args);
    expect(result).toEqual({ code: 64, out: '', err: message });
    expect(result.err).not.toContain('hunter2');
    expect((await hivewatch('alerts', 'list', '--json')).out).toBe('{"rules":[]}\n');
  });

  it('add, list (text and --json), test against a real receiver, deliveries, remove; the webhook redacted throughout', async () => {
    const added = await hivewatch(
      'alerts',
      'add',
      '--when',
      'retrying-longer-than=10m',
      '--flow',
      join(db, '..', 'flows', 'a.prose'),
      '--webhook',
      SECRET_HOOK,
      '--format',
      'slack',
      '--json',
    );
    expect(added.code, added.err).toBe(0);
    const { rule } = JSON.parse(added.out) as { rule: { id: string; webhook: string; description: string } };
    // The file's path is kept as the flow id a run of it records.
    expect(rule).toMatchObject({ webhook: 'https://***@hooks.slack.com/…', description: 'retrying-longer-than=10m (flow user/a.prose)' });
    const listed = await hivewatch('alerts', 'list');
    expect(listed.out).toMatch(
      new RegExp(
        `^ID +WHEN +CHANNELS +WEBHOOK +FORMAT +THROTTLE +ADDED\\n${rule.id} +retrying-longer-than=10m \\(flow user/a.prose\\) +webhook +https://\\*\\*\\*@hooks.slack.com/… +slack +10m +`,
      ),
    );
    for (const output of [added.out, listed.out, (await hivewatch('alerts', 'list', '--json')).out]) {
      for (const secret of ['hunter2', 'SECRET', 'querysecret', 'services']) expect(output).not.toContain(secret);
    }

    const local = await hivewatch('alerts', 'add', '--when', 'run-failed', '--webhook', `${hook}/hooks/abc?key=1`, '--json');
    const localId = (JSON.parse(local.out) as { rule: { id: string } }).rule.id;
    const tested = await hivewatch('alerts', 'test', localId);
    expect(tested.code, tested.err).toBe(0);
    expect(tested.out).toMatch(/^test delivery dlv_[0-9a-f]{22}: sent \(HTTP 200\)\n$/);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hooks/abc?key=1']);
    expect(receiver.bodies()[0]).toMatchObject({ kind: 'test', rule: { id: localId, condition: 'run-failed' } });

    const log = JSON.parse((await hivewatch('alerts', 'deliveries', '--json')).out) as {
      deliveries: { ruleId: string; kind: string; status: string; responseCode: number; attempts: number }[];
    };
    expect(log.deliveries.map((d) => [d.ruleId, d.kind, d.status, d.responseCode, d.attempts])).toEqual([[localId, 'test', 'sent', 200, 1]]);
    expect((await hivewatch('alerts', 'deliveries')).out).toMatch(
      /^DELIVERY +RULE +KIND +STATUS +CODE +ATTEMPTS +CREATED +TITLE\ndlv_\w+ +alr_\w+ +test +sent +200 +1 +/,
    );

    expect(await hivewatch('alerts', 'remove', rule.id)).toEqual({ code: 0, out: `removed alert rule ${rule.id}\n`, err: '' });
    expect(await hivewatch('alerts', 'remove', rule.id)).toEqual({
      code: 1,
      out: '',
      err: `hivewatch alerts: no alert rule "${rule.id}" (see hivewatch alerts list)\n`,
    });
    expect(await hivewatch('alerts', 'test', 'alr_nothing')).toEqual({
      code: 1,
      out: '',
      err: 'hivewatch alerts: no alert rule "alr_nothing" (see hivewatch alerts list)\n',
    });
    expect((JSON.parse((await hivewatch('alerts', 'list', '--json')).out) as { rules: { id: string }[] }).rules.map((r) => r.id)).toEqual([localId]);
  });

  it('add --desktop without a webhook; `alerts` lists each rule’s channels; `test` of a desktop-only rule posts nothing', async () => {
    const added = await hivewatch('alerts', 'add', '--when', 'approval-pending-longer-than=10m', '--desktop');
    expect(added.code, added.err).toBe(0);
    const id = /^added alert rule (alr_[0-9a-f]+): approval-pending-longer-than=10m → the desktop\n$/.exec(added.out)?.[1];
    expect(id).toBeDefined();
    const both = await hivewatch('alerts', 'add', '--when', 'run-failed', '--webhook', `${hook}/both`, '--desktop', '--json');
    expect(JSON.parse(both.out)).toMatchObject({ rule: { desktop: true, channels: 'webhook + desktop', webhook: `${hook}/…` } });
    const listed = await hivewatch('alerts');
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(new RegExp(`\\n${id} +approval-pending-longer-than=10m +desktop +- +- +10m +`));
    expect(listed.out).toMatch(/\nalr_\w+ +run-failed +webhook \+ desktop +http:\/\/127\.0\.0\.1:\d+\/… +json +10m +/);
    const posts = receiver.requests.length;
    const tested = await hivewatch('alerts', 'test', id!);
    expect(tested).toEqual({
      code: 0,
      out: expect.stringMatching(/^test delivery dlv_\w+: for the desktop only \(every open Hivewatch window shows it\)\n$/) as string,
      err: '',
    });
    expect(receiver.requests).toHaveLength(posts);
    expect(await hivewatch('alerts', 'list', '--desktop')).toEqual({ code: 64, out: '', err: 'hivewatch alerts: --desktop belongs to alerts add\n' });
  });

  it('an unknown subcommand is a usage error', async () => {
    expect(await hivewatch('alerts', 'mute')).toEqual({
      code: 64,
      out: '',
      err: 'hivewatch alerts: expected add, list, remove ID, test ID or deliveries, got "mute"\n',
    });
  });
});
