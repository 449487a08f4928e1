import { apiConformanceSuite } from '../core/service/conformance.suite.js';
import { createHivewatchService } from '../core/service/service.js';
import { openStore } from '../core/store/index.js';
import { createHttpClient } from '../renderer/api/http-client.js';
import { startHttpShell } from './http.js';

apiConformanceSuite('HTTP client over a real server on 127.0.0.1', async ({ dbPath, examplesDir, userFlowsDir }) => {
  const store = await openStore({ path: dbPath });
  const service = await createHivewatchService({ store, examplesDir, userFlowsDir });
  const shell = await startHttpShell({ service, staticDir: null });
  const client = createHttpClient({ baseUrl: shell.origin, token: shell.token });
  return {
    api: client,
    close: async () => {
      client.close();
      await shell.close();
      await service.close();
      await store.close();
    },
  };
});
