import { refOf } from '../common/chunks.js';
import type { ForkCall, ForkStart } from '../common/fork-types.js';
import type { JsonValue } from '../common/json.js';
import type { ModelToolCall, RunInput } from '../common/run-types.js';
import { toolResultPart, type ToolResultPart } from '../common/tool-result-part.js';
import type { GateOutcome } from './gates.js';
import type { RunState } from './run-state.js';
import { runToolCalls } from './tool-calls.js';
import { DEFAULT_DECLINE_REASON } from './tool-results.js';
import type { ToolRunContext } from './tool-run-context.js';

/**
 * A fork's first entry (before anything else it logs): where it came from and what it did with
 * the calls of the step it starts after. Its `start` chunk names the original as well.
 */
export function recordFork(state: RunState, input: RunInput): void {
  const fork = input.fork;
  if (!fork || input.continued) return;
  const prompt = fork.prompt !== undefined ? 'appended' : fork.replaced ? 'replaced' : undefined;
  state.audit.add({
    type: 'forked',
    from: { runId: fork.runId, step: fork.step },
    ...(prompt ? { prompt } : {}),
    calls: fork.calls.map((call) => ({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      choice: call.choice,
      ...(call.reason !== undefined ? { reason: call.reason } : {}),
    })),
    ...(fork.forkedBy ? { forkedBy: fork.forkedBy } : {}),
  });
}

/**
 * Settles the calls of the step the fork starts after, before its first model step: a kept call
 * takes the original's result and a declined one is told why, neither runs; an asked one waits
 * for a decision here, gated whatever the policy says. Then the fork's prompt, if it has one.
 * Returns the messages to add to the conversation.
 */
export async function settleForkCalls(
  context: ToolRunContext,
  fork: ForkStart,
): Promise<JsonValue[]> {
  const { state } = context;
  const asked = fork.calls.filter((call) => call.choice === 'ask').map(modelCallOf);
  const gates = new Map<string, GateOutcome>(
    asked.map((call) => [call.toolCallId, { gated: true, source: 'fork' }]),
  );
  const parts = new Map<string, ToolResultPart>();
  for (const call of fork.calls) {
    if (call.choice === 'keep' && call.result) parts.set(call.toolCallId, call.result);
    if (call.choice === 'decline') parts.set(call.toolCallId, declinedInFork(state, call));
  }
  for (const call of asked) state.log.emit('tool-call', refOf(call));
  const answers = asked.length > 0 ? await runToolCalls(context, asked, gates) : [];
  for (const part of answers) parts.set(part.toolCallId, part);
  const messages: JsonValue[] = [];
  if (fork.calls.length > 0) {
    const content = fork.calls.flatMap((call) => parts.get(call.toolCallId) ?? []);
    messages.push({ role: 'tool', content });
  }
  if (fork.prompt !== undefined) messages.push(fork.prompt);
  return messages;
}

/** Declined by whoever forked: nothing runs, the stream and the model are told why. */
function declinedInFork(state: RunState, call: ForkCall): ToolResultPart {
  const reason = call.reason ?? DEFAULT_DECLINE_REASON;
  state.log.emit('tool-result', { ...refOf(call), result: reason, code: 'TOOL_CALL_DECLINED' });
  return toolResultPart(call, 'text', reason);
}

function modelCallOf(call: ForkCall): ModelToolCall {
  const { choice: _choice, result: _result, reason: _reason, ...model } = call;
  return model;
}
