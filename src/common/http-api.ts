/**
 * The HTTP contract between the Tollgate server and its clients (the `tollgate/client` SDK, the
 * approval inbox, curl), dependency-free and browser-safe: paths, bodies and the error shape of
 * the routes under `/api`. Streaming routes answer with Server-Sent Events.
 */
import type { AgentListing } from './directory-types.js';
import type { JsonValue } from './json.js';
import type { AuditEntry, HandOffInput, PendingToolCall, SuspendedRun } from './run-types.js';
import type { BatchDecision, BatchDecisionResult } from './batch-decisions.js';
import type { ApprovalGrant, Grant, GrantInput } from './grant-types.js';
import type { MovedRun } from './deployment-types.js';
export type { ForkRequest as ForkBody, ForksResponse } from './fork-types.js';

export const API_PREFIX = '/api';

/** Routes of one agent, relative to `/api/agents/:agentId`. POST unless noted. */
export const AGENT_ROUTES = {
  /** SSE. Body: `StreamBody`. */
  stream: '/stream',
  /** JSON `AgentOutput`. Body: `StreamBody`. */
  generate: '/generate',
  /** SSE. Body: `ApproveBody`. */
  approveToolCall: '/approve-tool-call',
  /** SSE. Body: `DeclineBody`. */
  declineToolCall: '/decline-tool-call',
  /** JSON `AgentOutput`. Body: `ApproveBody`. */
  approveToolCallGenerate: '/approve-tool-call-generate',
  /** JSON `AgentOutput`. Body: `DeclineBody`. */
  declineToolCallGenerate: '/decline-tool-call-generate',
  /** SSE. Body: `ResumeBody`. */
  resumeStream: '/resume-stream',
  /** JSON `AgentOutput`. Body: `ResumeBody`. */
  resumeGenerate: '/resume-generate',
  /** JSON `HandedOff`. Body: `HandOffBody`. In the token's name, `decide` (docs/hand-off.md). */
  handOffToolCall: '/hand-off-tool-call',
  /** JSON `{ accepted: true, runId, toolCallId }`. Body: `SendToolApprovalBody`. */
  sendToolApproval: '/send-tool-approval',
  /** SSE from `offset`. Body: `ObserveBody`. */
  observe: '/observe',
  /** GET, JSON `{ runs, total }`. Query: threadId, resourceId, fromDate, toDate (ISO), perPage, page. */
  suspendedRuns: '/suspended-runs',
  /** GET, JSON `PendingToolCallsResponse`. Query: runId. The calls one run waits on. */
  pendingToolCalls: '/pending-tool-calls',
  /** GET, JSON `AuditTrailResponse`. Query: runId. The run's audit trail (SPEC §10). */
  audit: '/audit',
  /** JSON `MoveRunResponse`. Body: `MoveRunBody`. Needs `admin` (docs/deploying.md). */
  moveRun: '/move-run',
  /** SSE of the new run. Body: `ForkRequest` (docs/fork.md). Needs `start`, and `read` of the run. */
  fork: '/fork',
  /** GET, JSON `ForksResponse`. Query: runId. The run's forks the token may see. */
  forks: '/forks',
} as const;

export type AgentRouteName = keyof typeof AGENT_ROUTES;

/** The full path of an agent route, e.g. `/api/agents/ops-agent/stream`. */
export function agentPath(agentId: string, route: AgentRouteName): string {
  return `${API_PREFIX}/agents/${encodeURIComponent(agentId)}${AGENT_ROUTES[route]}`;
}

/** GET `/api/agents`: the agent directory of the server's task queue, JSON `AgentsResponse`. */
export const AGENTS_ROUTE = '/agents';
/**
 * POST `/api/decisions`: batch decisions, body `DecisionsBody`, JSON `DecisionsResponse` (200
 * whatever became of each decision; 400 only for a malformed body).
 */
export const DECISIONS_ROUTE = '/decisions';
/** GET `/api/approvals`: pending calls across agents, JSON `ApprovalsResponse`. */
export const APPROVALS_ROUTE = '/approvals';
/**
 * Grants (docs/grants.md). GET `/api/grants`: the live grants the token may see (`GrantsQuery`,
 * `GrantsResponse`). POST `GrantBody` → `GrantResponse` (201), in the token's name. DELETE
 * `/api/grants/:grantId` revokes it; POST `…/:grantId/release` approves the calls it covers.
 */
export const GRANTS_ROUTE = '/grants';

/** The path of one grant, e.g. `/api/grants/grant-1`. */
export function grantPath(grantId: string): string {
  return `${API_PREFIX}${GRANTS_ROUTE}/${encodeURIComponent(grantId)}`;
}

/** POST `/api/grants`. */
export type GrantBody = GrantInput;

/** GET `/api/grants` filters; each left out matches every grant. */
export interface GrantsQuery {
  agentId?: string;
  resourceId?: string;
  threadId?: string;
  toolName?: string;
}

export type GrantsResponse = { grants: Grant[] };
export type GrantResponse = { grant: Grant };

/**
 * GET `/api/health`: no auth, JSON `HealthResponse`; 503 when Temporal is down. No worker on the
 * task queue is reported, not failed: decisions answer `WORKER_UNAVAILABLE` (503) themselves.
 */
export const HEALTH_ROUTE = '/health';

export type { HttpApprovalPolicy, HttpRunOptions, StreamBody } from './http-run-options.js';

/** `decidedBy` never comes from the body: the server takes it from the caller's token. */
export interface ApproveBody {
  runId: string;
  toolCallId?: string;
  fingerprint?: string;
  reason?: string;
  /** Approve with edited arguments, checked against the tool's input schema. */
  args?: JsonValue;
  /** A budget approval's raise of the run's limit: required there, positive (docs/budgets.md). */
  amount?: number;
  /** Also grant the call's tool, in the token's name, or `{ scope: 'run' }` (docs/grants.md). */
  grant?: ApprovalGrant;
}

export interface DeclineBody {
  runId: string;
  toolCallId?: string;
  reason?: string;
}

export type HandOffBody = { runId: string } & Omit<
  HandOffInput,
  'decidedBy' | 'agentId' | 'deadline'
>;

export interface ResumeBody {
  runId: string;
  toolCallId?: string;
  resumeData: JsonValue;
}

/** Find the call that waits in a conversation, then decide it. */
export interface SendToolApprovalBody {
  threadId: string;
  resourceId: string;
  /** Needed when several calls of the thread wait. */
  toolCallId?: string;
  /** For an approval gate: approve or decline. For a suspended call: `true` resumes it. */
  approved: boolean;
  /** Resume data, for a call parked by `suspend()`. */
  resumeData?: JsonValue;
  reason?: string;
}

/** Body of POST `/api/decisions`; every decision is made in the token's name. */
export interface DecisionsBody {
  /** 1 to 100 decisions (`MAX_BATCH_DECISIONS`). */
  decisions: BatchDecision[];
}

export interface DecisionsResponse {
  /** One per decision, in the body's order. */
  results: BatchDecisionResult[];
}

/** Moves a parked run to another build (docs/deploying.md), in the token's name, never the body's. */
export interface MoveRunBody {
  runId: string;
  /** Build id in the run's deployment; default: its current build. */
  to?: string;
  /** Kept in the run's audit trail. */
  reason?: string;
}

/** The run, and the builds it left and went to. */
export type MoveRunResponse = MovedRun;
export type ObserveBody = { runId: string; offset?: number };

/** One pending call in the approvals inbox. */
export interface PendingApproval extends PendingToolCall {
  agentId: string;
  runId: string;
  threadId?: string;
  resourceId?: string;
}

/** Query of GET `/api/approvals`; paging counts waiting runs, like `listSuspendedRuns`. */
export interface ApprovalsQuery {
  agentId?: string;
  threadId?: string;
  resourceId?: string;
  /** Runs per page, 1-1000. Default 20. */
  perPage?: number;
  /** From 0. Default 0. */
  page?: number;
}

export interface ApprovalsResponse {
  approvals: PendingApproval[];
  /** Waiting runs that match the filters, on all pages (a run may hold several approvals). */
  total: number;
}

/** One waiting run, as GET `suspended-runs` lists it (SPEC §9). */
export type SuspendedRunBody = SuspendedRun;

export interface SuspendedRunsResponse {
  runs: SuspendedRunBody[];
  total: number;
}

export interface PendingToolCallsResponse {
  toolCalls: PendingToolCall[];
}

export interface SendToolApprovalResponse {
  accepted: true;
  runId: string;
  toolCallId: string;
}

export interface AgentsResponse {
  agents: AgentListing[];
}

export interface HealthResponse {
  /** Temporal answers: the API can serve. */
  ok: boolean;
  temporal: boolean;
  /** Workers polling the server's task queue; absent when Temporal does not answer. */
  workers?: { taskQueue: string; pollers: number };
}

/** Every error answer: `{ error: { code, message } }`, never a stack trace. */
export interface ErrorBody {
  error: {
    /** A `TollgateError` code, or `BAD_REQUEST`, `UNAUTHORIZED`, `FORBIDDEN`, `PAYLOAD_TOO_LARGE`, `UNSUPPORTED_MEDIA_TYPE`, `NOT_FOUND`, `TOKENS_UNAVAILABLE`, `INTERNAL`. */
    code: string;
    message: string;
    /** For `BAD_REQUEST`: the failing field paths, e.g. `["options.maxSteps"]`. */
    fields?: string[];
  };
}

const CONFLICT_CODES: readonly string[] = [
  'MCP_ELICITATION_NOT_WAITING',
  'NO_PENDING_TOOL_CALL',
  'TOOL_CALL_NOT_PENDING',
  'TOOL_CALL_ALREADY_DECIDED',
  'RUN_FINISHED',
  'AMBIGUOUS_TOOL_CALL',
  'WRONG_DECISION_KIND',
  'FINGERPRINT_MISMATCH',
  'APPROVAL_EXPIRED',
  'GRANT_ALREADY_REVOKED',
  'DUPLICATE_APPROVER',
  'AUTO_RESUME_DISABLED',
  'DECISION_DEADLINE_PASSED',
  'RUN_NOT_MOVABLE',
  'REPLAY_FAILED',
  'VERSION_NOT_RETIRABLE',
  'BUILD_LACKS_AGENT',
];

/** Refusals about who decides: the caller is known, but not allowed. */
const FORBIDDEN_CODES: readonly string[] = [
  'NOT_AN_APPROVER',
  'REQUESTER_CANNOT_APPROVE',
  'APPROVER_REQUIRED',
  ...['APPROVAL_LOOSENING_FORBIDDEN', 'AGENT_MAY_NOT_APPROVE'],
];

/**
 * The HTTP status that goes with an `ErrorBody` code: the server answers with it, and the SDK
 * gives it to errors that arrive inside an SSE stream (after the 200 was sent).
 */
export function statusOfErrorCode(code: string): number {
  if (code === 'BAD_REQUEST') return 400;
  if (code === 'UNAUTHORIZED') return 401;
  if (code === 'FORBIDDEN' || code === 'LINK_INVALID' || FORBIDDEN_CODES.includes(code)) return 403;
  if (code === 'NOT_FOUND' || code === 'RUN_NOT_FOUND' || code === 'AGENT_NOT_FOUND') return 404;
  if (code === 'GRANT_NOT_FOUND' || code === 'DEPLOYMENT_NOT_FOUND') return 404;
  if (code === 'PAYLOAD_TOO_LARGE' || code === 'THREAD_APPEND_TOO_LARGE') return 413;
  if (code === 'UNSUPPORTED_MEDIA_TYPE') return 415;
  if (CONFLICT_CODES.includes(code)) return 409;
  if (code.startsWith('INVALID_')) return 422;
  if (code === 'TEMPORAL_UNAVAILABLE' || code === 'NAMESPACE_NOT_FOUND') return 503;
  if (code === 'WORKER_UNAVAILABLE' || code === 'TOKENS_UNAVAILABLE') return 503;
  if (code === 'DECISION_NOT_CONFIRMED') return 504;
  if (code === 'LINK_EXPIRED') return 410;
  if (code === 'RATE_LIMITED') return 429;
  return 500;
}

export * from './sse-framing.js';

/** GET `/api/agents/:agentId/audit?runId=`. */
export interface AuditTrailResponse {
  entries: AuditEntry[];
}
