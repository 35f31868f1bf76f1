import type { WorkbenchApi } from '../../main/api/contract.js';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { startHttpTransport } from '../../main/api/http.js';
import { callMethod, type Workbench } from '../../main/service/index.js';
import { tempDir } from './paths.js';

/**
 * A workbench behind the HTTP transport `wapii serve` uses, and a fetch client for it: the second
 * transport of the suites that run once in-process and once over HTTP. `close` stops both.
 */
export async function overHttp(workbench: Workbench): Promise<{ client: WorkbenchApi; close: () => Promise<void> }> {
  const transport = await startHttpTransport({ call: (m, i) => callMethod(workbench.service, m, i), subscribe: (l) => workbench.service.onEvent(l), staticDir: tempDir() });
  return {
    client: createFetchClient({ baseUrl: transport.url, token: transport.token }),
    close: async () => {
      await transport.close();
      await workbench.shutdown();
    },
  };
}
