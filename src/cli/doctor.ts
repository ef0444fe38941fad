/**
 * `tollgate doctor`: can decisions be applied here? Whether Temporal answers, and how many
 * workers poll the task queue of `--task-queue` (default: tollgate). With `--probe`, also how fast
 * the server moves an agent step along, and which dynamic config to change (doctor-probe.ts).
 */
import { messageOf } from '../common/message-of.js';
import { temporalAnswers } from '../server/health.js';
import type { Tollgate } from '../runtime.js';
import type { CommandHandler, CommandInput } from './command-input.js';
import { openTollgate } from './connect.js';
import {
  judgeProbe,
  PROBE_WARMUP_ROUNDS,
  runServerProbe,
  type ProbeFigures,
  type ProbeVerdict,
} from './doctor-probe.js';
import { printDeployments } from './deployments.js';
import { EXIT } from './exit-codes.js';
import { quietWorkerLogs } from './until-stopped.js';

/** Activities the probe times (after one warm-up round). */
const PROBE_ROUNDS = 10;

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
    const probe = input.options.probe === true ? await probeServer(input, tollgate) : undefined;
    output.progress(`Counting the workers of task queue ${tollgate.taskQueue}…`);
    const workers = await tollgate.workerPollers();
    // A server without Worker Deployments (older than 1.28, or turned off) answers the rest.
    const deployments = await tollgate.deployments
      .report()
      .catch((error: unknown) => ({ unavailable: messageOf(error) }));
    output.document({
      temporal: true,
      address: tollgate.address,
      workers,
      deployments,
      ...(probe ? { probe } : {}),
    });
    output.line(`Temporal at ${tollgate.address} (namespace ${tollgate.namespace}): answering.`);
    if (probe) printProbe(input, probe);
    if (Array.isArray(deployments)) printDeployments(output, tollgate.taskQueue, deployments);
    else output.line(`Worker Deployments: not readable here (${deployments.unavailable}).`);
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

async function probeServer(
  { output }: CommandInput,
  tollgate: Tollgate,
): Promise<ProbeFigures & ProbeVerdict> {
  output.progress(
    `Probing the server: ${PROBE_WARMUP_ROUNDS + PROBE_ROUNDS} activities on a task queue of its own…`,
  );
  await quietWorkerLogs();
  const figures = await runServerProbe({
    address: tollgate.address,
    namespace: tollgate.namespace,
    rounds: PROBE_ROUNDS,
  });
  return { ...figures, ...judgeProbe(figures) };
}

function printProbe({ output }: CommandInput, probe: ProbeFigures & ProbeVerdict): void {
  output.line(
    `Probe (${probe.rounds} activities measured after ${probe.warmupRounds}, workflow ${probe.workflowId}): activity completed → next workflow task ${probe.wakeMedianMs.toFixed(1)} ms, ` +
      `workflow task completed → activity started ${probe.dispatchMedianMs.toFixed(1)} ms (medians, server clock).`,
  );
  output.line(
    probe.transfer === 'ok'
      ? 'History transfer queue: OK (completions wake the workflow at once).'
      : 'History transfer queue: throttled.',
  );
  output.line(`Eager activity dispatch: ${probe.eager ? 'on' : 'off'}.`);
  for (const advice of probe.advice) output.line(`  Change: ${advice}`);
  if (probe.busy)
    output.line(
      `  Note: this machine is busy (load average ${probe.loadAverage.toFixed(1)} on ${probe.cpus} CPUs; each activity's own round took ${probe.ownMedianMs.toFixed(1)} ms, median), which lengthens every wait and can hide a throttled transfer queue; probe again when it is quieter before changing settings.`,
    );
  if (probe.advice.length === 0) output.line('Server settings: OK for Tollgate.');
  output.line('(docs/performance.md explains each setting, its cost and its measured effect.)');
}
