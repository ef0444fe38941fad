/** Workflow entry point: the only file the worker bundles. Sandbox-safe code only. */
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { agentThread } from './agent-thread.js';
import { budgetCounter } from './budget-counter.js';
import { agentDirectoryEntry } from './agent-directory.js';
import { grantsRegistry } from './grants-registry.js';
import { livePoliciesRegistry } from './live-policies-registry.js';
import { mcpPinsRegistry } from './mcp-pins-registry.js';

export { agentRun } from './agent-run.js';
export { tollgateReplayCheck } from './replay-check.js';
export {
  agentThread,
  agentDirectoryEntry,
  budgetCounter,
  grantsRegistry,
  livePoliciesRegistry,
  mcpPinsRegistry,
};

// Records that live as long as the task queue move to the current build at their next task
// (docs/deploying.md): pinned, they would keep every build they ever ran on from retiring. A run
// (`agentRun`) follows the worker's `versioning`. An unversioned worker must declare none (Temporal
// refuses the task), so it is asked of the task's build, once, as the record starts on a worker.
const RECORDS: ((input: never) => Promise<unknown>)[] = [
  agentThread,
  budgetCounter,
  agentDirectoryEntry,
  grantsRegistry,
  livePoliciesRegistry,
  mcpPinsRegistry,
];
const followCurrentBuild = () =>
  workflowInfo().currentDeploymentVersion?.deploymentName
    ? { versioningBehavior: 'AUTO_UPGRADE' as const }
    : {};
for (const record of RECORDS) setWorkflowOptions(followCurrentBuild, record);
