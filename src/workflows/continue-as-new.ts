import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  makeContinueAsNewFunc,
  workflowInfo,
} from '@temporalio/workflow';
import {
  DEFAULT_HISTORY_LIMITS,
  jsonBytes,
  type BudgetCarry,
  type ContinuedRun,
  type HistoryLimits,
} from '../common/continued-run.js';
import { FAILURE_TYPE_PREFIX } from '../common/errors.js';
import type { AgentManifest, RunInput, ToolNaming } from '../common/run-types.js';
import { carriedRunGrants } from './run-grants.js';
import type { RunState } from './run-state.js';
import { isPatched, oneMarkerMemo } from './patch-markers.js';
import { CONTINUE_AS_NEW_PATCH, GRANTS_NOTICES_PATCH } from './patch-ids.js';

/** What the run loop needs to hand its state to the next execution. */
export interface StepBoundary {
  state: RunState;
  input: RunInput;
  manifest: AgentManifest;
  /** Model steps taken so far, over all executions. */
  step: number;
  maxSteps: number;
  /** Leading messages recalled from the memory thread. */
  recalled: number;
  /** Leading messages the worker was already sent. */
  knownToWorker: number;
  /** Compactions of the conversation so far. */
  compactions: number;
  toolNaming: ToolNaming;
  /** A run with a budget: what its next execution goes on with. */
  budget?: BudgetCarry;
}

export function historyLimitsOf(manifest: AgentManifest): HistoryLimits {
  return manifest.history ?? DEFAULT_HISTORY_LIMITS;
}

/**
 * Puts the state a previous execution carried back in place, before anything is logged, so the
 * log's offsets go on where they stopped and decided calls stay decided.
 */
export function restoreRun(state: RunState, continued: ContinuedRun): void {
  state.log.base = continued.chunkBase;
  state.log.previousExecution = workflowInfo().continuedFromExecutionRunId;
  state.usage = continued.usage;
  state.autoResume = continued.autoResume;
  for (const id of continued.decided) state.calls.decided.add(id);
  for (const id of continued.expired) state.calls.expired.add(id);
  state.audit.entries.push(...continued.audit);
  state.runGrants.push(...(continued.runGrants ?? []));
}

/**
 * At a step boundary (the step's tool results are in, the next model step has not started), a
 * run whose history Temporal says is long, or that passed the agent's thresholds, continues as
 * new under the same workflow id. Nothing waits at a boundary; handlers still running (a
 * decision passed down to a sub-agent) are waited for. Returns only when the run goes on here.
 */
export async function continueIfLong(boundary: StepBoundary): Promise<void> {
  const limits = historyLimitsOf(boundary.manifest);
  const info = workflowInfo();
  const long =
    info.continueAsNewSuggested ||
    info.historyLength >= limits.continueAfterEvents ||
    info.historySize >= limits.continueAfterBytes;
  if (!long || !isPatched(CONTINUE_AS_NEW_PATCH)) return;
  // Followers answer with what the log holds and read on from history.
  boundary.state.log.lettingGo = true;
  await condition(allHandlersFinished);
  const { state, input } = boundary;
  // Run grants go on with the run; runs from before let them end here, as they did.
  const runGrants = carriedRunGrants(state.runGrants);
  const carry = runGrants.length > 0 && isPatched(GRANTS_NOTICES_PATCH);
  const continued: ContinuedRun = {
    chunkBase: state.log.nextOffset,
    executions: (input.continued?.executions ?? 0) + 1,
    step: boundary.step,
    maxSteps: boundary.maxSteps,
    usage: state.usage,
    recalled: boundary.recalled,
    decided: [...state.calls.decided],
    expired: [...state.calls.expired],
    audit: state.audit.entries,
    autoResume: state.autoResume,
    toolNaming: boundary.toolNaming,
    parentReports: state.status.parentReports,
    knownToWorker: boundary.knownToWorker,
    ...(boundary.compactions > 0 ? { compactions: boundary.compactions } : {}),
    ...(boundary.budget ? { budget: boundary.budget } : {}),
    ...(carry ? { runGrants } : {}),
  };
  const next: RunInput = { ...input, messages: state.messages, continued };
  const bytes = jsonBytes(next);
  if (bytes > limits.carryMaxBytes) {
    const audit = jsonBytes(state.audit.entries);
    throw tooLarge(
      `Run ${state.runId} cannot continue as new: what it must carry is ${bytes} bytes (its audit trail ${audit} of them, the rest mostly its conversation), over history.carryMaxBytes (${limits.carryMaxBytes}, below Temporal's 2 MB payload limit); give the agent conversation: { compact: keepRecentMessages(...) } (or summarizeOlderMessages), or a lower conversation.compactAboveBytes, to keep long runs' conversations bounded, or start a new run with a shorter conversation.`,
    );
  }
  await makeContinueAsNewFunc<(input: RunInput) => Promise<unknown>>(oneMarkerMemo())(next);
}

/**
 * After a model step, before its tools run: a history already at the agent's failure threshold
 * cannot take the rest of the step, and the run cannot continue as new in the middle of one.
 * Failing here, with a typed error, comes before Temporal terminates the run at its own limit.
 */
export function checkStepFits(manifest: AgentManifest, state: RunState, step: number): void {
  const limits = historyLimitsOf(manifest);
  const info = workflowInfo();
  if (info.historySize < limits.failAtBytes && info.historyLength < limits.failAtEvents) return;
  if (!isPatched(CONTINUE_AS_NEW_PATCH)) return;
  throw tooLarge(
    `Run ${state.runId}'s history reached ${info.historySize} bytes and ${info.historyLength} events in step ${step}, past history.failAtBytes (${limits.failAtBytes}) or history.failAtEvents (${limits.failAtEvents}): one step this large cannot fit in a Temporal history; make the step's output or tool results smaller.`,
  );
}

function tooLarge(message: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: `${FAILURE_TYPE_PREFIX}RUN_HISTORY_TOO_LARGE`,
    message,
    nonRetryable: true,
  });
}
