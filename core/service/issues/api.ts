import { hostname } from 'node:os';
import type { HivewatchStore } from '../../store/index.js';
import { IssueTransitions } from '../../store/issues/issue-transitions.js';
import type { HivewatchApi } from '../api.js';
import { issueDetail } from './page.js';
import { IssueBook } from './book.js';
import { parseInput } from '../schemas.js';
import { guard } from '../service-context.js';

/** This process as a host in issues' log: machine and pid (a system transition names who noticed it). */
export const thisIssueHost = (): string => `${hostname()}:${process.pid}`;

export interface IssueParts {
  api: Pick<HivewatchApi, 'listIssues' | 'getIssue' | 'setIssueStatus' | 'getIssueDetail'>;
  book: IssueBook;
  transitions: IssueTransitions;
}

/** The issue page (`getIssueDetail`) over a book: the issues API's, and the CLI's `issues show` over its own book. */
export function issuePageApi(store: HivewatchStore, book: IssueBook): Pick<HivewatchApi, 'getIssueDetail'> {
  return { getIssueDetail: (input) => guard(() => issueDetail(book, store, parseInput('getIssueDetail', input))) };
}

/** The issues API over one IssueBook (issues.ts), with the hook its changes are told to. */
export function issuesApi(store: HivewatchStore, options: { now?: () => number; onListenerError?: (error: unknown) => void } = {}): IssueParts {
  const transitions = new IssueTransitions(options.onListenerError);
  const book = new IssueBook({
    store,
    hub: transitions,
    host: thisIssueHost(),
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
  return {
    book,
    transitions,
    api: {
      listIssues: (input) => guard(() => book.list(parseInput('listIssues', input ?? {}))),
      getIssue: (input) => guard(() => book.get(parseInput('getIssue', input).id)),
      setIssueStatus: (input) => guard(async () => (await book.setStatus(parseInput('setIssueStatus', input))).issue),
      ...issuePageApi(store, book),
    },
  };
}
