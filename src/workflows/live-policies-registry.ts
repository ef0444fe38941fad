import { setHandler, upsertMemo } from '@temporalio/workflow';
import { tollgateFailure } from '../common/failure.js';
import {
  changeProblem,
  MAX_LIVE_RULES,
  withChange,
  type LivePoliciesState,
} from '../common/live-policy.js';
import { livePolicyChangeUpdate } from '../common/messages.js';
import { LIVE_POLICIES_MEMO_KEY } from '../common/wire.js';
import { keepOpen } from './registry-lifetime.js';

/**
 * The live approval rules of one task queue (docs/live-policies.md), open for as long as they are
 * used. Its state lives in its memo, so workers read it when a run starts without a query.
 */
export async function livePoliciesRegistry(initial: LivePoliciesState): Promise<void> {
  let state = initial;
  setHandler(
    livePolicyChangeUpdate,
    (change) => {
      state = withChange(state, change, new Date(Date.now()).toISOString());
      upsertMemo({ [LIVE_POLICIES_MEMO_KEY]: state });
      return state;
    },
    {
      validator: (change) => {
        const problem = changeProblem(change);
        if (problem) throw tollgateFailure('INVALID_OPTIONS', problem);
        if (withChange(state, change, '').rules.length > MAX_LIVE_RULES) {
          const message = `At most ${MAX_LIVE_RULES} live rules per task queue; drop some with requireApproval: null.`;
          throw tollgateFailure('INVALID_OPTIONS', message);
        }
      },
    },
  );
  await keepOpen(LIVE_POLICIES_MEMO_KEY, () => state);
}
