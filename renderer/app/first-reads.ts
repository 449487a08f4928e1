import type { HivewatchApi } from '../../core/service/api.js';
import { prefetchErrors } from '../errors/errors-loads.js';
import { askCompare } from '../run-detail/run-reads.js';
import { parseErrorsQuery, scopeOf, stableNow } from '../errors/errors-query.js';
import { askIssuePage } from '../issues/issue-reads.js';
import { prefetchFirstRuns } from '../runs/first-page.js';
import type { Route } from './router.js';

/**
 * The first reads of the screen the window opens on, asked as the window starts (main.tsx),
 * before React's first render and while the screen's chunk loads, instead of in the screen's own
 * effect once both are done: the request and that work overlap instead of adding up. Asked in
 * the window's start-up task, they travel in the batch the window's own first reads make
 * (api/read-batch.ts). Each screen takes its answers when it mounts (lib/kept-reads.ts; the
 * Errors screen's round is errors-loads.ts's own). The run page was no faster with its reads
 * asked here (docs/benches.md, "The detail screens"), so it asks them itself.
 */
export function askFirstReads(api: HivewatchApi, route: Route): void {
  const [section, id, other] = route.path;
  prefetchFirstRuns(api, route.path, route.params);
  if (section === 'errors') prefetchErrors(api, route.params);
  else if (section === 'compare' && id !== undefined && other !== undefined) askCompare(api, id, other);
  else if (section === 'issues' && id !== undefined) askIssuePage(api, id, scopeOf(parseErrorsQuery(route.params), stableNow(Date.now())));
}
