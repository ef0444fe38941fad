/**
 * How an approver answers an MCP server's question (docs/mcp.md "Elicitation") other than with
 * data: the resume data `{ "tollgate/elicitation": "decline" }` or `"cancel"` reaches the server
 * as the elicitation's `decline` or `cancel` action. Plain resume data is the `accept` content.
 * Pure, shared by the worker, both clients and the CLI.
 */
import type { JsonObject } from './json.js';

/** The reserved key of a decline or cancel reply; a server's form field of this name is shadowed. */
export const ELICITATION_REPLY_KEY = 'tollgate/elicitation';

/**
 * MCP's answers without data: `decline`, the user said no; `cancel`, the user dismissed the
 * question without choosing; `accept`, for a URL-mode elicitation only: the user went through
 * the page (an OAuth or payment page), so the call may go on.
 */
export type McpElicitationAction = 'accept' | 'decline' | 'cancel';

/** Resume data that declines or cancels an elicitation instead of answering it. */
export type McpElicitationReply = { [ELICITATION_REPLY_KEY]: McpElicitationAction };

/**
 * The resume data that declines (or cancels) the MCP elicitation a call waits on:
 * `agent.resumeStream(elicitationReply('decline'), { runId })`; `'accept'` answers a URL-mode one.
 */
export function elicitationReply(action: McpElicitationAction): McpElicitationReply {
  return { [ELICITATION_REPLY_KEY]: action };
}

/** The action `data` asks for, when it is a decline or cancel reply; undefined for an answer. */
export function replyActionOf(data: unknown): McpElicitationAction | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const action = (data as Record<string, unknown>)[ELICITATION_REPLY_KEY];
  return action === 'accept' || action === 'decline' || action === 'cancel' ? action : undefined;
}

/**
 * The resume schema of a call parked on a URL-mode elicitation: only a reply, `accept` once the
 * user is done with the page, or `decline` / `cancel`.
 */
export function urlElicitationResumeSchema(): JsonObject {
  return replySchema(['accept', 'decline', 'cancel']);
}

function replySchema(actions: McpElicitationAction[]): JsonObject {
  return {
    type: 'object',
    properties: { [ELICITATION_REPLY_KEY]: { enum: actions } },
    required: [ELICITATION_REPLY_KEY],
    additionalProperties: false,
  };
}

/**
 * The resume schema of a call parked on an elicitation: the server's form, or a reply that
 * declines or cancels (nothing else beside it), so the run's update validator refuses anything
 * else before it reaches history.
 */
export function elicitationResumeSchema(requestedSchema: JsonObject): JsonObject {
  return { anyOf: [requestedSchema, replySchema(['decline', 'cancel'])] };
}
