import { log } from '@temporalio/workflow';
import type { ConversationRef } from '../common/compaction-types.js';
import { tollgateFailure } from '../common/failure.js';
import type { ExecuteToolOutput, ModelStepInput, ModelStepOutput } from '../common/run-types.js';
import {
  nextStepChunkOffset,
  stepStretches,
  stretchRulesOf,
  type StretchOutput,
  type StretchRules,
  type StretchStep,
} from '../common/stretches.js';
import { stepTextDeltas } from '../common/step-text.js';
import { hostedModelStep, modelStep, modelStepSettings } from './step-work-calls.js';
import { policyFactsOf, type GateContext } from './gates.js';
import { localOrHosted, localStretch, modelStepsAreLocal } from './local-execution.js';
import { namingOf } from './tool-naming.js';
import type { ToolRunContext } from './tool-run-context.js';

/** A step's model output and, when its calls ran in a stretch, what each returned. */
export interface TakenStep {
  output: ModelStepOutput;
  /** By call index; `null`: the call did not run, the workflow runs it. */
  toolOutputs?: Array<ExecuteToolOutput | null>;
}

/**
 * Where the run's model steps come from: one activity per step, or, in a run that stretches, the
 * steps of the latest stretch in order, a new stretch when they are used up. The workflow logs
 * each step the same way in both cases.
 */
export class ModelSteps {
  private queued: StretchStep[] = [];
  /** Where the next queued step's text went live, by `nextStepChunkOffset`. */
  private liveOffset = 0;
  /** The rules of the current stretch, made again as each starts (live rules may change). */
  private rules: StretchRules | undefined;

  constructor(
    private readonly context: ToolRunContext,
    private readonly gates: GateContext,
    stretches: boolean,
  ) {
    this.rules = stretches && modelStepsAreLocal(context.manifest) ? this.rulesNow() : undefined;
  }

  private rulesNow(): StretchRules {
    const { manifest } = this.context;
    const { activeTools, live } = this.gates;
    return stretchRulesOf(manifest, policyFactsOf(this.gates), activeTools, live);
  }

  /**
   * Whether steps of the current stretch are still to be logged: nothing happens at the boundary
   * between them (a compaction or a continue-as-new would not fit the steps the stretch made).
   */
  get midStretch(): boolean {
    return this.queued.length > 0;
  }

  /** Step `step` of `maxSteps`; `conversation` is what its activity is sent. */
  async take(
    step: number,
    maxSteps: number,
    conversation: () => ConversationRef,
  ): Promise<TakenStep> {
    const { state, manifest } = this.context;
    const chunkOffset = state.log.nextOffset;
    const input = (): ModelStepInput => ({
      runId: state.runId,
      agentId: this.context.input.agentId,
      step,
      chunkOffset,
      conversation: conversation(),
      ...namingOf(manifest),
      ...(this.context.input.activeTools ? { activeTools: this.context.input.activeTools } : {}),
    });
    if (!this.rules) return { output: await modelStep(manifest, input(), state) };
    if (this.queued.length === 0) this.queued = (await this.stretch(input(), maxSteps)).steps;
    else if (this.liveOffset !== chunkOffset)
      // Only live text is affected: the log itself is the workflow's.
      log.warn('A stretched step streamed its text live at another offset than it was logged', {
        step,
        live: this.liveOffset,
        logged: chunkOffset,
      });
    const taken = this.queued.shift()!;
    this.check(taken);
    this.liveOffset = nextStepChunkOffset(
      chunkOffset,
      stepTextDeltas(taken.output).length,
      taken.output.toolCalls.length,
    );
    return taken;
  }

  private stretch(input: ModelStepInput, maxSteps: number): Promise<StretchOutput> {
    const { state, manifest } = this.context;
    const rules = (this.rules = this.rulesNow());
    const settings = modelStepSettings(manifest);
    const toolTimeoutMs = Math.max(
      0,
      ...Object.entries(manifest.tools)
        .filter(([name]) => stepStretches(rules, [{ toolName: name }]))
        .map(([, tool]) => tool.timeoutMs),
    );
    const stretchInput = {
      ...input,
      lastStep: maxSteps,
      rules,
      requestContext: this.context.input.requestContext,
    };
    // Where the agent is not hosted on this worker: one model step where it is, nothing stretched.
    const hosted = async (): Promise<StretchOutput> => ({
      steps: [{ output: await hostedModelStep(settings, input, state.agentQueue) }],
      ended: 'not-stretchable',
    });
    return localOrHosted(
      () => localStretch(settings, stretchInput, toolTimeoutMs),
      state.agentQueue,
      hosted,
    );
  }

  /** A stretch runs only calls this run lets it: the same decision, made here again. */
  private check(taken: StretchStep): void {
    const outputs = taken.toolOutputs;
    if (outputs === undefined) return;
    const calls = taken.output.toolCalls;
    if (outputs.length === calls.length && stepStretches(this.rules!, calls)) return;
    throw tollgateFailure(
      'RUN_FAILED',
      `A stretch ran calls of ${calls.map((call) => call.toolName).join(', ')} that this run does not let it run; this is a bug in Tollgate, please report it.`,
    );
  }
}
