import { setHandler } from '@temporalio/workflow';
import { tollgateFailure } from '../common/failure.js';
import { changeProblem, type RunPolicyApplied } from '../common/live-policy.js';
import { runPolicyUpdate } from '../common/messages.js';
import type { RunState } from './run-state.js';

/**
 * The `tollgate.livePolicy` update (docs/live-policies.md): an operator changed a live approval
 * rule of the run's agent. Later calls of the tool follow it (`GateContext.live`); a rule that no
 * longer asks releases the calls of the tool that wait for approval now, recorded as the
 * policy's release. A rule that asks again only gates calls not yet made: nothing decided reopens.
 * Only this new message changes anything, so runs that never get it replay as before.
 */
export function installLivePolicy(state: RunState): void {
  setHandler(
    runPolicyUpdate,
    (change): RunPolicyApplied => {
      const { toolName, requireApproval, changedBy, reason } = change;
      if (requireApproval === null) delete state.live[toolName];
      else state.live[toolName] = requireApproval;
      const who = { ...(changedBy ? { changedBy } : {}), ...(reason ? { reason } : {}) };
      state.audit.add({ type: 'policy-change', toolName, requireApproval, ...who });
      if (requireApproval !== false) return { released: [] };
      const waiting = state.calls
        .inOrder()
        .filter((call) => call.kind === 'approve' && call.toolName === toolName && !call.route);
      for (const call of waiting) state.releaseByPolicy(call, who);
      return { released: waiting.map(({ toolCallId }) => ({ toolCallId, toolName })) };
    },
    {
      validator: (change) => {
        const problem = changeProblem({ agentId: state.agentId, ...change });
        if (problem) throw tollgateFailure('INVALID_OPTIONS', problem);
        if (state.calls.closed) {
          throw tollgateFailure('RUN_FINISHED', `Run ${state.runId} has finished.`);
        }
      },
    },
  );
}
