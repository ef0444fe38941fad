/**
 * `tollgate doctor`: can decisions be applied here? Whether Temporal answers, and how many
 * workers poll the task queue of `--task-queue` (default: tollgate).
 */
import { temporalAnswers } from '../server/health.js';
import type { CommandHandler } from './command-input.js';
import { openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';

export const doctor: CommandHandler = async (input) => {
  const { output } = input;
  const tollgate = openTollgate(input.global);
  try {
    output.progress(`Asking Temporal at ${tollgate.address}…`);
    if (!(await temporalAnswers(tollgate))) {
      output.document({ temporal: false, address: tollgate.address });
      output.line(`Temporal at ${tollgate.address}: not answering. Start it or check --address.`);
      return EXIT.error;
    }
    output.progress(`Counting the workers of task queue ${tollgate.taskQueue}…`);
    const workers = await tollgate.workerPollers();
    output.document({ temporal: true, address: tollgate.address, workers });
    output.line(`Temporal at ${tollgate.address} (namespace ${tollgate.namespace}): answering.`);
    output.line(
      workers.pollers > 0
        ? `Task queue ${workers.taskQueue}: ${workers.pollers} worker(s) polling; decisions apply.`
        : `Task queue ${workers.taskQueue}: no worker polling; decisions answer WORKER_UNAVAILABLE. Start one with \`tollgate worker\`.`,
    );
    return workers.pollers > 0 ? EXIT.ok : EXIT.unavailable;
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
};
