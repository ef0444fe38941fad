/**
 * Long-running commands (`dev`, `worker`, `serve`) run until Ctrl-C or SIGTERM, then shut down
 * cleanly; a second signal exits at once.
 */

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** Exit status of a second, impatient Ctrl-C (128 + SIGINT). */
const FORCED_EXIT = 130;

/** Resolves with the first SIGINT or SIGTERM; keeps the process alive until then. */
export function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => undefined, 60_000);
    const onSignal = (signal: NodeJS.Signals) => {
      clearInterval(keepAlive);
      for (const name of STOP_SIGNALS) {
        process.off(name, onSignal);
        process.once(name, () => process.exit(FORCED_EXIT));
      }
      resolve(signal);
    };
    for (const name of STOP_SIGNALS) process.on(name, onSignal);
  });
}

/** Worker state changes are INFO logs: noise on an operator's terminal. */
export async function quietWorkerLogs(): Promise<void> {
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  Runtime.install({ logger: new DefaultLogger('WARN') });
}
