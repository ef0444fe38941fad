/**
 * What the `tollgate` CLI's exit status says happened, so scripts can branch without parsing
 * output. The table is printed by `--help` and documented in docs/cli.md.
 */
import type { FinishReason } from '../common/chunks.js';
import type { TollgateErrorCode } from '../common/errors.js';

export const EXIT = {
  /** Done: the command worked and the run (if any) finished. */
  ok: 0,
  /** Anything else went wrong (Temporal unreachable, a crash). */
  error: 1,
  /** Bad command line: unknown command or option, missing argument, --data that is not JSON. */
  usage: 2,
  /** The run waits for a decision (approval or resume data). */
  waiting: 3,
  /** No such run (RUN_NOT_FOUND), or it is not a Tollgate agent run. */
  notFound: 4,
  /** The run refused the decision (fingerprint mismatch, call not pending, bad resume data...). */
  refused: 5,
  /** The run ended in an error. */
  runFailed: 6,
  /**
   * Nothing applied the decision in time: no worker polls the run's task queue
   * (WORKER_UNAVAILABLE), or the run did not confirm within --wait (DECISION_NOT_CONFIRMED).
   * `tollgate doctor`: no worker polls the task queue.
   */
  unavailable: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The error codes a run answers with when it refuses a decision (HTTP would say 409). */
const REFUSALS: ReadonlySet<TollgateErrorCode> = new Set<TollgateErrorCode>([
  'RUN_FINISHED',
  'NO_PENDING_TOOL_CALL',
  'AMBIGUOUS_TOOL_CALL',
  'TOOL_CALL_NOT_PENDING',
  'TOOL_CALL_ALREADY_DECIDED',
  'FINGERPRINT_MISMATCH',
  'WRONG_DECISION_KIND',
  'INVALID_DECISION',
  'INVALID_RESUME_DATA',
  'APPROVAL_EXPIRED',
  'NOT_AN_APPROVER',
  'APPROVER_REQUIRED',
  'DUPLICATE_APPROVER',
  'REQUESTER_CANNOT_APPROVE',
  'DECISION_DEADLINE_PASSED',
  'INVALID_BUDGET_AMOUNT',
  'GRANT_ALREADY_REVOKED',
  'RUN_NOT_MOVABLE',
  'REPLAY_FAILED',
  'VERSION_NOT_RETIRABLE',
  'BUILD_LACKS_AGENT',
]);

const NOT_FOUND = new Set([
  'RUN_NOT_FOUND',
  'AGENT_NOT_FOUND',
  'GRANT_NOT_FOUND',
  'MCP_PIN_NOT_FOUND',
  'DEPLOYMENT_NOT_FOUND',
]);

/** Exit status for a failed command, from the error's code (`USAGE` for the CLI's own). */
export function exitCodeOfError(code: string): ExitCode {
  if (code === 'USAGE' || code === 'INVALID_OPTIONS' || code === 'INVALID_GRANT') return EXIT.usage;
  if (NOT_FOUND.has(code)) return EXIT.notFound;
  if (REFUSALS.has(code as TollgateErrorCode)) return EXIT.refused;
  if (code === 'WORKER_UNAVAILABLE' || code === 'DECISION_NOT_CONFIRMED') return EXIT.unavailable;
  return EXIT.error;
}

/** Exit status once a run's stream has ended. */
export function exitCodeOfFinish(reason: FinishReason): ExitCode {
  if (reason === 'suspended') return EXIT.waiting;
  if (reason === 'error') return EXIT.runFailed;
  return EXIT.ok;
}

/** The table shown by `--help` (and mirrored in docs/cli.md). */
export const EXIT_CODE_HELP = `Exit codes:
  0  done: the run completed, or the decision was applied and the run finished
  1  other errors (Temporal unreachable, unexpected failures)
  2  usage error (unknown command or option, missing argument, --data that is not JSON)
  3  the run waits for a decision (approval or resume data)
  4  not found (RUN_NOT_FOUND: no such run, or not a Tollgate run; GRANT_NOT_FOUND; MCP_PIN_NOT_FOUND;
     DEPLOYMENT_NOT_FOUND)
  5  decision refused (FINGERPRINT_MISMATCH, TOOL_CALL_NOT_PENDING, NOT_AN_APPROVER, ...)
  6  the run failed (finished with an error)
  7  no worker applied the decision in time (WORKER_UNAVAILABLE, DECISION_NOT_CONFIRMED);
     doctor: no worker polls the task queue`;
