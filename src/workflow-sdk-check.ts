import { createRequire } from 'node:module';
import { TollgateError } from './common/errors.js';

/**
 * The `@temporalio/workflow` release whose private activation loop `workflows/update-order.ts`
 * drives (pinned exactly in package.json, like every `@temporalio/*` package).
 */
export const SUPPORTED_WORKFLOW_SDK = '1.24.0';

/**
 * The private parts of the SDK's `Activator` that the update-ordering interceptor uses: it hands
 * held updates to `doUpdate`, reads `blockedConditions`, and adds to it under the next of
 * `nextSeqs`' condition numbers.
 */
const USED_INTERNALS = ['doUpdate', 'blockedConditions', 'nextSeqs'] as const;

/** What is installed: the version and the source of the SDK's `Activator` class. */
export interface WorkflowSdkInternals {
  version: string;
  activatorSource: string;
}

/**
 * Refuses to start a worker on a workflow SDK other than the one the update-ordering interceptor
 * was written for, or one whose activator lacks what it drives: such a worker could record
 * histories that no longer replay. Named error `TEMPORAL_SDK_UNSUPPORTED`.
 */
export async function checkWorkflowSdk(
  installed?: WorkflowSdkInternals,
): Promise<WorkflowSdkInternals> {
  const found = installed ?? (await readInstalledSdk());
  if (found.version !== SUPPORTED_WORKFLOW_SDK) {
    throw new TollgateError(
      'TEMPORAL_SDK_UNSUPPORTED',
      `@temporalio/workflow ${found.version} is installed, but Tollgate's update ordering is written for ${SUPPORTED_WORKFLOW_SDK}; install exactly ${SUPPORTED_WORKFLOW_SDK} for every @temporalio/* package.`,
    );
  }
  const missing = USED_INTERNALS.filter((name) => !found.activatorSource.includes(name));
  if (missing.length > 0) {
    throw new TollgateError(
      'TEMPORAL_SDK_UNSUPPORTED',
      `The installed @temporalio/workflow has no Activator ${missing.join(', ')}, which Tollgate's update ordering uses; reinstall @temporalio/workflow ${SUPPORTED_WORKFLOW_SDK}.`,
    );
  }
  return found;
}

async function readInstalledSdk(): Promise<WorkflowSdkInternals> {
  const require = createRequire(import.meta.url);
  const { version } = require('@temporalio/workflow/package.json') as { version: string };
  const internals = (await import('@temporalio/workflow/lib/internals.js')) as {
    Activator?: { toString(): string };
  };
  return { version, activatorSource: internals.Activator?.toString() ?? '' };
}
