import {
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  workflowInfo,
} from '@temporalio/workflow';

/** A registry continues as new before its history grows past this many events. */
export const REGISTRY_HISTORY_LIMIT = 2000;

/** Whether a registry's history is long enough to continue as new. */
export function historyTooLong(): boolean {
  return (
    workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= REGISTRY_HISTORY_LIMIT
  );
}

/**
 * Keeps a registry that changes only through its updates open until its history is long, then
 * continues it as new with its latest state, as argument and in its memo (under `memoKey`).
 */
export async function keepOpen(memoKey: string, state: () => unknown): Promise<void> {
  await condition(historyTooLong);
  await condition(allHandlersFinished);
  const latest = state();
  await makeContinueAsNewFunc({ memo: { [memoKey]: latest } })(latest);
}
