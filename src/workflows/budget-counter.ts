import {
  allHandlersFinished,
  condition,
  makeContinueAsNewFunc,
  setHandler,
  upsertMemo,
} from '@temporalio/workflow';
import { tollgateFailure } from '../common/failure.js';
import { budgetCommitUpdate } from '../common/messages.js';
import {
  commitProblem,
  counterMemo,
  dayEndMs,
  withCommit,
  type CounterState,
} from '../common/shared-budget.js';
import { BUDGET_COUNTER_MEMO_KEY } from '../common/wire.js';
import { historyTooLong } from './registry-lifetime.js';

/** A counter stays open this long after its day ends, for the commits of steps still running. */
const GRACE_MS = 86_400_000;

/**
 * One shared budget's counter for one key and UTC day (docs/budgets.md "Shared budgets"): runs add
 * each step's usage by update and read the total from the memo. A day's counter closes a day after
 * the day ends, returning its total; before that, a long history continues it as new, so many runs
 * a day never bring it near Temporal's event limit.
 */
export async function budgetCounter(initial: CounterState): Promise<CounterState> {
  let state = initial;
  setHandler(
    budgetCommitUpdate,
    (commit) => {
      const next = withCommit(state, commit);
      if (next !== state) {
        state = next;
        upsertMemo({ [BUDGET_COUNTER_MEMO_KEY]: counterMemo(state) });
      }
      return state.usage;
    },
    {
      validator: (commit) => {
        const problem = commitProblem(commit);
        if (problem) throw tollgateFailure('INVALID_OPTIONS', problem);
      },
    },
  );
  const open = dayEndMs(state.ref.period) + GRACE_MS - Date.now();
  const tooLong = await condition(historyTooLong, Math.max(1, open));
  await condition(allHandlersFinished);
  if (!tooLong) return state;
  const memo = { [BUDGET_COUNTER_MEMO_KEY]: counterMemo(state) };
  return makeContinueAsNewFunc<typeof budgetCounter>({ memo })(state);
}
