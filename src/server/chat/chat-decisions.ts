import type { AgentClient } from '../../temporal-client/agent-client.js';
import type { AgentStream } from '../../stream/agent-stream.js';
import type { Chunk } from '../../common/chunks.js';
import { TollgateError } from '../../common/errors.js';
import type { DecidedBy } from '../../common/run-types.js';
import { notIssued } from './approval-id.js';
import type { ChatAnswer } from './chat-answers.js';
import { continuationOf } from './continuation.js';

/** Where a chat's answers go: its agent in the caller's name, and which runs are the chat's. */
export interface Decider {
  agent: AgentClient;
  decidedBy: DecidedBy;
  ownsRun(runId: string): Promise<boolean>;
}

/**
 * Answers as Tollgate decisions in the caller's name. Every answer is checked first (its run
 * is one of the chat's, its call waits, the fingerprint matches): a refused answer decides
 * nothing. Returns each run's continuation (`continuationOf`) and the calls declined.
 */
export async function decideAnswers(
  decider: Decider,
  answers: ChatAnswer[],
): Promise<{
  sources: Array<{ runId: string; chunks: AsyncIterable<Chunk> }>;
  declined: Set<string>;
}> {
  for (const answer of answers) await check(decider, answer);
  const byRun = new Map<string, AgentStream[]>();
  const declined = new Set<string>();
  for (const answer of answers) {
    const stream = await apply(decider, answer);
    byRun.set(stream.runId, [...(byRun.get(stream.runId) ?? []), stream]);
    if (answer.kind === 'decline') declined.add(answer.toolCallId);
  }
  const sources = [...byRun].map(([runId, decisions]) => ({
    runId,
    chunks: continuationOf(decider.agent, decisions),
  }));
  return { sources, declined };
}

async function check({ agent, ownsRun }: Decider, answer: ChatAnswer): Promise<void> {
  const label = answer.kind === 'resume' ? answer.toolCallId : answer.approvalId;
  if (!(await ownsRun(answer.runId))) throw notIssued(label);
  const call = (await agent.pendingToolCalls(answer.runId)).find(
    (c) => c.toolCallId === answer.toolCallId,
  );
  if (!call) {
    throw new TollgateError(
      'TOOL_CALL_NOT_PENDING',
      `Tool call ${answer.toolCallId} no longer waits for an answer; reload the chat to see what happened to it.`,
    );
  }
  if (answer.kind !== 'resume' && call.fingerprint !== answer.fingerprint) {
    throw new TollgateError(
      'FINGERPRINT_MISMATCH',
      `The approval id ${label} was issued for other arguments than tool call ${call.toolCallId} now has; reload the chat and answer again.`,
    );
  }
  if ((answer.kind === 'resume') === call.requiresApproval) {
    throw new TollgateError(
      'WRONG_DECISION_KIND',
      call.requiresApproval
        ? `Tool call ${call.toolCallId} waits for an approval, not resume data; answer it with addToolApprovalResponse.`
        : `Tool call ${call.toolCallId} was parked by suspend() and waits for resume data; answer it with addToolOutput.`,
    );
  }
}

function apply({ agent, decidedBy }: Decider, answer: ChatAnswer): Promise<AgentStream> {
  const { runId, toolCallId } = answer;
  if (answer.kind === 'resume') {
    return agent.resumeStream(answer.resumeData, { runId, toolCallId, decidedBy });
  }
  const reason = answer.reason !== undefined ? { reason: answer.reason } : {};
  if (answer.kind === 'decline') {
    return agent.declineToolCall({ runId, toolCallId, decidedBy, ...reason });
  }
  const { fingerprint } = answer;
  const args = answer.args !== undefined ? { args: answer.args } : {};
  return agent.approveToolCall({
    runId,
    toolCallId,
    fingerprint,
    decidedBy,
    ...reason,
    ...args,
  });
}
