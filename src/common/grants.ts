/**
 * Grants (docs/grants.md) as pure functions: checking what a caller asks for, the registry's
 * state changes, and whether a grant covers a call. Workflow-safe: the registry workflow, the
 * gate's lookup activity, the client and the server all use these.
 */
import { parseDuration } from './approval-rules.js';
import { TollgateError } from './errors.js';
import { toolCallFingerprint } from './fingerprint.js';
import type { DecidedBy } from './decision-types.js';
import type {
  EndedGrant,
  Grant,
  GrantInput,
  GrantRequest,
  GrantRevocation,
  GrantsState,
} from './grant-types.js';
import { canonicalJson } from './json.js';
import { idProblem } from './limits.js';
import { serverGrantToolName } from './mcp-server-grant.js';

/** Longest a grant may last, ms: 90 days. */
export const MAX_GRANT_MS = 90 * 86_400_000;
/**
 * Live grants a registry holds at most; one more is refused. With the size limits below, the
 * registry's state (kept whole in its memo) stays well under Temporal's 2 MB payload limit.
 */
export const MAX_LIVE_GRANTS = 250;
/** Largest canonical JSON of a grant's `args`, and longest `reason`, in characters. */
export const MAX_GRANT_ARGS_CHARS = 2048;
const MAX_REASON_CHARS = 500;
/** Ended grants remembered (so revoking twice is told apart from an unknown id). */
const REMEMBERED_ENDED = 500;

export const EMPTY_GRANTS: GrantsState = { grants: [], ended: [] };

/**
 * Checks a caller's grant and turns it into the registry's request.
 *
 * @throws TollgateError `INVALID_GRANT` naming the bad field.
 */
export function grantRequestOf(input: GrantInput, grantedBy: DecidedBy | undefined): GrantRequest {
  if (input === null || typeof input !== 'object') throw invalid('A grant must be an object.');
  const { agentId, resourceId, threadId, args, definition, reason } = input;
  const toolName = toolNameOf(input);
  const ids = { agentId, toolName, resourceId, ...(threadId !== undefined ? { threadId } : {}) };
  for (const [field, value] of Object.entries(ids)) {
    const problem = idProblem(value, `grant.${field}`);
    if (problem) throw invalid(problem);
  }
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON_CHARS)) {
    throw invalid(`grant.reason must be a string of at most ${MAX_REASON_CHARS} characters.`);
  }
  if (definition !== undefined && (typeof definition !== 'string' || definition.length > 128)) {
    throw invalid(
      'grant.definition must be a tool definition fingerprint (at most 128 characters).',
    );
  }
  if (args !== undefined && canonicalJson(args).length > MAX_GRANT_ARGS_CHARS) {
    throw invalid(
      `grant.args is larger than ${MAX_GRANT_ARGS_CHARS} characters of JSON; grant the tool without arguments, or for smaller ones.`,
    );
  }
  const durationMs = grantDuration(input.for);
  return {
    agentId,
    toolName,
    resourceId,
    ...(threadId !== undefined ? { threadId } : {}),
    ...(args !== undefined ? { args, fingerprint: toolCallFingerprint(toolName, args) } : {}),
    ...(definition !== undefined ? { definition } : {}),
    ...(grantedBy ? { grantedBy } : {}),
    ...(reason !== undefined ? { reason } : {}),
    durationMs,
  };
}

/** The grant's tool name: its `toolName`, or its MCP server's (`serverGrantToolName`). */
function toolNameOf(input: GrantInput): string {
  const { toolName, mcpServer, args, definition } = input;
  if (mcpServer === undefined) return toolName as string;
  if (toolName !== undefined) {
    throw invalid(
      `A grant names toolName or mcpServer, not both ("${toolName}", "${String(mcpServer)}").`,
    );
  }
  const problem = idProblem(mcpServer, 'grant.mcpServer');
  if (problem) throw invalid(problem);
  if (args !== undefined || definition !== undefined) {
    throw invalid(
      "A grant for every tool of an MCP server takes no args or definition: it is bound to the server's stored pins; grant one tool for those.",
    );
  }
  return serverGrantToolName(mcpServer);
}

/** A grant's length in ms. @throws TollgateError `INVALID_GRANT`. */
export function grantDuration(value: unknown): number {
  let ms: number;
  try {
    ms = parseDuration(value as string | number, 'grant.for');
  } catch (error) {
    throw invalid((error as Error).message);
  }
  if (ms > MAX_GRANT_MS) {
    throw invalid(`grant.for may be at most 90 days, not ${JSON.stringify(value)}.`);
  }
  return ms;
}

/** The registry's state with `request` added as `grantId`, at `now` (ms). */
export function withGrant(
  state: GrantsState,
  request: GrantRequest,
  grantId: string,
  now: number,
): { state: GrantsState; grant: Grant } {
  const { durationMs, ...rest } = request;
  const grant: Grant = {
    grantId,
    ...rest,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + durationMs).toISOString(),
  };
  return { state: { ...state, grants: [...state.grants, grant] }, grant };
}

/** Why a create update is refused, if it is: a malformed request or a full registry. */
export function createProblem(
  state: GrantsState,
  request: GrantRequest,
  now: number,
): TollgateError | undefined {
  try {
    // Sent by the client after `grantRequestOf`; checked again against raw updates.
    grantRequestOf({ ...request, for: request?.durationMs }, undefined);
  } catch (error) {
    return error as TollgateError;
  }
  if (liveGrants(state, now).length < MAX_LIVE_GRANTS) return undefined;
  return invalid(
    `The registry already holds ${MAX_LIVE_GRANTS} live grants; revoke some before adding more.`,
  );
}

/** Why a revoke is refused, if it is: an unknown, revoked or expired grant. */
export function revokeProblem(
  state: GrantsState,
  grantId: unknown,
  now: number,
): TollgateError | undefined {
  if (typeof grantId !== 'string' || grantId === '') {
    return invalid('grantId must be a non-empty string.');
  }
  const live = state.grants.find((grant) => grant.grantId === grantId);
  if (live && Date.parse(live.expiresAt) > now) return undefined;
  const ended = state.ended.find((grant) => grant.grantId === grantId);
  if (ended?.ended === 'revoked') {
    return new TollgateError(
      'GRANT_ALREADY_REVOKED',
      `Grant ${grantId} was already revoked at ${ended.at}; nothing changed.`,
    );
  }
  if (live || ended) {
    return new TollgateError(
      'GRANT_NOT_FOUND',
      `Grant ${grantId} has expired; there is nothing to revoke.`,
    );
  }
  return unknownGrant(grantId);
}

/** The 404 of an id the caller may not see or that never existed: the same message for both. */
export function unknownGrant(grantId: string): TollgateError {
  return new TollgateError(
    'GRANT_NOT_FOUND',
    `No grant "${grantId}" exists; list grants to find its id.`,
  );
}

/** The registry's state without grant `grantId` (checked by `revokeProblem` first). */
export function withoutGrant(
  state: GrantsState,
  revocation: GrantRevocation,
  now: number,
): { state: GrantsState; grant: Grant } {
  const grant = state.grants.find((g) => g.grantId === revocation.grantId)!;
  const ended: EndedGrant = {
    grantId: grant.grantId,
    agentId: grant.agentId,
    resourceId: grant.resourceId,
    ended: 'revoked',
    at: new Date(now).toISOString(),
    ...(revocation.revokedBy ? { revokedBy: revocation.revokedBy } : {}),
  };
  return {
    state: {
      grants: state.grants.filter((g) => g !== grant),
      ended: [...state.ended, ended].slice(-REMEMBERED_ENDED),
    },
    grant,
  };
}

/** The state with grants that expired by `now` moved to `ended`; the same object if none did. */
export function pruned(state: GrantsState, now: number): GrantsState {
  const expired = state.grants.filter((grant) => Date.parse(grant.expiresAt) <= now);
  if (expired.length === 0) return state;
  const ended = expired.map((grant): EndedGrant => ({
    grantId: grant.grantId,
    agentId: grant.agentId,
    resourceId: grant.resourceId,
    ended: 'expired',
    at: grant.expiresAt,
  }));
  return {
    grants: state.grants.filter((grant) => !expired.includes(grant)),
    ended: [...state.ended, ...ended].slice(-REMEMBERED_ENDED),
  };
}

/** Grants not expired at `now`. */
export function liveGrants(state: GrantsState, now: number): Grant[] {
  return state.grants.filter((grant) => Date.parse(grant.expiresAt) > now);
}

/** When the next live grant expires (ms), if any does. */
export function nextExpiry(state: GrantsState): number | undefined {
  const times = state.grants.map((grant) => Date.parse(grant.expiresAt));
  return times.length > 0 ? Math.min(...times) : undefined;
}

/** The run a gated call belongs to, as far as grants care. */
export interface GrantedRun {
  agentId: string;
  resourceId: string | undefined;
  threadId: string | undefined;
}

/** Whether `grant` covers a call of `toolName` with `fingerprint` in `run` at `now` (ms). */
export function grantCovers(
  grant: Grant,
  run: GrantedRun,
  call: { toolName: string; fingerprint: string; definition?: string | undefined },
  now: number,
): boolean {
  return (
    Date.parse(grant.expiresAt) > now &&
    grant.agentId === run.agentId &&
    run.resourceId !== undefined &&
    grant.resourceId === run.resourceId &&
    (grant.threadId === undefined || grant.threadId === run.threadId) &&
    grant.toolName === call.toolName &&
    (grant.fingerprint === undefined || grant.fingerprint === call.fingerprint) &&
    (grant.definition === undefined || grant.definition === call.definition)
  );
}

function invalid(message: string): TollgateError {
  return new TollgateError('INVALID_GRANT', message);
}
