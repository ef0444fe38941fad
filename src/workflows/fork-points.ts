import { setHandler } from '@temporalio/workflow';
import type { ForkOrigin, ForkPointAnswer } from '../common/fork-point.js';
import type { ForkPointCall } from '../common/fork-types.js';
import type { JsonValue } from '../common/json.js';
import { forkPointQuery } from '../common/messages.js';
import type { ModelToolCall, RunInput } from '../common/run-types.js';
import {
  errorPart,
  resultPart,
  toolResultPart,
  type ToolResultPart,
} from '../common/tool-result-part.js';
import type { RunState } from './run-state.js';

/** Where one step ended in the conversation: through its model output, then its calls' results. */
interface StepMark {
  step: number;
  /** Messages through the step's model output (all of them when `calls` is empty). */
  upTo: number;
  calls: ModelToolCall[];
}

/**
 * Where each step of this execution ended in the run's conversation, kept in workflow memory only
 * (no command, so no patch): a fork reads it by query and starts from there (docs/fork.md).
 * Steps before a continue-as-new or a compaction are gone: the conversation they ended in is.
 */
export class StepMarks {
  private marks: StepMark[] = [];

  constructor(private readonly state: RunState) {}

  /** A boundary the run starts from or goes on from (its start, after a compaction): no calls open. */
  restart(step: number): void {
    this.marks = [{ step, upTo: this.state.messages.length, calls: [] }];
  }

  /** Step `step`'s model output is in the conversation; `calls` follow it. */
  mark(step: number, calls: ModelToolCall[]): void {
    this.marks.push({ step, upTo: this.state.messages.length, calls });
  }

  /** Answers the fork-point query for `step`, or the steps that can be forked. */
  answer(step: number, origin: ForkOrigin): ForkPointAnswer {
    const first = this.marks[0];
    const last = this.marks.at(-1);
    const mark = this.marks.find((m) => m.step === step);
    if (!first || !last || !mark) {
      return { unavailable: { earliest: first?.step ?? 0, latest: last?.step ?? 0 } };
    }
    const { messages } = this.state;
    return {
      step,
      messages: messages.slice(0, mark.upTo),
      calls: mark.calls.map((call) => this.callAt(call, messages[mark.upTo])),
      steps: last.step,
      origin,
    };
  }

  private callAt(call: ModelToolCall, next: JsonValue | undefined): ForkPointCall {
    const gate = this.state.audit.entries.find(
      (entry) => entry.type === 'gate' && entry.toolCallId === call.toolCallId,
    );
    const gated = gate?.type === 'gate' ? gate.gated : false;
    const result = partIn(next, call.toolCallId) ?? this.partLogged(call);
    return { ...call, gated, ...(result ? { result } : {}) };
  }

  /** In a step still under way, a call that ended already: its part, rebuilt from its chunk. */
  private partLogged(call: ModelToolCall): ToolResultPart | undefined {
    for (const chunk of this.state.log.chunks) {
      if (chunk.type !== 'tool-result' && chunk.type !== 'tool-error') continue;
      const payload = chunk.payload as { toolCallId: string; result?: JsonValue; error?: string };
      if (payload.toolCallId !== call.toolCallId) continue;
      if (chunk.type === 'tool-error') return errorPart(call, payload.error ?? '');
      const code = (payload as { code?: string }).code;
      // A decline or an expiry only says why nothing ran: the model read it as text.
      return code
        ? toolResultPart(call, 'text', payload.result ?? '')
        : resultPart(call, payload.result ?? null);
    }
    return undefined;
  }
}

/** The part for `toolCallId` in the tool message that follows a step's model output, if there is one. */
function partIn(message: JsonValue | undefined, toolCallId: string): ToolResultPart | undefined {
  const tool = message as { role?: string; content?: ToolResultPart[] } | undefined;
  if (tool?.role !== 'tool' || !Array.isArray(tool.content)) return undefined;
  return tool.content.find((part) => part.toolCallId === toolCallId);
}

/** What a fork takes over from this run's request. */
export function forkOriginOf(input: RunInput): ForkOrigin {
  return {
    agentId: input.agentId,
    requestPolicy: input.requestPolicy,
    requestContext: input.requestContext,
    ...(input.approvalRules ? { approvalRules: input.approvalRules } : {}),
    ...(input.activeTools ? { activeTools: input.activeTools } : {}),
    ...(input.resourceId !== undefined ? { resourceId: input.resourceId } : {}),
  };
}

/** Installs the fork-point query: read-only, so forking never touches this run's history. */
export function installForkPoints(state: RunState, input: RunInput): StepMarks {
  const marks = new StepMarks(state);
  setHandler(forkPointQuery, ({ step }) => marks.answer(step, forkOriginOf(input)));
  return marks;
}
