import { checkFlow } from '../../flow/check/check.js';
import { highlightSpans } from '../../flow/syntax/highlight.js';
import type { HivewatchStore } from '../../store/index.js';
import { ApiError } from '../../common/api-errors.js';
import { saveUserFlow } from './save.js';
import { restoreSecrets } from './secrets.js';
import type { FlowCatalog } from './catalog.js';
import { readNotificationSettings, setFlowMuted } from './notify-settings.js';
import { parseInput } from '../schemas.js';
import { guard } from '../service-context.js';
import type { HivewatchService } from '../service-types.js';

/**
 * The flows API: the catalog (examples and the operator's own flows), checking and saving a
 * flow's text, and the per-flow notification settings (muting is a property of a flow).
 */

type FlowsApi = Pick<HivewatchService, 'listFlows' | 'checkFlow' | 'saveFlow' | 'getNotificationSettings' | 'setFlowMuted'>;

export function flowsApi(store: HivewatchStore, catalog: FlowCatalog, userFlowsDir: string | null): FlowsApi {
  return {
    listFlows: (...input: unknown[]) =>
      guard(() => {
        parseInput('listFlows', input[0]);
        return catalog.list();
      }),

    checkFlow: (input) =>
      guard(() => {
        const args = parseInput('checkFlow', input);
        const checked = checkFlow(args.source, args.file ?? 'flow.prose');
        return { ok: checked.ok, diagnostics: checked.diagnostics, highlight: highlightSpans(args.source) };
      }),

    saveFlow: (input) =>
      guard(async () => {
        const args = parseInput('saveFlow', input);
        // The window's text hides secrets as [secret NAME]: the flow it came from fills them back in.
        const from = args.from === undefined ? null : await catalog.load(args.from);
        const key = await saveUserFlow(userFlowsDir, { ...args, source: restoreSecrets(args.source, from) });
        const saved = (await catalog.list()).find((f) => f.id === key);
        if (!saved) throw new ApiError('flow_not_found', `no flow ${key}`);
        return saved;
      }),

    getNotificationSettings: (...input: unknown[]) =>
      guard(() => {
        parseInput('getNotificationSettings', input[0]);
        return readNotificationSettings(store);
      }),

    setFlowMuted: (input) =>
      guard(() => {
        const args = parseInput('setFlowMuted', input);
        return setFlowMuted(store, args.flow, args.muted);
      }),
  };
}
