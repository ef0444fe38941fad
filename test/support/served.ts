import type { Tollgate } from '../../src/index.js';
import { TollgateClient } from '../../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../../src/server/index.js';

/** An HTTP server for `tollgate` on a free port, one token, and an SDK client using it. */
export async function serveOverHttp(
  tollgate: Tollgate,
  token: string,
): Promise<{ server: ListeningServer; remote: TollgateClient }> {
  const server = await createTollgateServer({
    tollgate,
    auth: { tokens: [{ token, id: 'ops', roles: ['ops'] }] },
    logError: () => undefined,
  }).listen({ port: 0 });
  return { server, remote: new TollgateClient({ baseUrl: `${server.url}/`, token }) };
}
