import { condition, setHandler, upsertMemo, uuid4 } from '@temporalio/workflow';
import type { GrantsState } from '../common/grant-types.js';
import {
  createProblem,
  nextExpiry,
  pruned,
  revokeProblem,
  withGrant,
  withoutGrant,
} from '../common/grants.js';
import { grantCreateUpdate, grantRevokeUpdate } from '../common/messages.js';
import { tollgateFailure } from '../common/failure.js';
import type { TollgateError } from '../common/errors.js';
import { GRANTS_MEMO_KEY } from '../common/wire.js';
import { historyTooLong, keepOpen } from './registry-lifetime.js';

/**
 * The grants of one task queue (docs/grants.md), open for as long as grants are used. Its state
 * lives in its memo too, so the gate's lookup and listings read it without a worker's query.
 * Validators refuse bad updates before they reach history; expired grants are dropped on time.
 */
export async function grantsRegistry(initial: GrantsState): Promise<void> {
  let state = initial;
  const keep = (next: GrantsState) => {
    if (next === state) return;
    state = next;
    upsertMemo({ [GRANTS_MEMO_KEY]: state });
  };
  const refuse = (problem: TollgateError | undefined) => {
    if (problem) throw tollgateFailure(problem.code, problem.message);
  };
  setHandler(
    grantCreateUpdate,
    (request) => {
      const added = withGrant(pruned(state, Date.now()), request, `grant-${uuid4()}`, Date.now());
      keep(added.state);
      return added.grant;
    },
    { validator: (request) => refuse(createProblem(state, request, Date.now())) },
  );
  setHandler(
    grantRevokeUpdate,
    (revocation) => {
      const revoked = withoutGrant(state, revocation, Date.now());
      keep(revoked.state);
      return revoked.grant;
    },
    { validator: (revocation) => refuse(revokeProblem(state, revocation?.grantId, Date.now())) },
  );
  while (!historyTooLong()) {
    const seen = state;
    const changed = () => state !== seen || historyTooLong();
    const expiry = nextExpiry(state);
    // Wakes when a grant expires, to drop it, or when an update changed the grants.
    if (expiry === undefined) await condition(changed);
    else await condition(changed, Math.max(1, expiry - Date.now()));
    keep(pruned(state, Date.now()));
  }
  await keepOpen(GRANTS_MEMO_KEY, () => state);
}
