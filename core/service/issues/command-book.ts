import type { HivewatchStore } from '../../store/index.js';
import { IssueTransitions } from '../../store/issues/issue-transitions.js';
import { AlertEngine } from '../alerts/engine.js';
import type { HivewatchApi } from '../api.js';
import { costApi } from '../cost/outcomes.js';
import { readApi } from '../read-api.js';
import { IssueBook } from './book.js';
import { issuePageApi, thisIssueHost } from './api.js';

/** The issue book of one command (`hivewatch issues`), and what its transitions owe before the history closes. */
export interface CommandIssueBook {
  readonly book: IssueBook;
  /** The issue page's reads through the service's API parts, over this book (its transitions queue their alerts). */
  readonly pageReads: Pick<HivewatchApi, 'getIssueDetail' | 'costSplit' | 'listRuns'>;
  /** Resolves once every alert the command's transitions owe is queued in the database. */
  settled(): Promise<void>;
}

/**
 * The same book the window uses, for a command line process: a transition it journals (a resolve,
 * a `new` or regressed row the list reconciles) owes its alert a follow-up, queued in the database
 * now and posted by a serving host's alert engine (this process posts nothing; docs/triage.md
 * "Alerts"). A read-only history queues nothing.
 */
export function commandIssueBook(store: HivewatchStore): CommandIssueBook {
  const hub = new IssueTransitions();
  const queued: Promise<void>[] = [];
  const alerts = store.readonly ? null : new AlertEngine({ store, host: `cli-${thisIssueHost()}` });
  if (alerts) hub.subscribe((transition) => queued.push(alerts.onIssueTransition(transition)));
  const book = new IssueBook({ store, hub, host: thisIssueHost() });
  const { listRuns } = readApi(store, (status) => book.statusScope(status));
  const { costSplit } = costApi(store, book);
  return {
    book,
    pageReads: { listRuns, costSplit, ...issuePageApi(store, book) },
    settled: async () => {
      await Promise.all(queued);
    },
  };
}
