import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { AgentClient } from '../../temporal-client/agent-client.js';
import type { AgentStream } from '../../stream/agent-stream.js';
import type { JsonValue } from '../../common/json.js';
import type { Chunk, ChunkSlice } from '../../common/chunks.js';
import type { PendingToolCall } from '../../common/run-types.js';
import { SA_KEYS } from '../../common/search-attribute-keys.js';
import {
  AGENT_RUN_WORKFLOW,
  QUERIES,
  SEARCH_ATTRIBUTES,
  THREAD_MESSAGES,
  threadWorkflowId,
} from '../../common/wire.js';

/** Where a chat's runs live: one agent's memory thread of one resource. */
export interface ChatThread {
  agentId: string;
  threadId: string;
  resourceId: string;
}

/** A chat's run that is still open, the calls that wait in it and those it declined. */
export interface OpenRun {
  runId: string;
  calls: PendingToolCall[];
  declined: Set<string>;
}

/** How many thread messages a chat page is given back, at most. */
const HISTORY_MESSAGES = 1000;

/**
 * The chat's model messages (the thread's, then the open run's own) and its open run, with
 * the calls that wait in it and those it declined.
 */
export async function chatConversation(
  client: Client,
  agent: AgentClient,
  chat: ChatThread,
): Promise<{ messages: JsonValue[]; run?: OpenRun }> {
  const thread = await threadMessagesOf(client, chat);
  const runId = await openRunOf(client, chat);
  if (runId === undefined) return { messages: thread };
  const [conversation, calls, declined] = await Promise.all([
    conversationOf(client, runId),
    agent.pendingToolCalls(runId),
    declinedIn(agent, runId),
  ]);
  return { messages: withRunMessages(thread, conversation), run: { runId, calls, declined } };
}

/** The memory thread's last messages; none when the thread was never written. */
async function threadMessagesOf(client: Client, chat: ChatThread): Promise<JsonValue[]> {
  const threadId = threadWorkflowId(chat.agentId, chat.resourceId, chat.threadId);
  try {
    return await client.workflow
      .getHandle(threadId)
      .query<JsonValue[], [{ last: number }]>(THREAD_MESSAGES.messages, {
        last: HISTORY_MESSAGES,
      });
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return [];
    throw error;
  }
}

const quote = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * The chat's run that is still open (running or waiting), newest first, from visibility. A run
 * started a moment ago may not be listed yet (visibility is eventually consistent).
 */
export async function openRunOf(client: Client, chat: ChatThread): Promise<string | undefined> {
  const { agentId, threadId, resourceId } = SEARCH_ATTRIBUTES;
  const query = [
    `${agentId.name} = ${quote(chat.agentId)}`,
    `${threadId.name} = ${quote(chat.threadId)}`,
    `${resourceId.name} = ${quote(chat.resourceId)}`,
    `ExecutionStatus = 'Running'`,
    'ParentWorkflowId IS NULL',
  ].join(' AND ');
  let newest: { id: string; start: number } | undefined;
  for await (const run of client.workflow.list({ query })) {
    const start = run.startTime.getTime();
    if (!newest || start > newest.start) newest = { id: run.workflowId, start };
  }
  return newest?.id;
}

/** The run's whole conversation, as its model steps see it. */
export function conversationOf(client: Client, runId: string): Promise<JsonValue[]> {
  return client.workflow
    .getHandle(runId)
    .query<JsonValue[], [{ upTo: number }]>(QUERIES.conversation, {
      upTo: Number.MAX_SAFE_INTEGER,
    });
}

/**
 * The thread's messages followed by a run's own: a run's conversation starts with the thread's
 * last messages (as many as the agent reads), so the longest overlap is left out once.
 */
export function withRunMessages(thread: JsonValue[], conversation: JsonValue[]): JsonValue[] {
  const key = (messages: JsonValue[]) => messages.map((m) => JSON.stringify(m));
  const threadKeys = key(thread);
  const runKeys = key(conversation);
  for (let k = Math.min(thread.length, conversation.length); k > 0; k--) {
    const tail = threadKeys.slice(thread.length - k);
    if (tail.every((m, i) => m === runKeys[i])) return [...thread, ...conversation.slice(k)];
  }
  return [...thread, ...conversation];
}

/** Calls a run declined (by a decision), from its audit trail. */
export async function declinedIn(agent: AgentClient, runId: string): Promise<Set<string>> {
  const entries = await agent.getAuditTrail(runId);
  return new Set(
    entries.flatMap((e) =>
      e.type === 'decision' && e.decision === 'declined' ? [e.toolCallId] : [],
    ),
  );
}

/**
 * A run's chunks from `from` (default its start), across the stretches that decisions already
 * closed, up to a call that still waits or the run's end: what a reloaded page replays.
 */
export async function* replayOf(agent: AgentClient, runId: string, from = 0): AsyncIterable<Chunk> {
  let offset = from;
  for (;;) {
    const stream: AgentStream = await agent.observe({ runId, offset });
    const waitedOn: string[] = [];
    for await (const chunk of stream.fullStream) {
      if (chunk.type === 'tool-call-approval' || chunk.type === 'tool-call-suspended') {
        waitedOn.push(chunk.payload.toolCallId);
      }
      yield chunk;
    }
    if ((await stream.finishReason) !== 'suspended') return;
    const pending = await agent.pendingToolCalls(runId);
    if (pending.some((call) => waitedOn.includes(call.toolCallId))) return;
    offset = await stream.nextOffset;
  }
}

/**
 * Whether `runId` is a run of `thread`: an agent run of its agent (so no other workflow is ever
 * queried), whose own `start` chunk names the thread and resource.
 */
export async function isRunOfThread(
  client: Client,
  runId: string,
  thread: ChatThread,
): Promise<boolean> {
  try {
    const handle = client.workflow.getHandle(runId);
    const described = await handle.describe();
    if (
      described.type !== AGENT_RUN_WORKFLOW ||
      described.typedSearchAttributes.get(SA_KEYS.agentId) !== thread.agentId
    ) {
      return false;
    }
    const slice = await handle.query<ChunkSlice, [{ offset: number; limit: number }]>(
      QUERIES.chunks,
      { offset: 0, limit: 1 },
    );
    const start = slice.chunks[0];
    return (
      start?.type === 'start' &&
      start.payload.agentId === thread.agentId &&
      start.payload.threadId === thread.threadId &&
      start.payload.resourceId === thread.resourceId
    );
  } catch (error) {
    // An id no run has is as foreign as another thread's; an outage is not a refusal.
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
