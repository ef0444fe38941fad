/**
 * What a script must undo (child processes, servers, temp files), run in reverse order on the
 * normal path and on SIGINT/SIGTERM, each step bounded, so a script never leaves processes behind.
 */
import { progress } from '../stats.js';
import { within } from './concurrency.js';

const steps: Array<{ what: string; run: () => Promise<unknown> }> = [];

export function onCleanup(what: string, run: () => Promise<unknown>): void {
  steps.push({ what, run });
}

/**
 * A Temporal client closed while an RPC waits to be retried throws from a timer ("Channel has
 * been shut down"); while cleaning up, that must not end the process before the rest is undone.
 */
function ignoreDuringCleanup(error: unknown): void {
  progress(`ignored while cleaning up: ${String(error)}`);
}

export async function cleanUp(): Promise<void> {
  process.on('uncaughtException', ignoreDuringCleanup);
  for (let step = steps.pop(); step; step = steps.pop()) {
    await within(step.run(), 30_000, step.what).catch((error: unknown) =>
      progress(`cleanup: ${step!.what} failed: ${String(error)}`),
    );
  }
}

/** On SIGINT or SIGTERM: clean up, then exit with 130. */
export function cleanUpOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      progress(`${signal}: stopping workers and the server`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
}

/**
 * Runs a bench's `main` with the signal handlers of `cleanUpOnSignals`, and exits with the code
 * it answers (0 when it answers nothing), or 1 after printing what it threw.
 */
export function runBench(main: () => Promise<number | void>): void {
  cleanUpOnSignals();
  main().then(
    (code) => process.exit(code ?? 0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
