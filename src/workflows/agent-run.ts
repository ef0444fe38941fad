import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import { refOf, type FinishReason } from '../common/chunks.js';
import { TollgateError, type TollgateErrorCode } from '../common/errors.js';
import { stepTextDeltas } from '../common/step-text.js';
import type {
  ModelStepOutput,
  RunInput,
  RunResult,
  ThreadRef,
  ToolNaming,
} from '../common/run-types.js';
import { startNarrowed } from './active-tools.js';
import { agentQueueOfRun, hereFirstOfRun } from './agent-routing.js';

import { appendThread, loadThread } from './activity-calls.js';
import { describeRun, patchesOfLocalWork } from './describe-run.js';
import { decidedNoticesSettled } from './channel-notices.js';
import { checkStepFits, continueIfLong, restoreRun } from './continue-as-new.js';
import { installHandlers } from './decisions.js';
import {
  askPatch,
  doesLocalWork,
  modelStepsAreLocal,
  patchesBeforeLocalWork,
} from './local-execution.js';
import { reportToParent } from './delegation.js';
import { decideGates } from './gates.js';
import { ConversationTrack } from './compaction.js';
import { RunState } from './run-state.js';
import { asRunFailure } from './run-failure.js';
import { runToolCalls } from './tool-calls.js';
import { failureMessage } from './tool-results.js';
import { requestOnlyTightens, withRequestRules } from './request-rules.js';
import { toolNamingOfNewRun } from './tool-keys-patch.js';
import { withToolIds } from './tool-naming.js';
import { ModelSteps } from './stretches.js';
import { withLastChunks } from './chunk-log.js';
import { jsonBytes } from '../common/continued-run.js';
import { installForkPoints, type StepMarks } from './fork-points.js';
import { recordFork, settleForkCalls } from './fork-start.js';
import { BudgetGate } from './budget-gate.js';
import type { ToolRunContext } from './tool-run-context.js';
import { HANDLERS_FINISHED_PATCH, STRETCHES_PATCH } from './patch-ids.js';

/**
 * One agent run (SPEC §3, §8): model step → tool calls → gates → execution → next step, until the
 * model stops or `maxSteps`. The history is the run's only snapshot.
 */
export async function agentRun(started: RunInput): Promise<RunResult> {
  const input = withRequestRules(started);
  const state = new RunState(workflowInfo().workflowId, input.agentId);
  state.agentQueue = agentQueueOfRun(input.agentId);
  state.hereFirst = hereFirstOfRun(state.agentQueue);
  installHandlers(state);
  const marks = installForkPoints(state, input);
  reportToParent(state, input);
  state.messages.push(...input.messages);
  const continued = input.continued;
  // An execution after a continue-as-new goes on with the log and the state it was handed.
  if (continued) restoreRun(state, continued);
  else {
    recordFork(state, input);
    const fork = input.fork;
    state.log.emit('start', {
      agentId: input.agentId,
      ...(input.threadId !== undefined ? { threadId: input.threadId } : {}),
      ...(input.resourceId !== undefined ? { resourceId: input.resourceId } : {}),
      ...(fork ? { forkedFrom: { runId: fork.runId, step: fork.step } } : {}),
    });
  }
  try {
    const toolNaming = continued?.toolNaming ?? toolNamingOfNewRun();
    const described = await describeRun(input, toolNaming, state);
    const { manifest } = described;
    if (!continued) state.autoResume = manifest.autoResume ?? false;
    Object.assign(state.live, manifest.livePolicy);
    if (!continued && input.activeTools) startNarrowed(state, manifest, input.activeTools);
    if (doesLocalWork(manifest)) {
      state.status.keepRepeats();
      state.log.relay = 'at-close';
    }
    const patches =
      described.patches ?? patchesBeforeLocalWork(manifest, patchesOfLocalWork(manifest));
    const thread = threadOf(input);
    let recalled = continued?.recalled ?? 0;
    if (thread && !continued) {
      const messages = await loadThread(thread, manifest.lastMessages ?? 40);
      state.messages.splice(0, 0, ...messages);
      recalled = messages.length;
    }
    const carry = { recalled, toolNaming };
    const { result, last } = await runSteps({ state, input, manifest, patches }, carry, marks);
    if (thread) {
      // After a compaction: the compacted conversation, less the recalled messages it kept.
      await appendThread(thread, {
        runId: state.runId,
        messages: state.messages.slice(carry.recalled),
      });
    }
    state.close(result.finishReason, 'completed');
    if (askPatch(patches, HANDLERS_FINISHED_PATCH)) await condition(allHandlersFinished);
    await decidedNoticesSettled(state);
    // A sub-agent's result goes into its parent's history: the parent reads only its text.
    if (input.parent) return result;
    // The last step's output was a payload the server accepted: the result may grow to its size.
    return withLastChunks(result, state.log, last ? jsonBytes(last) : 0);
  } catch (error) {
    // Continuing as new is no failure: the next execution goes on with the same log.
    if (error instanceof ContinueAsNew) throw error;
    await CancellationScope.nonCancellable(async () => fail(state, error));
    throw error instanceof ActivityFailure ? asRunFailure(error) : error;
  }
}

/** The memory thread of a top-level run with `memory`; sub-agent runs keep none. */
function threadOf(input: RunInput): ThreadRef | undefined {
  if (input.parent || input.threadId === undefined || input.resourceId === undefined)
    return undefined;
  return { agentId: input.agentId, threadId: input.threadId, resourceId: input.resourceId };
}

async function runSteps(
  context: ToolRunContext,
  /** `recalled` is updated when a compaction changes the conversation. */
  carry: { recalled: number; toolNaming: ToolNaming },
  marks: StepMarks,
): Promise<{ result: RunResult; last: ModelStepOutput | undefined }> {
  const { state, input, manifest } = context;
  // A fork numbers its steps on from the original's and gets its own budget of steps.
  const forkedAt = input.fork?.step ?? 0;
  const maxSteps = input.continued?.maxSteps ?? forkedAt + (input.maxSteps ?? manifest.maxSteps);
  const gateContext = {
    runId: state.runId,
    policyRunId: input.parent?.rootRunId ?? state.runId,
    agentQueue: state.agentQueue,
    manifest,
    policy: input.requestPolicy,
    requestContext: input.requestContext,
    onlyTightens: requestOnlyTightens(input),
    ...(input.approvalOverride ? { override: input.approvalOverride } : {}),
    ...(input.activeTools ? { activeTools: input.activeTools } : {}),
    live: state.live,
  };
  // Messages the worker has already seen: each step sends only what came after them, so history
  // grows linearly with the conversation instead of quadratically.
  // After a continue-as-new the worker may hold the conversation; on a miss it reads it back.
  const conversation = new ConversationTrack(
    state,
    manifest,
    input.continued?.knownToWorker ?? 0,
    carry.recalled,
    input.continued?.compactions ?? 0,
  );
  const budget = BudgetGate.of(context);
  // Only local-mode runs ask: the patch was decided before their first local work. A run with a
  // budget takes its steps one at a time: a stretch would make several before the gate could look.
  const stretches =
    modelStepsAreLocal(manifest) && askPatch(context.patches, STRETCHES_PATCH) && !budget;
  const modelSteps = new ModelSteps(context, gateContext, stretches);
  let last: ModelStepOutput | undefined;
  let lastText: string[] = [];
  let step = input.continued?.step ?? forkedAt;
  if (input.fork && !input.continued) conversation.add(await settleForkCalls(context, input.fork));
  marks.restart(step);
  let finishReason: FinishReason | undefined;
  while (step < maxSteps) {
    // A declined budget approval ends the run as a step limit would: `length`.
    if (budget && !(await budget.beforeStep())) {
      finishReason = 'length';
      break;
    }
    step++;
    state.log.emit('step-start', { step });
    const taken = await modelSteps.take(step, maxSteps, () =>
      conversation.refFrom(conversation.knownToWorker),
    );
    last = taken.output;
    lastText = stepTextDeltas(last);
    for (const text of lastText) state.log.emit('text-delta', { text });
    const calls = withToolIds(manifest, last.toolCalls);
    for (const call of calls) state.log.emit('tool-call', refOf(call));
    conversation.add(last.responseMessages);
    marks.mark(step, calls);
    // A local step gets the whole conversation (its input is not recorded): on a cache miss it
    // could not read the prefix back from this run, whose workflow task it holds open.
    if (!modelStepsAreLocal(manifest)) conversation.knownToWorker = state.messages.length;
    state.addUsage(last.usage);
    state.log.emit('step-finish', { step, finishReason: last.finishReason, usage: last.usage });
    budget?.afterStep();
    if (budget?.shared) await budget.shared.commit(step, last.usage);
    if (calls.length === 0) break;
    checkStepFits(manifest, state, step);
    const gated = await decideGates(gateContext, calls);
    const results = await runToolCalls(context, calls, gated, taken.toolOutputs);
    conversation.add([{ role: 'tool', content: results }]);
    // Between the steps of a stretch nothing may change the conversation the stretch went on with.
    if (step < maxSteps && !modelSteps.midStretch) {
      const generation = conversation.generation;
      await conversation.compactIfLarge(step);
      if (conversation.generation !== generation) marks.restart(step);
      carry.recalled = conversation.recalled;
      await continueIfLong({
        state,
        input,
        manifest,
        step,
        maxSteps,
        knownToWorker: conversation.knownToWorker,
        compactions: conversation.generation,
        ...carry,
        ...(budget ? { budget: budget.carry } : {}),
      });
    }
  }
  const result = {
    finishReason: finishReason ?? last?.finishReason ?? 'stop',
    text: lastText.join(''),
    steps: step,
    usage: state.usage,
  };
  return { result, last };
}

/** The code a run's failure is known by: its own Tollgate code, or `RUN_FAILED`. */
function runFailureCode(error: unknown): TollgateErrorCode {
  const failure = error instanceof ActivityFailure ? asRunFailure(error) : error;
  const code =
    failure instanceof ApplicationFailure
      ? TollgateError.codeOfFailureType(failure.type)
      : undefined;
  return code ?? 'RUN_FAILED';
}

function fail(state: RunState, error: unknown): void {
  const cancelled = isCancellation(error);
  const message = cancelled
    ? 'Run was cancelled'
    : error instanceof ActivityFailure
      ? failureMessage(error)
      : error instanceof Error
        ? error.message
        : String(error);
  const code = cancelled ? 'RUN_CANCELLED' : runFailureCode(error);
  // Every call still waiting gets an explicit answer, so no one waits on a decision that is moot.
  const moot = cancelled ? 'Run was cancelled before a decision' : 'Run failed before a decision';
  for (const call of state.calls.pendingToolCalls()) {
    state.log.emit('tool-error', { ...refOf(call), error: moot, code });
  }
  state.log.emit('error', { error: message, code });
  state.close('error', cancelled ? 'cancelled' : 'failed');
}
