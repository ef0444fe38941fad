/**
 * JSON-safe shapes of grants (docs/grants.md): standing approvals of one agent's tool on one
 * memory thread or resource, for a while, kept by the grants registry workflow of a task queue.
 */
import type { DecidedBy } from './decision-types.js';
import type { JsonValue } from './json.js';

/** What a caller asks for: "always allow this tool here for this long". */
export interface GrantInput {
  agentId: string;
  /**
   * The tool's name as the model sees it (its key), as in policies and the audit. Give this or
   * `mcpServer`.
   */
  toolName?: string;
  /**
   * Every tool of this MCP server (its `mcpTools({ name })`) that the agent has, instead of one
   * `toolName`: bound to the server's stored pins as they are now (docs/grants.md). Not with
   * `args` or `definition`.
   */
  mcpServer?: string;
  /** The resource (tenant, `memory.resource`) whose runs the grant covers. */
  resourceId: string;
  /** Only runs of this memory thread of the resource; absent: every thread of the resource. */
  threadId?: string;
  /** How long the grant lasts: ms, or a duration such as `'4h'` or `'2 days'`. At most 90 days. */
  for: string | number;
  /** Only calls with exactly these arguments (compared by fingerprint, SPEC §4). */
  args?: JsonValue;
  /**
   * Only while the tool's definition is this one (an MCP tool's `tools.<key>.mcp.fingerprint`);
   * a grant given with an approval is bound to the definition its approver was shown.
   */
  definition?: string;
  reason?: string;
}

/** A grant as the registry keeps it and listings show it. */
export interface Grant {
  grantId: string;
  agentId: string;
  resourceId: string;
  threadId?: string;
  /**
   * The tool's key, or `mcp:<server>/*` for a grant of every tool of an MCP server (whose
   * `definition` is then the digest of the server's stored pins).
   */
  toolName: string;
  /** Fingerprint of `{ args, toolName }` when the grant covers one set of arguments only. */
  fingerprint?: string;
  args?: JsonValue;
  /** The tool definition the grant was given for; absent: any definition the worker pinned. */
  definition?: string;
  /** ISO-8601 times. */
  createdAt: string;
  expiresAt: string;
  /** Who gave it: a grant stands in only for decisions this identity could make itself. */
  grantedBy?: DecidedBy;
  reason?: string;
}

/** The registry's create update: a checked grant without what the registry assigns. */
export type GrantRequest = Omit<Grant, 'grantId' | 'createdAt' | 'expiresAt'> & {
  durationMs: number;
};

/** A grant that no longer applies, remembered so a second revoke is told apart from a typo. */
export interface EndedGrant {
  grantId: string;
  agentId: string;
  resourceId: string;
  ended: 'revoked' | 'expired';
  at: string;
  revokedBy?: DecidedBy;
}

/** What the registry holds (its workflow state, mirrored in its memo). */
export interface GrantsState {
  grants: Grant[];
  ended: EndedGrant[];
}

/** The registry's revoke update. */
export interface GrantRevocation {
  grantId: string;
  revokedBy?: DecidedBy;
}

/** What the gate asks the registry about one step's gated calls. */
export interface FindGrantsInput {
  taskQueue: string;
  agentId: string;
  resourceId: string;
  threadId?: string;
  toolNames: string[];
}

/**
 * `approve(..., { grant: { scope: 'run' } })`: the tool's later gated calls in this run only run
 * without asking (docs/grants.md "For this run"); kept in the run, no memory thread needed.
 */
export interface RunGrantWithDecision {
  scope: 'run';
}

/** What an approval may grant: a standing grant, or one for this run only. */
export type ApprovalGrant = GrantWithDecision | RunGrantWithDecision;

/** `approve(..., { grant })`: the decision applies and a grant for the call's tool is made. */
export interface GrantWithDecision {
  /** How long: ms or a duration such as `'4h'`. */
  for: string | number;
  /** `'thread'`: the run's memory thread only; `'resource'`: every thread of its resource. */
  scope: 'thread' | 'resource';
  /** Only calls with the approved call's arguments. Default false. */
  matchArgs?: boolean;
  /**
   * Also approve the other waiting calls the new grant covers, in other runs of the thread or
   * resource (docs/grant-release.md), each recorded as `grant-used`. Default true.
   */
  release?: boolean;
}

/** A waiting call a grant released (docs/grant-release.md). */
export interface ReleasedCall {
  runId: string;
  toolCallId: string;
  toolName: string;
}

/** A waiting call the grant covers that its run refused to release, and why. */
export interface RefusedRelease extends ReleasedCall {
  /** The code and message the run (or Temporal) answered, e.g. `NOT_AN_APPROVER`. */
  error: { code: string; message: string };
}

/**
 * What releasing a grant did: the other waiting calls it covers, each approved by its run as
 * `grant-used`, or refused with the reason. Never a silent half: every covered call is in one
 * list. `skipped` counts covered runs beyond the release's limit, left waiting.
 */
export interface GrantRelease {
  grantId: string;
  released: ReleasedCall[];
  refused: RefusedRelease[];
  /** Waiting runs the listing found beyond the limit of one release; release again for them. */
  skipped: number;
  /** Waiting runs whose worker did not say on what they wait in time: nothing was sent to them. */
  unanswered: string[];
}

/** POST `/api/grants/:grantId/release` (`decide`), and a grant's release in `…Generate`. */
export interface GrantReleaseResponse {
  release: GrantRelease;
}

/**
 * A grant for one run only (docs/grants.md "For this run"): given with an approval
 * (`DecisionInput.runGrant`), kept in the run's memory and carried across its continue-as-new.
 */
export interface RunGrant {
  /** `run:<toolCallId>`: the approved call that gave it, in the `grant-used` entries it causes. */
  grantId: string;
  toolName: string;
  /** The definition the approver was shown; the grant covers calls the gate sees so only. */
  definition?: string;
  grantedBy?: DecidedBy;
  /** ISO-8601. */
  at: string;
}
