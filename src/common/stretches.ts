/**
 * Stretches (docs/local-execution.md "Stretches"): in a local-mode run, consecutive model steps
 * whose tool calls all run ungated and locally are made by one local activity, which runs the
 * calls in-process and goes on with the next step. What may be stretched is decided here, once,
 * for the workflow (which checks what a stretch ran) and the activity (which stops where it must).
 * Pure, JSON-safe and sandbox-safe.
 */
import type { ExecuteToolOutput, ModelStepInput, ModelStepOutput } from './activity-types.js';
import type { ToolCallRef } from './chunks.js';
import { isActiveTool } from './active-tools.js';
import { effectivePolicy, type PolicyFacts } from './gate-policy.js';
import type { JsonObject } from './json.js';
import type { AgentManifest, ToolManifest } from './run-types.js';

/**
 * A stretch starts no new step once its steps' output passed this many bytes of JSON: the result is
 * recorded in one marker, and stays far below Temporal's 2 MB payload limit.
 */
export const STRETCH_MAX_BYTES = 256 * 1024;

/**
 * A step after the first that would take the stretch's result past this many bytes is left out
 * (its model call is made again as the first step of the next stretch); a step's tool results
 * that would are returned as not run, and the workflow runs those calls one by one.
 */
export const STRETCH_HARD_MAX_BYTES = 1024 * 1024;

/**
 * A stretch starts no new step after this long, ms: its local activity, and the workflow task it
 * holds open, stay short, and a crash reruns little.
 */
export const STRETCH_MAX_MS = 3000;

/** What gating a call depends on that the workflow knows without asking anyone. */
export interface StretchRules extends PolicyFacts {
  /** The run's tools, by the name the model calls, reduced to what decides their gate and place. */
  tools: Record<string, Pick<ToolManifest, 'approval' | 'local' | 'delegate'>>;
}

/**
 * `activeTools`: the run's, when its request narrowed its tools; the others are left out, so a
 * call of one of them ends the stretch and the workflow refuses it. `live`: the run's live rules.
 */
export function stretchRulesOf(
  manifest: AgentManifest,
  facts: PolicyFacts,
  activeTools?: readonly string[],
  live?: Readonly<Record<string, boolean>>,
): StretchRules {
  const tools: StretchRules['tools'] = {};
  for (const [name, tool] of Object.entries(manifest.tools)) {
    // A tool a live rule gates is left out too: its call ends the stretch and waits.
    if (!isActiveTool(activeTools, name) || live?.[name] === true) continue;
    tools[name] = {
      approval: tool.approval,
      ...(tool.local ? { local: tool.local } : {}),
      ...(tool.delegate ? { delegate: tool.delegate } : {}),
    };
  }
  return { ...facts, tools };
}

/**
 * Whether a step's calls may run inside a stretch: there are some, and each names a known
 * `local: true` tool (never a delegation; MCP tools always have a gate predicate, so never one),
 * with valid arguments, whose gate is statically open: the tool has no approval of its own and the
 * run's effective policy is a plain `never`. Anything that would need a policy evaluated, an
 * approval or an ordinary activity ends the stretch before the calls run.
 */
export function stepStretches(
  rules: StretchRules,
  calls: ReadonlyArray<Pick<ToolCallRef, 'toolName'> & { invalidReason?: string }>,
): boolean {
  if (calls.length === 0 || effectivePolicy(rules).kind !== 'never') return false;
  return calls.every((call) => {
    const tool = rules.tools[call.toolName];
    return (
      call.invalidReason === undefined &&
      tool !== undefined &&
      tool.local === true &&
      tool.delegate === undefined &&
      tool.approval === 'never'
    );
  });
}

/** A local call's idempotency key: its position, which a rerun after a crash reaches again. */
export function positionKey(runId: string, position: { step: number; index: number }): string {
  return `${runId}:step-${position.step}:call-${position.index}`;
}

/**
 * The chunk offset of the next step's text, after a stretched step at `chunkOffset`: the workflow
 * logs the step's text deltas, a `tool-call` per call and `step-finish`, then a `tool-result` (or
 * `tool-error`) per call and the next `step-start`. The workflow checks it against its log.
 */
export function nextStepChunkOffset(
  chunkOffset: number,
  textDeltas: number,
  calls: number,
): number {
  return chunkOffset + textDeltas + 2 * calls + 2;
}

/** Input of the `runStretch` activity: a local model step's, and where the stretch must stop. */
export interface StretchInput extends ModelStepInput {
  /** The run's last step (`maxSteps`): the stretch makes no step after it. */
  lastStep: number;
  rules: StretchRules;
  /** The run's request context, which the stretch's tool calls see. */
  requestContext: JsonObject;
}

/** Why a stretch returned. */
export type StretchEnd =
  /** The last step answered without calls. */
  | 'answer'
  /** The last step's calls are not all stretchable (a gate, an ordinary or unknown tool). */
  | 'not-stretchable'
  | 'last-step'
  | 'bytes'
  | 'time'
  /** A call suspended, found its tool changed, or threw: the workflow handles it. */
  | 'tool-output'
  /** A model step after the first failed: the next stretch makes it again, with retries. */
  | 'model-failure';

/** One model step of a stretch. */
export interface StretchStep {
  output: ModelStepOutput;
  /**
   * Set when the step's calls ran in the stretch, by call index: what each returned, or `null`
   * for a call that threw (or whose result did not fit), which the workflow runs itself.
   */
  toolOutputs?: Array<ExecuteToolOutput | null>;
}

export interface StretchOutput {
  /** At least one. Every step but the last has `toolOutputs`. */
  steps: StretchStep[];
  ended: StretchEnd;
}
