import type { GrantWithDecision, RunGrantWithDecision } from '../common/grant-types.js';
import { TollgateError } from '../common/errors.js';
import type { JsonObject, JsonValue } from '../common/json.js';
import { idProblem } from '../common/limits.js';
import { activeToolsShapeProblem } from '../common/active-tools.js';
import { requestBudgetProblem, type RequestBudget } from '../common/shared-budget.js';
import type { DecidedBy } from '../common/run-types.js';
import type { ToolApprovalPolicy } from '../definitions/agent.js';
import type { ApprovalPolicy } from '../definitions/approval-policy.js';

/** Options of `stream()` and `generate()` (SPEC §3). */
export interface RunOptions {
  /**
   * Gate every call (`true`), none (`false`), decide per call with a function (evaluated in this
   * process), or name a policy registered on the workers; default: the agent's.
   */
  requireToolApproval?: boolean | ToolApprovalPolicy | string;
  /**
   * Deadline, approvers and quorum for this run's gated calls (reminders live on tools and
   * agents). They only tighten the tool's and agent's rules: approvers narrow (a decider must be
   * in both lists), the larger quorum and the earlier deadline win (which declines, never
   * approves). `requireToolApproval` adds gates to the agent's default (docs/governance.md).
   */
  approval?: Omit<ApprovalPolicy, 'remind' | 'escalate'>;
  /**
   * `true`: this request's `requireToolApproval` and `approval` replace the agent's field by
   * field, so they may loosen its gates (`false`, `onTimeout: 'approve'`, other approvers).
   * Needs a handle without a scope or with `admin` (over HTTP, an `admin` token), else
   * `APPROVAL_LOOSENING_FORBIDDEN`; recorded in the run's input and on every gate of its audit
   * trail. Default `false`. Tools' own `requireApproval: true` gates either way.
   */
  approvalOverride?: boolean;
  /** Model steps before the run stops; default: the agent's (10). */
  maxSteps?: number;
  /** JSON data handed to tools and policies as `requestContext`. */
  requestContext?: JsonObject;
  /**
   * Keeps the conversation of a thread across runs (Temporal is the only store): the run starts
   * from the thread's last messages and adds its own when it completes. Also labels the run
   * (search attributes `TollgateThreadId`, `TollgateResourceId`).
   */
  memory?: { thread: string; resource: string };
  /**
   * With `memory`: this message resumes the thread's call parked by `suspend()`, with resume data
   * the model extracts from it. Default: the agent's. Never grants an approval.
   */
  autoResumeSuspendedTools?: boolean;
  /** The run's id (the workflow id); default: a new UUID. Must not name an existing run. */
  runId?: string;
  /**
   * The only tools this run may use, by the names the model sees (keys of the agent's `tools`,
   * `agent-<key>` for sub-agents), as the AI SDK's `activeTools`. It only narrows: the model is
   * offered these alone, a call of any other tool is refused (`TOOL_NOT_ALLOWED`) before any
   * approval policy runs, and a name the agent does not have is `INVALID_OPTIONS` at start.
   * Recorded in the run's input and its audit trail. Default: every tool of the agent.
   */
  activeTools?: string[];
  /**
   * Limits on this run's tokens and cost (docs/budgets.md). They only tighten the agent's
   * `budget`: the lower limit and warning win, and a cost the agent declares keeps its prices.
   * `shared` tightens the agent's shared budgets of the same `per` (its period and prices kept)
   * or adds one for this request's runs (docs/budgets.md "A request's shared budgets").
   * Default: the agent's (none).
   */
  budget?: RequestBudget;
}

/** What every decision call takes (SPEC §3, §8). */
export interface DecisionOptions {
  runId: string;
  /** Approve with edited arguments (checked against the tool's input schema; quorum 1 only). */
  args?: JsonValue;
  /**
   * Approving a budget approval: raise the run's limit by this much (tokens, or the price table's
   * currency); required there, a positive number, else `INVALID_BUDGET_AMOUNT` (docs/budgets.md).
   */
  amount?: number;
  /** Default: the run's most recently requested pending call. */
  toolCallId?: string;
  /** When given, must equal the pending call's fingerprint. */
  fingerprint?: string;
  reason?: string;
  decidedBy?: DecidedBy;
  /**
   * How long to wait for the run to confirm the decision, ms or `'30 seconds'`; the decision's
   * deadline is now + wait + `decisions.deadlineMargin`. Default: `decisions.wait` (20 s).
   */
  wait?: number | string;
}

/** Options of `approveToolCall`. */
export interface ApproveOptions extends DecisionOptions {
  /**
   * Also allow the call's tool from now on, on the run's thread or resource, for `for`
   * (docs/grants.md). Checked before the decision is sent: a bad grant refuses both.
   */
  grant?: GrantWithDecision | RunGrantWithDecision;
}

export type ResumeOptions = Omit<DecisionOptions, 'fingerprint' | 'reason'>;

export type Messages = string | JsonValue[];

function invalid(message: string): TollgateError {
  return new TollgateError('INVALID_OPTIONS', message);
}

/** Refuses `value` as the id `field` with `INVALID_OPTIONS` unless `common/limits.ts` accepts it. */
export function checkId(value: unknown, field: string): void {
  const problem = idProblem(value, field);
  if (problem) throw invalid(problem);
}

/** `checkId` for an id that may be left out. */
function checkOptionalId(value: unknown, field: string): void {
  if (value !== undefined) checkId(value, field);
}

/** Checks a run's inputs and turns a string prompt into one user message. */
export function checkRunInput(messages: unknown, options: RunOptions | undefined): JsonValue[] {
  const opts = options ?? {};
  if (typeof opts !== 'object') throw invalid(`Run options must be an object, not ${typeof opts}.`);
  const { requireToolApproval: policy, maxSteps, requestContext, memory, runId } = opts;
  if (policy !== undefined && !['boolean', 'function', 'string'].includes(typeof policy)) {
    throw invalid(
      `requireToolApproval must be a boolean, a function or a policy name, not ${typeof policy}.`,
    );
  }
  if (typeof policy === 'string' && policy.trim() === '')
    throw invalid('requireToolApproval names no policy.');
  if (opts.approvalOverride !== undefined && typeof opts.approvalOverride !== 'boolean')
    throw invalid(`approvalOverride must be true or false, not ${typeof opts.approvalOverride}.`);
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < 1)) {
    throw invalid(`maxSteps must be a whole number of at least 1, not ${String(maxSteps)}.`);
  }
  if (
    requestContext !== undefined &&
    (typeof requestContext !== 'object' || requestContext === null || Array.isArray(requestContext))
  ) {
    throw invalid('requestContext must be a JSON object.');
  }
  if (memory !== undefined) {
    if (typeof memory !== 'object' || memory === null) {
      throw invalid('memory must be { thread: string, resource: string } with both non-empty.');
    }
    checkId(memory.thread, 'memory.thread');
    checkId(memory.resource, 'memory.resource');
  }
  if (opts.autoResumeSuspendedTools === true && !memory) {
    throw invalid(
      'autoResumeSuspendedTools needs memory: { thread, resource } to find the suspended call.',
    );
  }
  if (opts.activeTools !== undefined) {
    const problem = activeToolsShapeProblem(opts.activeTools);
    if (problem) throw invalid(problem);
  }
  const budgetError =
    opts.budget === undefined ? undefined : requestBudgetProblem(opts.budget, 'budget');
  if (budgetError) throw invalid(budgetError);
  if (runId !== undefined && (typeof runId !== 'string' || !/^[\w.:-]{1,200}$/.test(runId))) {
    throw invalid(
      `runId ${JSON.stringify(runId)} is invalid: use 1-200 letters, digits, '_', '.', ':' or '-'.`,
    );
  }
  if (typeof messages === 'string') {
    if (messages.trim() === '') throw invalid('The prompt is empty.');
    return [{ role: 'user', content: messages }];
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalid('messages must be a non-empty string or a non-empty array of model messages.');
  }
  messages.forEach((message, index) => {
    const role = (message as { role?: unknown } | null)?.role;
    if (!['system', 'user', 'assistant', 'tool'].includes(role as string)) {
      throw invalid(
        `messages[${index}].role must be system, user, assistant or tool, not ${JSON.stringify(role)}.`,
      );
    }
  });
  return messages as JsonValue[];
}

export function checkDecision(options: unknown, call: string): DecisionOptions {
  const opts = options as DecisionOptions | undefined;
  if (typeof opts?.runId !== 'string' || opts.runId === '') {
    throw invalid(`${call} needs { runId }: the id of the run that waits.`);
  }
  checkId(opts.runId, 'runId');
  checkOptionalId(opts.toolCallId, 'toolCallId');
  checkOptionalId(opts.fingerprint, 'fingerprint');
  return opts;
}

/** Checks `observe`'s options; `offset` defaults to 0. */
export function checkObserve(options: { runId: string; offset?: number }): {
  runId: string;
  offset: number;
} {
  const offset = options?.offset ?? 0;
  if (typeof options?.runId !== 'string' || !Number.isInteger(offset) || offset < 0) {
    throw invalid('observe needs { runId: string, offset?: a whole number ≥ 0 }.');
  }
  checkId(options.runId, 'runId');
  return { runId: options.runId, offset };
}
