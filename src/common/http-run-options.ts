/**
 * What starting a run takes over HTTP (`stream`, `generate`): part of the contract of
 * `http-api.ts`, which re-exports it. Dependency-free and browser-safe.
 */
import type { RequestBudget } from './shared-budget.js';
import type { JsonObject, JsonValue } from './json.js';

/** Run options that can travel over HTTP (functions cannot). */
export interface HttpRunOptions {
  /** `true`/`false`, or the name of a policy registered on the workers. */
  requireToolApproval?: boolean | string;
  /** Deadline, approvers and quorum for the run's gated calls (SPEC §10); they only tighten. */
  approval?: HttpApprovalPolicy;
  /** Replace the agent's rules, even loosening them: needs a token with the `admin` scope. */
  approvalOverride?: boolean;
  maxSteps?: number;
  requestContext?: JsonObject;
  memory?: { thread: string; resource: string };
  runId?: string;
  /**
   * The only tools the run may use, by the names the model sees; it only narrows the agent's
   * tools (docs/run-tools.md). Default: every tool.
   */
  activeTools?: string[];
  /**
   * Limits on the run's tokens and cost, and shared ones (`shared`); they only tighten the
   * agent's (docs/budgets.md).
   */
  budget?: RequestBudget;
}

export interface HttpApprovalPolicy {
  /** ms, or a duration like `'3 days'`. */
  timeout?: string | number;
  onTimeout?: 'decline' | 'approve' | 'fail';
  approvers?: string[];
  quorum?: number;
  separateRequester?: boolean;
}

export interface StreamBody {
  /** A prompt, or AI SDK model messages. */
  messages: string | JsonValue[];
  options?: HttpRunOptions;
}
