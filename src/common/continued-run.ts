import type { AuditEntry } from './audit-types.js';
import type { RunGrant } from './grant-types.js';
import type { Usage } from './chunks.js';
import type { JsonValue } from './json.js';
import type { ToolNaming } from './tool-naming.js';

/**
 * When a run's Temporal history is handed over to a new execution (continue-as-new) and when a
 * run fails because one step cannot fit in a history. Sizes are bytes as Temporal counts them
 * (`workflowInfo().historySize`).
 */
export interface HistoryLimits {
  /** Events after which the run continues as new at its next step boundary. */
  continueAfterEvents: number;
  /** History bytes after which the run continues as new at its next step boundary. */
  continueAfterBytes: number;
  /** Events at which a run in the middle of a step fails with `RUN_HISTORY_TOO_LARGE`. */
  failAtEvents: number;
  /** History bytes at which a run in the middle of a step fails with `RUN_HISTORY_TOO_LARGE`. */
  failAtBytes: number;
  /** Largest input carried to the next execution (conversation, audit, ids), bytes. */
  carryMaxBytes: number;
}

/**
 * Defaults well below Temporal's own limits (51,200 events and 50 MB of history terminate a run;
 * 2 MB is the largest payload). Temporal's `continueAsNewSuggested` (by default at 4 MB or 4,000
 * events, lower where the server says so) also starts a new execution.
 */
export const DEFAULT_HISTORY_LIMITS: HistoryLimits = {
  continueAfterEvents: 10_000,
  continueAfterBytes: 10_000_000,
  failAtEvents: 40_000,
  failAtBytes: 40_000_000,
  carryMaxBytes: 1_900_000,
};

/**
 * What one execution of a run hands to the next when it continues as new at a step boundary:
 * nothing waits then, so the conversation, the counters and the ids of decided calls are all the
 * run needs. The conversation itself travels as the next input's `messages`.
 */
export interface ContinuedRun {
  /** Offset of the first chunk the new execution logs: offsets clients hold stay valid. */
  chunkBase: number;
  /** Executions before this one. */
  executions: number;
  /** Model steps taken so far. */
  step: number;
  /** The run's step limit, fixed when it started. */
  maxSteps: number;
  usage: Usage;
  /** Leading messages of `messages` recalled from the memory thread (not appended again). */
  recalled: number;
  /** Tool calls that got a decision, and whose deadline passed: a second decision is refused. */
  decided: string[];
  expired: string[];
  /** The run's audit trail so far. */
  audit: AuditEntry[];
  autoResume: boolean;
  toolNaming: ToolNaming;
  /** Leading messages of `messages` the worker was already sent: the next step sends the rest. */
  knownToWorker: number;
  /** A sub-agent's run: the version of its last report to its parent. */
  parentReports: number;
  /** Compactions of the conversation so far (`conversation.compact`); absent: none. */
  compactions?: number;
  /** A run with a budget (docs/budgets.md): its limits as raised, and what it was warned of. */
  budget?: BudgetCarry;
  /**
   * The run's grants for itself (`DecisionInput.runGrant`), newest last, at most
   * `MAX_CARRIED_RUN_GRANTS`; absent: none (or a run from before they were carried).
   */
  runGrants?: RunGrant[];
}

/**
 * Most run grants one execution hands to the next: the newest of each tool, definition and
 * granter are kept, and of those the newest 20 (a run rarely has more than a few gated tools).
 */
export const MAX_CARRIED_RUN_GRANTS = 20;

/** What a run's budget carries across a continue-as-new. */
export interface BudgetCarry {
  /** The limits now, approvals' raises included. */
  limits: { tokens?: number; cost?: number };
  /** Metrics whose warning was logged. */
  warned: Array<'tokens' | 'cost'>;
  /** Budget approvals asked so far (their ids count on). */
  asks: number;
  /** A run with shared budgets: what approvals raised and which warnings were given. */
  shared?: SharedBudgetCarry;
}

/** What a run's shared budgets carry across a continue-as-new (docs/budgets.md "Shared budgets"). */
export interface SharedBudgetCarry {
  /** Raises approved for this run, by counter and metric. */
  raised: Record<string, number>;
  /** Scopes and metrics whose warning was logged (`<per>/<metric>`). */
  warned: string[];
}

/** Bytes of a value as JSON (UTF-8), close to what Temporal's payload converter stores. */
export function jsonBytes(value: JsonValue | object): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}
