import type { ToolCallRef } from '../common/chunks.js';
import type { JsonObject } from '../common/json.js';
import type { GateVerdict } from '../common/run-types.js';

/** Answers whether one call is gated. */
export type GateQuestion = (call: ToolCallRef) => boolean | Promise<boolean>;

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
        return { toolCallId: call.toolCallId, gated: (await ask(call)) === true };
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

export type { JsonObject };
