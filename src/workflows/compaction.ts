import { jsonBytes } from '../common/continued-run.js';
import type { ConversationRef } from '../common/compaction-types.js';
import type { JsonValue } from '../common/json.js';
import type { AgentManifest } from '../common/run-types.js';
import { compactConversation } from './activity-calls.js';
import { historyLimitsOf } from './continue-as-new.js';
import { modelStepsAreLocal } from './local-execution.js';
import type { RunState } from './run-state.js';
import { isPatched } from './patch-markers.js';
import { COMPACTION_PATCH } from './patch-ids.js';

/** Where the run's conversation stands: what the worker holds, what was recalled, its size. */
export class ConversationTrack {
  /** Conversation bytes (JSON), kept only for agents that compact: others need no count. */
  private bytes: number;

  constructor(
    private readonly state: RunState,
    private readonly manifest: AgentManifest,
    /** Leading messages the worker was already sent. */
    public knownToWorker: number,
    /** Leading messages recalled from the memory thread. */
    public recalled: number,
    /** Compactions so far: cached prefixes of an earlier generation are stale. */
    public generation: number,
  ) {
    this.bytes = manifest.conversation ? jsonBytes(state.messages) : 0;
  }

  /** Adds messages to the conversation. */
  add(messages: JsonValue[]): void {
    this.state.messages.push(...messages);
    // Without the brackets, with a comma: close enough for a threshold.
    if (this.manifest.conversation && messages.length > 0) this.bytes += jsonBytes(messages) - 1;
  }

  /** The conversation a worker step is sent: what it does not hold yet. */
  refFrom(from: number): ConversationRef {
    return {
      from,
      messages: this.state.messages.slice(from),
      ...(this.generation > 0 ? { generation: this.generation } : {}),
    };
  }

  /**
   * At a step boundary (nothing waits), a conversation past `conversation.compactAboveBytes` is
   * replaced by what the agent's hook makes of it, on the worker. The result is the activity's,
   * so replay and the next execution take the same conversation; the next model step is sent
   * all of it, since no worker's cache holds it.
   */
  async compactIfLarge(step: number): Promise<void> {
    const settings = this.manifest.conversation;
    if (!settings || this.bytes <= settings.compactAboveBytes || !isPatched(COMPACTION_PATCH))
      return;
    const { state } = this;
    const result = await compactConversation(
      {
        runId: state.runId,
        agentId: this.manifest.agentId,
        step,
        // Local steps are sent the whole conversation: the run counts on no worker's cache.
        conversation: this.refFrom(modelStepsAreLocal(this.manifest) ? 0 : this.knownToWorker),
        recalled: this.recalled,
        maxBytes: historyLimitsOf(this.manifest).carryMaxBytes,
      },
      state.agentQueue,
    );
    state.messages.splice(0, state.messages.length, ...result.messages);
    this.knownToWorker = 0;
    this.recalled = result.recalled;
    this.generation++;
    this.bytes = result.bytesAfter;
    state.audit.add({
      type: 'compaction',
      step,
      bytesBefore: result.bytesBefore,
      bytesAfter: result.bytesAfter,
      messagesBefore: result.messagesBefore,
      messagesAfter: result.messages.length,
      messagesDropped: result.messagesDropped,
    });
  }
}
