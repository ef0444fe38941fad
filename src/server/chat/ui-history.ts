import type { UIMessage } from 'ai';
import type { JsonValue } from '../../common/json.js';
import type { PendingToolCall } from '../../common/run-types.js';
import { approvalIdOf } from './approval-id.js';
import { idsIn } from './message-ids.js';
import { MessageIds, modelMessageOf } from './model-parts.js';
import { SUSPEND_DATA_PART, type SuspendPartData } from './ui-chunks.js';

type Part = UIMessage['parts'][number];
type ToolPart = Extract<Part, { toolCallId: string }> & Record<string, unknown>;

/**
 * Rebuilds a chat's UI messages from its model messages (a thread's, or a waiting run's
 * conversation): user text, assistant text and tool parts, one `step-start` per model step, tool
 * results as outputs. The open `run`'s declined calls show as denied; its waiting calls show as
 * they wait: `approval-requested` with their approval id, or a `data-tollgate-suspend` part for a
 * call parked by `suspend()`; a budget approval, in no model message, is added as a tool part.
 * Ids are those the chat gave the messages live (see `message-ids.ts`): the user's own id, the
 * run's id for its answer. A message a chat did not send, and its answer, get `<chatId>-<n>`.
 * `replyId` is the id of the answer to the last user message, given or still to come.
 */
export function uiMessagesOf(
  chatId: string,
  messages: JsonValue[],
  run?: { runId: string; calls: PendingToolCall[]; declined?: ReadonlySet<string> },
): { messages: UIMessage[]; replyId: string } {
  const out: UIMessage[] = [];
  const tools = new Map<string, ToolPart>();
  const ids = new MessageIds(chatId);
  const idOf = (given: string | undefined) => ids.take(given, out.length);
  let replyId: string | undefined;
  const assistant = (): UIMessage => {
    const last = out.at(-1);
    if (last?.role === 'assistant') return last;
    const message: UIMessage = { id: idOf(replyId), role: 'assistant', parts: [] };
    out.push(message);
    return message;
  };
  for (const raw of messages) {
    const { role, parts } = modelMessageOf(raw);
    if (role === 'user') {
      const text = parts.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('\n');
      const ids = idsIn(raw);
      out.push({ id: idOf(ids.messageId), role: 'user', parts: [{ type: 'text', text }] });
      replyId = ids.replyId;
    } else if (role === 'assistant') {
      const message = assistant();
      message.parts.push({ type: 'step-start' });
      for (const part of parts) {
        if (part.type === 'text' && part.text) {
          message.parts.push({ type: 'text', text: part.text, state: 'done' });
        } else if (part.type === 'tool-call' && part.toolCallId && part.toolName) {
          const tool = {
            type: `tool-${part.toolName}`,
            toolCallId: part.toolCallId,
            state: 'input-available',
            input: part.input ?? part.args ?? {},
          } as ToolPart;
          tools.set(part.toolCallId, tool);
          message.parts.push(tool);
        }
      }
    } else if (role === 'tool') {
      for (const part of parts) {
        const tool = part.toolCallId ? tools.get(part.toolCallId) : undefined;
        if (!tool || part.type !== 'tool-result') continue;
        const failed = part.output?.type === 'error-text' || part.output?.type === 'error-json';
        if (failed)
          Object.assign(tool, { state: 'output-error', errorText: String(part.output?.value) });
        else Object.assign(tool, { state: 'output-available', output: part.output?.value ?? null });
      }
    }
  }
  for (const toolCallId of run?.declined ?? []) {
    const tool = tools.get(toolCallId);
    if (tool)
      Object.assign(tool, {
        state: 'output-denied',
        output: undefined,
        approval: { id: toolCallId, approved: false },
      });
  }
  for (const call of run?.calls ?? []) {
    const message = assistant();
    markWaiting(
      tools.get(call.toolCallId) ?? notInConversation(call, message),
      run!.runId,
      call,
      message,
    );
  }
  const last = out.at(-1);
  const nextId = ids.peek(replyId, out.length);
  return { messages: out, replyId: last?.role === 'assistant' ? last.id : nextId };
}

/**
 * The part of a waiting call the model did not make (a budget approval): shown where the live
 * stream shows it, after the last step's parts.
 */
function notInConversation(call: PendingToolCall, message: UIMessage): ToolPart {
  const tool = {
    type: `tool-${call.toolName}`,
    toolCallId: call.toolCallId,
    state: 'input-available',
    input: call.args,
  } as ToolPart;
  message.parts.push(tool);
  return tool;
}

function markWaiting(
  tool: ToolPart | undefined,
  runId: string,
  call: PendingToolCall,
  message: UIMessage,
): void {
  if (!tool) return;
  if (call.requiresApproval) {
    const approval = { id: approvalIdOf({ runId, ...call }) };
    Object.assign(tool, { state: 'approval-requested', approval });
    return;
  }
  const data: SuspendPartData = {
    runId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    suspendPayload: call.suspendPayload ?? null,
    resumeSchema: call.resumeSchema,
  };
  message.parts.push({ type: `data-${SUSPEND_DATA_PART}`, id: call.toolCallId, data });
}
