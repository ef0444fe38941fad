/**
 * Batch decisions (docs/batch-decisions.md): many waiting calls decided in one request, each
 * judged on its own by its run. Shared by the runtime, the HTTP API, the SDK and the inbox.
 * Dependency-free and browser-safe.
 */
import type { AppliedDecision } from './run-types.js';

/** Most decisions one batch may carry. */
export const MAX_BATCH_DECISIONS = 100;

/** One call to decide. */
export interface BatchDecision {
  agentId: string;
  runId: string;
  toolCallId: string;
  action: 'approve' | 'decline';
  /** When given, must equal the waiting call's fingerprint (the arguments that were reviewed). */
  fingerprint?: string;
  reason?: string;
}

/** What became of one decision of a batch, in the batch's order. */
export type BatchDecisionResult = Pick<
  BatchDecision,
  'agentId' | 'runId' | 'toolCallId' | 'action'
> &
  (
    | { ok: true; decision: AppliedDecision['decision'] }
    | {
        ok: false;
        /** The code and message the same decision would have got alone, e.g. `NOT_AN_APPROVER`. */
        error: { code: string; message: string };
      }
  );
