/** Jest global teardown: stops the dev server started by global-setup. */
import type { TollgateTestGlobals } from './global-setup.js';

export default async function globalTeardown(): Promise<void> {
  const globals = globalThis as TollgateTestGlobals;
  await globals.__tollgateDevServer?.stop();
  delete globals.__tollgateDevServer;
}
