/**
 * The workflow code of a release whose `agentRun` cannot replay earlier runs (the changed one of
 * `changed-workflow.ts`), yet that has the replay check: what `test/move-run.test.ts` runs as a
 * build that a run must not be moved to.
 */
export { agentRun } from './changed-workflow.js';
export { tollgateReplayCheck } from '../../src/workflows/replay-check.js';
