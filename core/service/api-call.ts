import { API_ROUTES, type ApiMethod, type ApiRoute } from '../common/api-routes.js';
import { parseInput } from './schemas.js';
import type { HivewatchService } from './service.js';

/**
 * One API method called on the service with what a transport gathered for it (an HTTP route's
 * path, query or body, one call of a batch, an IPC message): validated by the method's schema,
 * then passed as the method's one parameter, or not at all for a method that takes none. The
 * HTTP routes and Electron's IPC both call through here, so a method is invoked one way.
 */
export async function callApiMethod(service: HivewatchService, method: ApiMethod, given: unknown): Promise<{ input: unknown; value: unknown }> {
  const spec: ApiRoute = API_ROUTES[method];
  const input = parseInput(method, given);
  const call = service[method] as (input?: unknown) => Promise<unknown>;
  return { input, value: await call.call(service, ...(spec.noInput ? [] : [input])) };
}
