/**
 * The one error class users see. `code` is stable and machine-readable; `message` is one
 * sentence naming the bad value and the fix. Workflow-safe: no Node imports.
 */
export const TOLLGATE_ERROR_CODES = [
  'AGENT_NOT_FOUND',
  'RUN_NOT_FOUND',
  'RUN_FINISHED',
  'NO_PENDING_TOOL_CALL',
  'AMBIGUOUS_TOOL_CALL',
  'AUTO_RESUME_DISABLED',
  'APPROVAL_EXPIRED',
  'NOT_AN_APPROVER',
  'APPROVER_REQUIRED',
  'DUPLICATE_APPROVER',
  'REQUESTER_CANNOT_APPROVE',
  // A request that would loosen the agent's gates, from a caller that may not (issue 24).
  'APPROVAL_LOOSENING_FORBIDDEN',
  'TOOL_CALL_NOT_PENDING',
  'TOOL_CALL_ALREADY_DECIDED',
  'FINGERPRINT_MISMATCH',
  'WRONG_DECISION_KIND',
  'INVALID_DECISION',
  'INVALID_RESUME_DATA',
  'INVALID_OPTIONS',
  'INVALID_TOOL',
  'INVALID_AGENT',
  'TEMPORAL_CLI_UNAVAILABLE',
  'TEMPORAL_SERVER_START_FAILED',
  'SHUT_DOWN',
  'TEMPORAL_UNAVAILABLE',
  'NAMESPACE_NOT_FOUND',
  'WORKER_STOPPED',
  'TEMPORAL_SDK_UNSUPPORTED',
  'PAYLOAD_TOO_LARGE',
  'MODEL_REQUEST_REJECTED',
  'MODEL_UNAVAILABLE',
  'FORBIDDEN',
  'WORKER_UNAVAILABLE',
  'DECISION_NOT_CONFIRMED',
  'DECISION_DEADLINE_PASSED',
  'THREAD_APPEND_TOO_LARGE',
  // Tool attempts (issue 25.3): an attempt that ended unseen after execute started is not repeated.
  'TOOL_ATTEMPT_LOST',
  // MCP tools (issue 17.1): the server, its answers and its definitions.
  'MCP_CONNECTION_FAILED',
  'MCP_INVALID_RESPONSE',
  'MCP_SERVER_CLOSED',
  'MCP_TOOL_ERROR',
  'MCP_TOOL_DRIFT',
  'MCP_PIN_NOT_FOUND',
  'MCP_TOOL_NOT_FOUND',
  'MCP_TOOL_TIMEOUT',
  'MCP_TOOL_LIST_LIMIT',
  // The server needs an OAuth authorization that the worker's provider has no tokens for.
  'MCP_AUTH_REQUIRED',
  // An MCP callback URL whose call waits on another question now (docs/mcp.md "URL mode").
  'MCP_ELICITATION_NOT_WAITING',
  // Chat channels and signed decision links (issue 17.2).
  'LINK_INVALID',
  'LINK_EXPIRED',
  // Too many refused requests from one client address (issue 25.1): answered 429 with Retry-After.
  'RATE_LIMITED',
  'CHANNEL_DELIVERY_FAILED',
  // Slack buttons (issue 29.3, docs/slack.md): requests to /slack/actions, and their clickers.
  'SLACK_SIGNATURE_INVALID',
  'SLACK_REQUEST_STALE',
  'SLACK_REQUEST_REPLAYED',
  'SLACK_USER_UNMAPPED',
  // Outcomes of runs closed from outside Tollgate, carried by a stream's final `error` chunk.
  'RUN_TERMINATED',
  'RUN_TIMED_OUT',
  'RUN_CANCELLED',
  'RUN_FAILED',
  // Long runs (issue 13.3): a step that cannot fit in one Temporal history.
  'RUN_HISTORY_TOO_LARGE',
  // Conversation compaction (issue 13.3): a `conversation.compact` hook returned an unusable result.
  'INVALID_COMPACTION',
  // The chat UI bridge (src/server/chat): an approval id that names no call of the chat.
  'INVALID_APPROVAL_ID',
  // Grants (issue 17.4, docs/grants.md).
  'INVALID_GRANT',
  'GRANT_NOT_FOUND',
  'GRANT_ALREADY_REVOKED',
  // Why a call did not run as asked, carried by its `tool-error` or `tool-result` chunk (issue 24.5).
  'TOOL_NOT_FOUND',
  // A call of a tool outside the run's `activeTools` (issue 28.6): refused before any policy.
  'TOOL_NOT_ALLOWED',
  // Budgets (issue 28.1, docs/budgets.md): a budget approval approved without a positive amount.
  'INVALID_BUDGET_AMOUNT',
  'INVALID_TOOL_INPUT',
  'INVALID_TOOL_OUTPUT',
  'TOOL_FAILED',
  'TOOL_TIMED_OUT',
  'TOOL_CALL_DECLINED',
  'SUB_AGENT_FAILED',
  // Worker Deployments (issue 26, docs/deploying.md).
  'DEPLOYMENT_NOT_FOUND',
  'VERSION_NOT_RETIRABLE',
  'RUN_NOT_MOVABLE',
  'REPLAY_FAILED',
  'BUILD_LACKS_AGENT',
  // Forks (issue 28.7, docs/fork.md).
  'INVALID_FORK_STEP',
  // A2A (issue 29.2, docs/a2a.md): an agent's approval its rules do not allow; a reply the task
  // cannot take; a remote A2A task that failed, was rejected or asks for what a tool cannot give.
  'AGENT_MAY_NOT_APPROVE',
  'INVALID_A2A_MESSAGE',
  'A2A_TASK_FAILED',
] as const;

export type TollgateErrorCode = (typeof TOLLGATE_ERROR_CODES)[number];

/** Failure type prefix used when a Tollgate error crosses Temporal as an `ApplicationFailure`. */
export const FAILURE_TYPE_PREFIX = 'tollgate.';

export class TollgateError extends Error {
  override readonly name = 'TollgateError';

  constructor(
    readonly code: TollgateErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The `ApplicationFailure` type this error travels under, e.g. `tollgate.FINGERPRINT_MISMATCH`. */
  get failureType(): string {
    return FAILURE_TYPE_PREFIX + this.code;
  }

  static isCode(value: unknown): value is TollgateErrorCode {
    return typeof value === 'string' && (TOLLGATE_ERROR_CODES as readonly string[]).includes(value);
  }

  /** The code carried by a failure type such as `tollgate.RUN_FINISHED`, if it is one. */
  static codeOfFailureType(type: string | undefined | null): TollgateErrorCode | undefined {
    if (!type?.startsWith(FAILURE_TYPE_PREFIX)) return undefined;
    const code = type.slice(FAILURE_TYPE_PREFIX.length);
    return TollgateError.isCode(code) ? code : undefined;
  }
}

export function isTollgateError(error: unknown, code?: TollgateErrorCode): error is TollgateError {
  return error instanceof TollgateError && (code === undefined || error.code === code);
}
