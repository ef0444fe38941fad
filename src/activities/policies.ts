import type { ToolCallRef } from '../common/chunks.js';
import type { JsonObject } from '../common/json.js';
import type { GateVerdict } from '../common/run-types.js';
import type { GateAnswer } from '../definitions/create-tool.js';

/** Answers whether one call is gated, optionally with why. */
export type GateQuestion = (
  call: ToolCallRef,
) => boolean | GateAnswer | Promise<boolean | GateAnswer>;

/**
 * Asks each call's question. A policy that throws gates its call (fail-safe), with a note that
 * says why, so an approver can see the gate came from a failure.
 */
export async function askEach(
  calls: ToolCallRef[],
  question: (call: ToolCallRef) => GateQuestion | undefined,
): Promise<GateVerdict[]> {
  return Promise.all(
    calls.map(async (call): Promise<GateVerdict> => {
      const ask = question(call);
      if (!ask)
        return { toolCallId: call.toolCallId, gated: true, note: 'no policy found for this call' };
      try {
        const answer = await ask(call);
        if (isGateAnswer(answer)) {
          const { gated, note, grantable, definition } = answer;
          return {
            toolCallId: call.toolCallId,
            gated,
            ...(note !== undefined ? { note } : {}),
            ...(grantable === false ? { grantable } : {}),
            ...(definition !== undefined ? { definition } : {}),
          };
        }
        return { toolCallId: call.toolCallId, gated: answer === true };
      } catch (error) {
        return {
          toolCallId: call.toolCallId,
          gated: true,
          note: `policy threw: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
    }),
  );
}

function isGateAnswer(value: unknown): value is GateAnswer {
  if (typeof value !== 'object' || value === null) return false;
  const answer = value as Partial<GateAnswer>;
  return (
    typeof answer.gated === 'boolean' &&
    (answer.note === undefined || typeof answer.note === 'string') &&
    (answer.definition === undefined || typeof answer.definition === 'string')
  );
}

export type { JsonObject };
