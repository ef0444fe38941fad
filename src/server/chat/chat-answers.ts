import type { UIMessage } from 'ai';
import type { JsonValue } from '../../common/json.js';
import { parseApprovalId } from './approval-id.js';
import { SUSPEND_DATA_PART, type SuspendPartData } from './ui-chunks.js';

/** One answer a chat posted back: an approval decision, or resume data for a suspended call. */
export type ChatAnswer =
  | {
      kind: 'approve' | 'decline';
      approvalId: string;
      runId: string;
      toolCallId: string;
      fingerprint: string;
      reason?: string;
    }
  | { kind: 'resume'; runId: string; toolCallId: string; resumeData: JsonValue };

interface AnyPart {
  type?: string;
  id?: string;
  state?: string;
  toolCallId?: string;
  output?: JsonValue;
  data?: Partial<SuspendPartData>;
  approval?: { id?: string; approved?: boolean; reason?: string };
}

/**
 * The answers in the last step of an assistant message: tool parts in `approval-responded`
 * (`addToolApprovalResponse`), and outputs the user gave (`addToolOutput`) to calls shown with a
 * `data-tollgate-suspend` part. Approval ids are parsed here: a malformed one is refused before
 * anything is decided.
 */
export function answersIn(message: UIMessage): ChatAnswer[] {
  const parts = message.parts as AnyPart[];
  const stepStart = parts.findLastIndex((p) => p.type === 'step-start');
  const step = parts.slice(stepStart + 1);
  const suspended = new Map<string, string>();
  for (const part of parts) {
    if (part.type === `data-${SUSPEND_DATA_PART}` && typeof part.data?.runId === 'string') {
      suspended.set(String(part.data.toolCallId ?? part.id), part.data.runId);
    }
  }
  const answers: ChatAnswer[] = [];
  for (const part of step) {
    if (typeof part.toolCallId !== 'string') continue;
    if (part.state === 'approval-responded' && part.approval) {
      const { approved, reason } = part.approval;
      const approvalId = String(part.approval.id);
      answers.push({
        kind: approved === true ? 'approve' : 'decline',
        approvalId,
        ...parseApprovalId(approvalId),
        ...(typeof reason === 'string' && reason !== '' ? { reason } : {}),
      });
    }
    const runId = suspended.get(part.toolCallId);
    if (part.state === 'output-available' && runId !== undefined) {
      answers.push({
        kind: 'resume',
        runId,
        toolCallId: part.toolCallId,
        resumeData: part.output ?? null,
      });
    }
  }
  return answers;
}
