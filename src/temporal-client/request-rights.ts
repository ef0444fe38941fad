import { looseningsOf, type ApprovalOverride } from '../common/approval-rules.js';
import { TollgateError } from '../common/errors.js';
import type { DecidedBy, RunInput } from '../common/run-types.js';
import { mayAct, type Scope } from '../common/scope.js';
import type { RunOptions } from './run-options.js';

/** Who starts runs through a handle: its scope and, over HTTP, the token's identity. */
export interface RunStarter {
  scope: Scope | undefined;
  identity?: DecidedBy | undefined;
}

/**
 * What a request may do to the agent's gates and who requested it, judged before anything
 * starts (issue 24). A request only tightens; replacing the agent's rules (`approvalOverride`,
 * which any loosening needs) is for a caller that may act as `admin` (a handle without a scope
 * is the agent owner's own code). Over HTTP the requester is the token's identity; naming
 * someone else in `requestContext.requester` also needs `admin`.
 */
export function requestRights(
  opts: RunOptions,
  starter: RunStarter,
): Pick<RunInput, 'requester' | 'approvalOverride'> {
  const isAdmin = mayAct(starter.scope, 'admin');
  const loosenings = looseningsOf(opts.requireToolApproval, opts.approval);
  if (!isAdmin && (opts.approvalOverride === true || loosenings.length > 0)) {
    const field = loosenings[0] ?? 'approvalOverride';
    throw new TollgateError(
      'APPROVAL_LOOSENING_FORBIDDEN',
      `${field} would loosen the agent's approval rules, which only a caller with the admin scope may do; leave it out, or tighten instead (more approvers, a shorter timeout).`,
    );
  }
  if (loosenings.length > 0 && opts.approvalOverride !== true) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `${loosenings[0]} would loosen the agent's approval rules; pass approvalOverride: true to replace them on purpose (recorded in the run's audit trail).`,
    );
  }
  const by = starter.identity?.id;
  return {
    ...requesterOf(opts, by, isAdmin),
    ...(opts.approvalOverride === true
      ? { approvalOverride: { fields: overridden(opts), ...(by !== undefined ? { by } : {}) } }
      : {}),
  };
}

function requesterOf(
  opts: RunOptions,
  identity: string | undefined,
  mayActForOthers: boolean,
): { requester?: string } {
  const named = opts.requestContext?.requester;
  if (identity === undefined) return typeof named === 'string' ? { requester: named } : {};
  if (named !== undefined && named !== identity && !mayActForOthers) {
    throw new TollgateError(
      'FORBIDDEN',
      `requestContext.requester ${JSON.stringify(named)} is not this caller ("${identity}"); only a caller with the admin scope may start runs for someone else, so leave it out.`,
    );
  }
  return { requester: typeof named === 'string' ? named : identity };
}

/** The request's fields an override replaces the agent's with, as the run options name them. */
function overridden(opts: RunOptions): ApprovalOverride['fields'] {
  const approval = Object.entries(opts.approval ?? {})
    .filter(([, value]) => value !== undefined)
    .map(([field]) => `approval.${field}`);
  return [...(opts.requireToolApproval !== undefined ? ['requireToolApproval'] : []), ...approval];
}
