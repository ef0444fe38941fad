import type { Context } from 'hono';
import type { DecidedBy } from '../../common/run-types.js';
import type { Scope } from '../../common/scope.js';
import { idProblem } from '../../common/limits.js';
import type { ServerEnv } from '../auth.js';
import { HttpError } from '../errors.js';
import { shown } from './approval-id.js';

/** Who posts to a chat, as the server's auth established it (never the request body). */
export interface ChatCaller {
  /** Recorded as `decidedBy` on every decision the chat makes. */
  identity: DecidedBy;
  /** What the caller may do; undefined: everything. */
  scope?: Scope;
  /** The memory resource (tenant or user) of the caller's chats. Default: `identity.id`. */
  resource?: string;
}

/** The caller of a Tollgate server route: the token's identity and scope. */
export function callerOf(c: Context<ServerEnv>): ChatCaller {
  const scope = c.get('scope');
  return { identity: c.get('identity'), ...(scope ? { scope } : {}) };
}

/** An id a chat keeps (thread, run, message): empty, too long or with control characters is 400. */
export function requireId(value: string, label: string): void {
  const problem = idProblem(value, `The ${label} ${shown(value)}`);
  if (problem) throw new HttpError(400, 'BAD_REQUEST', problem);
}
