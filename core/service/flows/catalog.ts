import { readdir } from 'node:fs/promises';
import { NotReadableFile, readRegularFile } from '../../base/regular-file.js';
import type { Diagnostic } from '../../flow/syntax/ast.js';
import { checkFlow } from '../../flow/check/check.js';
import type { CheckResult } from '../../flow/plan/plan.js';
import { flowText, MAX_FLOW_FILE_BYTES } from '../../flow/syntax/source.js';
import { highlightSpans } from '../../flow/syntax/highlight.js';
import { describeRunRepo } from '../../workspace/repo.js';
import type { FlowInfo } from '../api.js';
import { ApiError } from '../../common/api-errors.js';
import { flowRedactor } from './secrets.js';
import { FLOW_FOLDERS, FlowKeyError, FlowKeyProblem, FlowKeys } from './keys.js';
import { flowIdSchema } from '../schemas.js';

/**
 * The flows an operator can start: the bundled examples (`examples/<file>`) and the operator's
 * own folder (`user/<file>`). A flow id names one file directly inside one of the two folders,
 * so nothing else on disk can be reached through it. The id is also the `file` the flow is
 * checked and run under: the run's `flow`, the `flow` error dimension and the diagnostics' file.
 */

export interface FlowCatalogOptions {
  examplesDir: string;
  userFlowsDir?: string | null | undefined;
}

export interface LoadedFlow {
  id: string;
  path: string;
  /** The file's text ('' when it is not text: see `notText`). */
  source: string;
  /** Why the file is not a text flow file (binary, not UTF-8, not a regular file, too large), or null. */
  notText: Diagnostic | null;
}

/** A loaded flow checked under its id: a file that is not text has that one problem. */
export function checkLoaded(flow: LoadedFlow): CheckResult {
  return flow.notText ? { ok: false, diagnostics: [flow.notText], errorCount: 1, plan: null } : checkFlow(flow.source, flow.id);
}

/**
 * Read synchronously: a start under load must not wait its turn on a busy event loop for a small
 * file. A FIFO, device or socket linked into the folder, or a file past the bound, is listed with
 * that one problem rather than read (a FIFO would block the read forever, /dev/zero never ends).
 */
function readLoaded(id: string, path: string, realPath: string): LoadedFlow {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(realPath, MAX_FLOW_FILE_BYTES);
  } catch (error) {
    if (!(error instanceof NotReadableFile)) throw error;
    const notText: Diagnostic = { file: id, line: 1, column: 1, message: `cannot read the flow: ${error.message}`, severity: 'error' };
    return { id, path, source: '', notText };
  }
  const text = flowText(bytes, id);
  return text.ok ? { id, path, source: text.source, notText: null } : { id, path, source: '', notText: text.diagnostic };
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export class FlowCatalog {
  private readonly keys: FlowKeys;

  constructor(options: FlowCatalogOptions) {
    this.keys = new FlowKeys({ examplesDir: options.examplesDir, userFlowsDir: options.userFlowsDir ?? null });
  }

  async list(): Promise<FlowInfo[]> {
    const flows: FlowInfo[] = [];
    for (const prefix of [FLOW_FOLDERS.examples, FLOW_FOLDERS.user]) {
      const folder = this.keys.folderOf(prefix);
      if (folder === null) continue;
      let names: string[];
      try {
        names = (await readdir(folder, { withFileTypes: true })).filter((d) => d.isFile() || d.isSymbolicLink()).map((d) => d.name);
      } catch (error) {
        if (isMissing(error)) continue;
        throw error;
      }
      for (const name of names.sort()) {
        const id = `${prefix}/${name}`;
        if (!flowIdSchema.safeParse(id).success) continue;
        // The same resolution as starting: what cannot be started (gone, a link leaving the folder) is not listed.
        let flow: LoadedFlow;
        try {
          flow = await this.load(id);
        } catch (error) {
          if (error instanceof ApiError) continue;
          throw error;
        }
        const checked = checkLoaded(flow);
        // What the window shows: no env: secret of the flow.
        const secrets = flowRedactor(checked.plan);
        const source = secrets.text(flow.source);
        flows.push({
          id,
          name: name.replace(/\.prose$/, ''),
          path: flow.path,
          bundled: prefix === FLOW_FOLDERS.examples,
          source,
          ok: checked.ok,
          diagnostics: secrets.deep(checked.diagnostics),
          sessions: checked.plan?.sessions.length ?? 0,
          repo: describeRunRepo(checked.plan, flow.path),
          highlight: highlightSpans(source),
        });
      }
    }
    return flows;
  }

  /**
   * Reads a flow by id (validated by the caller's schema). 404 when it does not exist, 400 when it
   * leaves its folder. Synchronously, like FlowKeys.resolve: a flow is a small local file.
   */
  async load(id: string): Promise<LoadedFlow> {
    try {
      const resolved = await this.keys.resolve(id);
      return readLoaded(id, resolved.path, resolved.realPath);
    } catch (error) {
      throw asCatalogError(error, id);
    }
  }

  /**
   * The flow of an earlier run, for retry and resume: a catalog id, or an absolute path a run
   * started from the command line recorded. 409 when it is gone.
   */
  async loadForRun(runId: string, flow: string): Promise<LoadedFlow> {
    try {
      if (FlowKeys.isFolderKey(flow)) return await this.load(flow);
      if (!flow.endsWith('.prose')) throw new ApiError('flow_not_found', `no flow ${flow}`);
      const resolved = await this.keys.resolve(flow);
      return readLoaded(flow, resolved.path, resolved.realPath);
    } catch (error) {
      const mapped = asCatalogError(error, flow);
      if (mapped instanceof ApiError && mapped.status === 404) {
        throw new ApiError('flow_unavailable', `the flow of run ${runId} (${flow}) is no longer available`);
      }
      throw mapped;
    }
  }
}

function asCatalogError(error: unknown, id: string): unknown {
  if (error instanceof FlowKeyError) {
    if (error.problem === FlowKeyProblem.outsideFolder) return new ApiError('flow_outside_folder', error.message);
    if (error.problem === FlowKeyProblem.notAFile) return new ApiError('flow_not_a_file', error.message);
    return new ApiError('flow_not_found', error.message);
  }
  if (isMissing(error)) return new ApiError('flow_not_found', `no flow ${id}`);
  return error;
}
