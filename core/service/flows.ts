import { readdir, readFile } from 'node:fs/promises';
import { basename, isAbsolute, join } from 'node:path';
import { checkFlow } from '../flow/check.js';
import { describeRunRepo } from '../workspace/repo.js';
import type { FlowInfo } from './api.js';
import { ApiError } from './errors.js';
import { flowIdSchema } from './schemas.js';

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
  source: string;
}

const FOLDERS = { examples: 'examples', user: 'user' } as const;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export class FlowCatalog {
  constructor(private readonly options: FlowCatalogOptions) {}

  private folderOf(prefix: string): string | null {
    if (prefix === FOLDERS.examples) return this.options.examplesDir;
    if (prefix === FOLDERS.user) return this.options.userFlowsDir ?? null;
    return null;
  }

  async list(): Promise<FlowInfo[]> {
    const flows: FlowInfo[] = [];
    for (const prefix of [FOLDERS.examples, FOLDERS.user]) {
      const folder = this.folderOf(prefix);
      if (folder === null) continue;
      let names: string[];
      try {
        names = (await readdir(folder, { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name);
      } catch (error) {
        if (isMissing(error)) continue;
        throw error;
      }
      for (const name of names.sort()) {
        const id = `${prefix}/${name}`;
        if (!flowIdSchema.safeParse(id).success) continue;
        const path = join(folder, name);
        let source: string;
        try {
          source = await readFile(path, 'utf8');
        } catch (error) {
          if (isMissing(error)) continue;
          throw error;
        }
        const checked = checkFlow(source, id);
        flows.push({
          id,
          name: name.replace(/\.prose$/, ''),
          path,
          bundled: prefix === FOLDERS.examples,
          source,
          ok: checked.ok,
          diagnostics: checked.diagnostics,
          sessions: checked.plan?.sessions.length ?? 0,
          repo: describeRunRepo(checked.plan, path),
        });
      }
    }
    return flows;
  }

  /** Reads a flow by id (validated by the caller's schema). 404 when it does not exist. */
  async load(id: string): Promise<LoadedFlow> {
    const slash = id.indexOf('/');
    const folder = this.folderOf(id.slice(0, slash));
    const name = id.slice(slash + 1);
    if (folder === null) throw new ApiError(404, 'flow_not_found', `no flow ${id}: no operator flows folder is configured`);
    if (name !== basename(name)) throw new ApiError(404, 'flow_not_found', `no flow ${id}`);
    const path = join(folder, name);
    try {
      return { id, path, source: await readFile(path, 'utf8') };
    } catch (error) {
      if (isMissing(error)) throw new ApiError(404, 'flow_not_found', `no flow ${id}`);
      throw error;
    }
  }

  /**
   * The flow of an earlier run, for retry and resume: a catalog id, or an absolute path a run
   * started from the command line recorded. 409 when it is gone.
   */
  async loadForRun(runId: string, flow: string): Promise<LoadedFlow> {
    if (flowIdSchema.safeParse(flow).success) {
      try {
        return await this.load(flow);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          throw new ApiError(409, 'flow_unavailable', `the flow of run ${runId} (${flow}) is no longer available`);
        }
        throw error;
      }
    }
    if (isAbsolute(flow) && flow.endsWith('.prose')) {
      try {
        return { id: flow, path: flow, source: await readFile(flow, 'utf8') };
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    throw new ApiError(409, 'flow_unavailable', `the flow of run ${runId} (${flow}) is no longer available`);
  }
}
