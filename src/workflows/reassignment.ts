import type { Reassignment } from '../common/run-types.js';
import type { RunState } from './run-state.js';
import type { WaitingCall } from './waiting-call.js';

/**
 * Other approvers decide a waiting call from now on (an escalation or a hand-off). The new
 * approvers replace the old ones and any a request added (`alsoApprovers`), so the call can
 * always be decided; approvals a quorum had gathered are dropped, since they were given by the
 * group that no longer decides. The call's request is shown again with the change, and a run
 * that only waits ends its stream's stretch again, so observers see it. Answers the offset of
 * the new request chunk. Issues no command except the status upsert it may cause.
 */
export function reassign(state: RunState, call: WaitingCall, change: Reassignment): number {
  const offset = state.log.nextOffset;
  call.approvers = change.to;
  delete call.alsoApprovers;
  if (call.quorum) call.approvals = [];
  call.reassigned = [...(call.reassigned ?? []), change];
  state.calls.show(call);
  if (state.activity.idle) {
    state.log.emit('finish', { finishReason: 'suspended', usage: state.usage });
  }
  state.status.publish('awaiting-approval');
  return offset;
}

/** How many times the call was handed off so far. */
export function handOffsOf(call: WaitingCall | undefined): number {
  return call?.reassigned?.filter((change) => change.kind === 'hand-off').length ?? 0;
}
