/**
 * `tollgate deployments` and its routing commands: the builds serving the task queue, and the
 * current, ramp and retire steps of a roll (docs/deploying.md). An operator acts here, with no
 * scope, recorded by Temporal under `$USER@hostname`.
 */
import { parseDuration } from '../common/approval-rules.js';
import type { DeploymentReport } from '../temporal-client/deployments.js';
import {
  stringOption,
  UsageError,
  type CommandHandler,
  type CommandInput,
} from './command-input.js';
import { decidedByFrom, openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';

export const deploymentsReport: CommandHandler = async (input) => {
  const { output } = input;
  const tollgate = openTollgate(input.global);
  try {
    const reports = await tollgate.deployments.report(stringOption(input, 'deployment'));
    output.document({ taskQueue: tollgate.taskQueue, deployments: reports });
    printDeployments(output, tollgate.taskQueue, reports);
    return EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
};

/** The builds of each deployment, one line each; shared with `tollgate doctor`. */
export function printDeployments(output: Output, taskQueue: string, reports: DeploymentReport[]) {
  if (reports.length === 0) {
    output.line(`No Worker Deployment serves task queue '${taskQueue}' (workers run unversioned).`);
    return;
  }
  for (const report of reports) {
    const current = report.currentBuildId ?? 'none (new runs wait for unversioned workers)';
    output.line(`Deployment ${report.name}: current build ${current}.`);
    for (const version of report.versions) {
      const ramp = version.rampPercent !== undefined ? ` ${version.rampPercent}%` : '';
      output.line(
        `  ${version.buildId}  ${version.status}${ramp}  workers ${version.pollers}  pinned runs ${version.openRuns} (${version.parkedRuns} waiting)  ${version.verdict}`,
      );
    }
  }
}

export const deploymentsCurrent: CommandHandler = async (input) =>
  routing(input, async (tollgate, name, buildId, identity) => {
    await tollgate.deployments.setCurrent(name, buildId, { identity, ...allowDropped(input) });
    return `Build ${buildId} is now current in deployment ${name}: new runs start on it.`;
  });

export const deploymentsRamp: CommandHandler = async (input) =>
  routing(input, async (tollgate, name, buildId, identity) => {
    const raw = input.args[1]!;
    const percent = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw) || percent > 100) {
      throw new UsageError(`percent must be a number from 0 to 100, not "${raw}".`);
    }
    await tollgate.deployments.ramp(name, buildId, percent, { identity, ...allowDropped(input) });
    return percent === 0
      ? `Deployment ${name} no longer ramps build ${buildId}.`
      : `Build ${buildId} of deployment ${name} now takes ${percent}% of new runs.`;
  });

export const deploymentsRetire: CommandHandler = async (input) =>
  routing(input, async (tollgate, name, buildId, identity) => {
    const wait = stringOption(input, 'retire-wait');
    const waitMs = wait === undefined ? 0 : parseDuration(wait, '--retire-wait');
    await tollgate.deployments.retire(name, buildId, { identity, waitMs });
    return `Build ${buildId} of deployment ${name} is retired.`;
  });

function allowDropped(input: CommandInput): { allowDroppedAgents?: true } {
  return input.options['allow-dropped-agents'] === true ? { allowDroppedAgents: true } : {};
}

async function routing(
  input: CommandInput,
  change: (
    tollgate: ReturnType<typeof openTollgate>,
    name: string,
    buildId: string,
    identity: string,
  ) => Promise<string>,
) {
  const name = stringOption(input, 'deployment');
  if (name === undefined) throw new UsageError('This command needs --deployment <name>.');
  const buildId = input.args[0]!;
  const tollgate = openTollgate(input.global);
  try {
    const said = await change(tollgate, name, buildId, decidedByFrom(undefined, undefined).id);
    input.output.document({ deployment: name, buildId, done: said });
    input.output.line(said);
    return EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
}
