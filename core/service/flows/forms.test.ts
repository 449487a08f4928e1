import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { flowNameOf } from '../../engine/run/run-config.js';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { testEngines } from '../../store/testing/engines.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { tempDirs } from '../../testing/temp-dirs.js';
import { addAlertRule } from '../alerts/alerts-api.js';
import { AlertEngine } from '../alerts/engine.js';
import { AlertInputError } from '../alerts/rules.js';
import { TestReceiver } from '../alerts/testing.js';
import { EXAMPLES_DIR } from '../conformance.suite.js';
import { flowRefScope } from './ref.js';
import { createHivewatchService, type HivewatchService } from '../service.js';

/**
 * One form of flow everywhere (docs/triage.md "Naming a flow"), on every engine: an alert rule's
 * `--flow` and a bulk filter's `flow=` take the name `hivewatch runs` shows, the flow file's path
 * (absolute, or relative to the command line's directory), and the window's flow id; they resolve
 * to the same runs, and what can never match is refused with a clear line. Real stores, a real
 * alert engine posting to a receiver on 127.0.0.1, the service's bulk preview.
 */

const harness = testEngines('flow-forms');
beforeAll(() => harness.start(), 120_000);
afterAll(() => harness.stop());

const tempDir = tempDirs();
const T0 = Date.UTC(2026, 10, 26, 14, 5);
const FLOW = 'agent worker:\n  runtime: "fake"\n\nsession: worker\n  prompt: "x"\n';
const CRASH = { code: 'RUNTIME_CRASHED' as const, message: 'runtime fake crashed', origin: 'runtime:fake' };

interface World {
  dir: string;
  store: HivewatchStore;
  service: HivewatchService;
  /** The flow file the window's `user/x.prose` is. */
  file: string;
  /** Another file named x.prose outside the flows folder (a run started from it on the command line). */
  elsewhere: string;
}

const open: { services: HivewatchService[]; stores: HivewatchStore[]; receivers: TestReceiver[] } = { services: [], stores: [], receivers: [] };
afterEach(async () => {
  await Promise.all(open.receivers.splice(0).map((r) => r.stop()));
  for (const service of open.services.splice(0)) await service.close();
  await Promise.all(open.stores.splice(0).map((s) => s.close()));
});

async function world(location: string): Promise<World> {
  const dir = tempDir('hw-flow-forms-');
  mkdirSync(join(dir, 'flows'));
  mkdirSync(join(dir, 'elsewhere'));
  const file = join(dir, 'flows', 'x.prose');
  const elsewhere = join(dir, 'elsewhere', 'x.prose');
  writeFileSync(file, FLOW);
  writeFileSync(elsewhere, FLOW);
  writeFileSync(join(dir, 'flows', 'quiet.prose'), FLOW);
  const store = await openStore({ path: location });
  open.stores.push(store);
  const service = await createHivewatchService({ store, examplesDir: EXAMPLES_DIR, userFlowsDir: join(dir, 'flows'), clock: 'virtual', alerts: false });
  open.services.push(service);
  return { dir, store, service, file, elsewhere };
}

/** A failed run of `flow`, named as the engine names it (the file's name without `.prose`). */
const failed = (id: string, flow: string, start = T0): JournalBuilder =>
  new JournalBuilder(id, { flow, flowName: flowNameOf(flow), start })
    .start()
    .runStep([{ attempts: [CRASH] }])
    .fail();

for (const engine of harness.engines) {
  describe(`flow forms on ${engine.name}`, () => {
    it('an alert rule --flow in every form resolves to the flow id or the name and fires for its runs; what never matches is refused', async () => {
      const w = await world(await engine.fresh());
      const receiver = new TestReceiver();
      open.receivers.push(receiver);
      const url = await receiver.start();
      const alerts = new AlertEngine({ store: w.store, now: () => T0, host: 'h1' });
      const cli = flowRefScope(w.store, { examplesDir: EXAMPLES_DIR, userFlowsDir: join(w.dir, 'flows') }, w.dir);
      const forms: [string, string][] = [
        ['x', 'x'],
        ['user/x.prose', 'user/x.prose'],
        [w.file, 'user/x.prose'],
        ['flows/x.prose', 'user/x.prose'],
        ['./flows/../flows/x.prose', 'user/x.prose'],
        [w.elsewhere, w.elsewhere],
        ['quiet', 'quiet'],
      ];
      const rules = new Map<string, string>();
      for (const [form, stored] of forms) {
        const rule = await addAlertRule(w.store, { when: 'run-failed', flow: form, webhook: `${url}/${rules.size}`, throttle: '0' }, 'cli', T0, cli);
        expect(rule.flow, form).toBe(stored);
        rules.set(`/${rules.size}`, form);
      }
      await alerts.pump();
      await w.store.appendEvents(failed('run-app', 'user/x.prose').events);
      await w.store.appendEvents(failed('run-cli', w.elsewhere, T0 + 1).events);
      await w.store.appendEvents(failed('run-other', 'user/other.prose', T0 + 2).events);
      await alerts.pump();
      const fired = receiver.requests.map((r) => `${rules.get(r.path)} ← ${(r.body as { facts: { runId: string } }).facts.runId}`).sort();
      // The name means every flow file of that name, as the Runs list's filter does; a file means that file.
      expect(fired).toEqual(
        [
          'x ← run-app',
          'x ← run-cli',
          'user/x.prose ← run-app',
          `${w.file} ← run-app`,
          'flows/x.prose ← run-app',
          './flows/../flows/x.prose ← run-app',
          `${w.elsewhere} ← run-cli`,
        ].sort(),
      );

      const refused = async (form: string, scope = cli): Promise<string> =>
        addAlertRule(w.store, { when: 'run-failed', flow: form, webhook: url }, 'cli', T0, scope).then(
          () => 'added',
          (error: unknown) => (error instanceof AlertInputError ? error.message : String(error)),
        );
      const FORMS = 'give the name `hivewatch runs` shows, the flow file’s path, or its id (examples/<file>.prose, user/<file>.prose)';
      expect(await refused('nope')).toBe(`--flow: no flow is named "nope": no run has that name and neither flows folder holds nope.prose; ${FORMS}`);
      expect(await refused('user/nope.prose')).toBe(
        `--flow: no flow user/nope.prose: no such file in the user folder, and no run was started from it; ${FORMS}`,
      );
      expect(await refused('./nope.prose')).toBe(`--flow: no flow file ./nope.prose (${join(w.dir, 'nope.prose')}), and no run was started from it; ${FORMS}`);
      expect(await refused('   ')).toBe(`--flow: needs a flow; ${FORMS}`);
      expect(await refused('external:claude code')).toBe(
        '--flow: "external:claude code" is not an agent\'s sessions (external:<agent>, e.g. external:claude-code)',
      );
      // The window has no directory: a relative path is refused there, with the forms it takes.
      const api = flowRefScope(w.store, { examplesDir: EXAMPLES_DIR, userFlowsDir: join(w.dir, 'flows') }, null);
      expect(await refused('flows/x.prose', api)).toBe(
        `--flow: "flows/x.prose" is a relative path, and only the command line has a directory to read it from; ${FORMS}`,
      );
      expect(await refused('x', api)).toBe('added');
      await expect(w.service.addAlertRule({ when: 'run-failed', flow: 'nope', webhook: url })).rejects.toMatchObject({
        status: 400,
        message: expect.stringMatching(/^--flow: no flow is named "nope"/) as string,
      });
      // An issue spans flows: a rule for one flow's issues could never fire.
      expect(await refusedIssue(w, url)).toBe('--flow does not apply to new-issue: an issue spans runs and flows; filter it with --code');
    });

    it('a bulk filter flow= takes the same forms and acts on the same runs; what never matches is refused', async () => {
      const w = await world(await engine.fresh());
      await w.store.appendEvents(failed('run-app', 'user/x.prose').events);
      await w.store.appendEvents(failed('run-cli', w.elsewhere, T0 + 1).events);
      await w.store.appendEvents(failed('run-other', 'user/other.prose', T0 + 2).events);
      const matched = async (flow: string): Promise<string[]> =>
        (await w.service.bulkRuns({ action: 'retry', where: { status: ['failed'], flow }, dryRun: true })).results.map((r) => r.runId).sort();
      expect(await matched('x')).toEqual(['run-app', 'run-cli']);
      expect(await matched('user/x.prose')).toEqual(['run-app']);
      expect(await matched(w.file)).toEqual(['run-app']);
      expect(await matched(w.elsewhere)).toEqual(['run-cli']);
      // A file in the flows folder that no run started yet: accepted, it matches nothing yet.
      expect(await matched('quiet')).toEqual([]);
      await expect(matched('nope')).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^where\.flow: no flow is named "nope"/) as string });
      await expect(matched('flows/x.prose')).rejects.toMatchObject({
        status: 400,
        message: expect.stringMatching(/^where\.flow: "flows\/x\.prose" is a relative path/) as string,
      });
      await expect(matched(join(w.dir, 'gone.prose'))).rejects.toMatchObject({
        status: 400,
        message: expect.stringMatching(/^where\.flow: no flow file \//) as string,
      });
    });
  });
}

async function refusedIssue(w: World, url: string): Promise<string> {
  return addAlertRule(w.store, { when: 'new-issue', flow: 'x', webhook: url }, 'cli', T0).then(
    () => 'added',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
}
