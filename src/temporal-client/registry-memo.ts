import {
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { toTollgateError } from './errors.js';

/** Which registry workflow (grants, live policies): its type, id, memo key and empty state. */
export interface RegistryRef<State> {
  workflowType: string;
  workflowId: string;
  memoKey: string;
  empty: State;
}

/**
 * A registry's state from its memo, read with one `describe`: empty when it never started or
 * is not running (it continues as new with its state, so a closed one is an old execution).
 */
export async function readRegistryMemo<State>(
  client: Client,
  ref: RegistryRef<State>,
): Promise<State> {
  try {
    const description = await client.workflow.getHandle(ref.workflowId).describe();
    if (description.type !== ref.workflowType || description.status.name !== 'RUNNING') {
      return ref.empty;
    }
    return (description.memo?.[ref.memoKey] as State | undefined) ?? ref.empty;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return ref.empty;
    throw await toTollgateError(error, ref.workflowId);
  }
}

/** Starts the registry on `taskQueue` unless it runs already (its first use). */
export async function startRegistry<State>(
  client: Client,
  ref: RegistryRef<State>,
  taskQueue: string,
  summary: string,
): Promise<void> {
  await client.workflow.start(ref.workflowType, {
    workflowId: ref.workflowId,
    taskQueue,
    args: [ref.empty],
    memo: { [ref.memoKey]: ref.empty },
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    staticSummary: summary,
  });
}
