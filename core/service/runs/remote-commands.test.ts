import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type HivewatchStore } from '../../store/index.js';
import { JournalBuilder } from '../../store/testing/journal-builder.js';
import { deliverCommand } from './remote-commands.js';

let store: HivewatchStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('deliverCommand when the run ends before the host records the outcome', () => {
  it('is accepted when the journal holds the host’s acknowledgement of this command, refused otherwise', async () => {
    store = await openStore({ path: ':memory:' });
    // The host applied cmd-1 (its cancelRequested carries the id) and the run ended at once;
    // the host has not recorded the command's outcome yet.
    await store.appendEvents(
      new JournalBuilder('ended')
        .start()
        .runStep([{ attempts: ['ok'] }])
        .cancelBetweenSteps('cmd-1').events,
    );
    expect(await deliverCommand(store, { kind: 'cancel', commandId: 'cmd-1', runId: 'ended' }, 1_000)).toEqual({ commandId: 'cmd-1', accepted: true });
    expect(await store.getCommand('cmd-1')).toMatchObject({ state: 'done', accepted: true });
    expect(await deliverCommand(store, { kind: 'cancel', commandId: 'cmd-2', runId: 'ended' }, 1_000)).toEqual({
      commandId: 'cmd-2',
      accepted: false,
      message: 'run ended is cancelled; nothing to cancel',
    });
  });
});
