import { setHandler } from '@temporalio/workflow';
import { tollgateFailure } from '../common/failure.js';
import { autoResumeUpdate } from '../common/messages.js';
import type { AutoResumeInput } from '../common/run-types.js';
import { extractResumeData } from './activity-calls.js';
import { judgeDecision, refuse } from './decision-judge.js';
import { forwardDecision } from './delegation.js';
import type { RunState } from './run-state.js';
import type { WaitingCall } from './waiting-call.js';

/**
 * A user message on the run's thread resumes a call parked by `suspend()`: the model reads the
 * message as the tool's resume data, which is validated like any other. Only suspended calls:
 * an approval is never granted by a message.
 */
export function installAutoResume(state: RunState): void {
  setHandler(
    autoResumeUpdate,
    async (input) => {
      const call = suspendedCall(state, input);
      const resumeData = await extractResumeData(
        {
          agentId: state.agentId,
          toolName: call.toolName,
          args: call.args,
          suspendPayload: call.suspendPayload ?? null,
          resumeSchema: call.resumeSchema,
          message: input.message,
        },
        state.agentQueue,
      );
      // Judged again: another decision may have taken the call while the model read the message.
      const verdict = judgeDecision(state.calls, 'resume', {
        toolCallId: input.toolCallId,
        resumeData,
      });
      if (!verdict.ok) throw refuse(verdict);
      const applied = state.apply(verdict.call, verdict.decision, 'auto-resume');
      await forwardDecision(state, verdict.call, 'resume', verdict.decision);
      return applied;
    },
    { validator: (input) => void suspendedCall(state, input) },
  );
}

function suspendedCall(state: RunState, input: AutoResumeInput): WaitingCall {
  if (typeof input?.toolCallId !== 'string' || typeof input.message !== 'string') {
    throw tollgateFailure(
      'INVALID_DECISION',
      'Auto-resume needs { toolCallId: string, message: string }.',
    );
  }
  if (!(input.requested ?? state.autoResume)) {
    throw tollgateFailure(
      'AUTO_RESUME_DISABLED',
      `Auto-resume is off for agent "${state.agentId}"; enable autoResumeSuspendedTools or call resumeStream().`,
    );
  }
  const verdict = judgeDecision(state.calls, 'resume', { toolCallId: input.toolCallId });
  // Resume data is not known yet: only the call itself is checked here.
  if (!verdict.ok && verdict.code !== 'INVALID_RESUME_DATA') throw refuse(verdict);
  return state.calls.waiting.get(input.toolCallId)!;
}
