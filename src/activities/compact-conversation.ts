import type { ModelMessage } from 'ai';
import type {
  CompactConversationInput,
  CompactedConversation,
} from '../common/compaction-types.js';
import { jsonBytes } from '../common/continued-run.js';
import { TollgateError } from '../common/errors.js';
import type { AgentRegistry } from './agent-registry.js';
import { checkCompaction } from './compaction-check.js';
import { wholeConversation, type ConversationSource } from './conversation-cache.js';

export interface CompactionDeps extends ConversationSource {
  agents: AgentRegistry;
}

/**
 * Runs the agent's `conversation.compact` hook on the run's whole conversation and checks what
 * it returns. The result, recorded as this activity's, becomes the run's conversation.
 */
export async function compactConversation(
  deps: CompactionDeps,
  input: CompactConversationInput,
): Promise<CompactedConversation> {
  const agent = deps.agents.require(input.agentId);
  const compact = agent.conversation?.compact;
  if (!compact) {
    throw new TollgateError(
      'INVALID_AGENT',
      `Agent "${agent.id}" has no conversation.compact on this worker, but its run was started with one; deploy the same agent definition on every worker.`,
    );
  }
  const messages = await wholeConversation(deps, input.runId, input.conversation);
  const bytes = jsonBytes(messages);
  const result = await compact(structuredClone(messages) as ModelMessage[], {
    runId: input.runId,
    agentId: input.agentId,
    step: input.step,
    bytes,
    recalled: input.recalled,
    maxBytes: input.maxBytes,
  });
  return checkCompaction(
    { agentId: agent.id, messages, bytes, recalled: input.recalled, maxBytes: input.maxBytes },
    result,
  );
}
