import {
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { budgetCommitUpdate } from '../common/messages.js';
import {
  counterMemo,
  spentAt,
  ZERO_SPENT,
  type CounterMemo,
  type CounterState,
  type SharedSpendInput,
  type SpentUsage,
} from '../common/shared-budget.js';
import { BUDGET_COUNTER_MEMO_KEY, BUDGET_COUNTER_WORKFLOW } from '../common/wire.js';
import { sendUpdate } from '../temporal-client/send-update.js';

/**
 * The shared spend of a run's counters, in their order (docs/budgets.md "Shared budgets"): read
 * from each counter's memo, which a commit's update changes before it answers, so a read after a
 * commit sees it; a rolling window's buckets are counted at the activity's time. A counter not
 * started yet, or closed, has spent nothing.
 */
export async function readSharedSpend(
  client: Client,
  input: SharedSpendInput,
): Promise<SpentUsage[]> {
  return Promise.all(
    input.counters.map(async ({ id }) => {
      try {
        const { memo, status } = await client.workflow.getHandle(id).describe();
        if (status.name !== 'RUNNING') return ZERO_SPENT;
        return spentAt(memo?.[BUDGET_COUNTER_MEMO_KEY] as CounterMemo | undefined, Date.now());
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return ZERO_SPENT;
        throw error;
      }
    }),
  );
}

/**
 * Adds one step's usage to each of a run's counters, starting a counter on its first commit;
 * answers their new totals. A retried commit of the same run and step counts once.
 */
export async function commitSharedSpend(
  client: Client,
  input: SharedSpendInput,
): Promise<SpentUsage[]> {
  const { commit } = input;
  if (!commit) return readSharedSpend(client, input);
  return Promise.all(
    input.counters.map(async ({ id, ref, agentId }) => {
      const initial: CounterState = { ref, agentId, usage: ZERO_SPENT, steps: {} };
      await client.workflow.start(BUDGET_COUNTER_WORKFLOW, {
        workflowId: id,
        taskQueue: input.taskQueue,
        args: [initial],
        memo: { [BUDGET_COUNTER_MEMO_KEY]: counterMemo(initial) },
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
        staticSummary: `Shared budget of ${agentId} per ${ref.per} ${ref.key || '(none)'} on ${ref.period}`,
      });
      return sendUpdate(client, id, budgetCommitUpdate, [commit]);
    }),
  );
}
