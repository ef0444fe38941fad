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
import { windowEmptyAt, windowOf } from '../common/rolling-window.js';
import { BUDGET_COUNTER_MEMO_KEY } from '../common/wire.js';
import { historyTooLong } from './registry-lifetime.js';

/** A counter stays open this long after its day ends, for the commits of steps still running. */
const GRACE_MS = 86_400_000;

/**
 * One shared budget's counter for one key and UTC day or rolling window (docs/budgets.md "Shared
 * budgets"): runs add each step's usage by update and read the total from the memo. A day's counter
 * closes a day after the day ends, a rolling window's once its last commit has left the window,
 * returning its total; before that, a long history continues it as new, so many runs a day never
 * bring it near Temporal's event limit.
 */
export async function budgetCounter(initial: CounterState): Promise<CounterState> {
  let state = initial;
  setHandler(
    budgetCommitUpdate,
    (commit) => {
      const next = withCommit(state, commit, Date.now());
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
  const tooLong = await openUntilDone(() => state);
  if (!tooLong) return state;
  const memo = { [BUDGET_COUNTER_MEMO_KEY]: counterMemo(state) };
  return makeContinueAsNewFunc<typeof budgetCounter>({ memo })(state);
}

/**
 * Waits until the counter may close (`false`) or its history is too long (`true`). A day's counter
 * is open until a day after its day; a rolling window's until no commit is left in its window (and
 * at least one window from its start, for the commit that started it). A commit moves that later:
 * the wait is then taken up again, not woken by each commit.
 */
async function openUntilDone(state: () => CounterState): Promise<boolean> {
  const windowMs = windowOf(state().ref.period);
  if (windowMs === undefined) {
    const open = dayEndMs(state().ref.period) + GRACE_MS - Date.now();
    const tooLong = await condition(historyTooLong, Math.max(1, open));
    await condition(allHandlersFinished);
    return tooLong;
  }
  const startedOpenUntil = Date.now() + windowMs;
  const emptyAt = () => Math.max(startedOpenUntil, windowEmptyAt(state().buckets ?? {}, windowMs));
  for (;;) {
    const open = emptyAt() - Date.now();
    if (open > 0 && (await condition(historyTooLong, open))) break;
    await condition(allHandlersFinished);
    // No handler runs between this check and the counter's return.
    if (emptyAt() <= Date.now()) return false;
  }
  await condition(allHandlersFinished);
  return true;
}
