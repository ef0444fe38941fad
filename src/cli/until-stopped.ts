/**
 * Long-running commands (`dev`, `worker`, `serve`) run until Ctrl-C or SIGTERM, then shut down
 * cleanly; a second signal exits at once.
 */

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** Exit status of a second, impatient Ctrl-C (128 + SIGINT). */
const FORCED_EXIT = 130;

/**
 * Resolves with the first SIGINT or SIGTERM, keeping the process alive until then; resolves with
 * undefined, its handlers removed, when `cancel` aborts first.
 */
export function untilStopped(cancel?: AbortSignal): Promise<NodeJS.Signals | undefined> {
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => undefined, 60_000);
    const stopListening = () => {
      clearInterval(keepAlive);
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
    };
    const onSignal = (signal: NodeJS.Signals) => {
      stopListening();
      for (const name of STOP_SIGNALS) process.once(name, () => process.exit(FORCED_EXIT));
      resolve(signal);
    };
    for (const name of STOP_SIGNALS) process.on(name, onSignal);
    cancel?.addEventListener('abort', () => {
      stopListening();
      resolve(undefined);
    });
  });
}

/** Worker state changes are INFO logs: noise on an operator's terminal. */
export async function quietWorkerLogs(): Promise<void> {
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  Runtime.install({ logger: new DefaultLogger('WARN') });
}
