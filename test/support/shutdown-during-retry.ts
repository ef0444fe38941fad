/**
 * A client whose connection to Temporal breaks, shut down while a call waits out its retry
 * backoff (`test/shutdown.test.ts`). Everything goes through a loopback TCP proxy, which the
 * script closes to break the connection. Prints `PENDING <how the call ended>`, then `CLEAN` if
 * the process is still alive after every retry timer could have fired.
 *
 * Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Tollgate, TollgateError } from '../../src/index.js';
import { startTcpProxy } from './tcp-proxy.js';

const proxy = await startTcpProxy(process.env.TEMPORAL_ADDRESS!);
const address = proxy.address;

const tollgate = new Tollgate({
  temporal: { address, namespace: process.env.TEMPORAL_NAMESPACE!, taskQueue: 'no-worker' },
});
const runs = tollgate.getAgent('nobody');
const probe = () => runs.pendingToolCalls('no-such-run');
await probe().catch(() => undefined); // RUN_NOT_FOUND: connected, through the proxy

await proxy.close();
const pending = probe().then(
  () => 'answered',
  (error: unknown) =>
    error instanceof TollgateError ? `TollgateError ${error.code}` : `other ${String(error)}`,
);
await sleep(500); // the call fails, UNAVAILABLE, and backs off before its next attempt
await tollgate.shutdown();
console.log(`PENDING ${await pending}`);
await sleep(4000); // a retry timer left behind would fire within this
console.log('CLEAN');
process.exit(0);
