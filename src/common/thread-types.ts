import type { JsonValue } from './json.js';

/** Input of the `agentThread` workflow: a conversation kept across runs (memory). */
export interface ThreadInput {
  agentId: string;
  threadId: string;
  resourceId: string;
  /** The conversation so far (carried over by continue-as-new). */
  messages: JsonValue[];
  /** Runs whose messages are in `messages`, so a repeated append is not applied twice. */
  appliedRuns: string[];
  /** Continue-as-new once the thread's history has this many events. */
  historyLimit: number;
  /** Most messages kept; older ones are dropped. */
  maxMessages: number;
  /**
   * Most bytes of messages kept (UTF-8 JSON); older ones are dropped. Absent in threads started
   * before it existed: they get `DEFAULT_THREAD_MAX_BYTES`.
   */
  maxBytes?: number;
}

/** What a run adds to its thread when it completes. */
export interface ThreadAppend {
  runId: string;
  messages: JsonValue[];
}

export interface ThreadRef {
  agentId: string;
  threadId: string;
  resourceId: string;
}
