import type { UIMessage } from 'ai';
import type { JsonValue } from '../../common/json.js';
import { TollgateError } from '../../common/errors.js';
import { idProblem } from '../../common/limits.js';
import { notIssued, parseApprovalId } from './approval-id.js';
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
      /** Approve with edited arguments (checked by the run against the tool's input schema). */
      args?: JsonValue;
    }
  | { kind: 'resume'; runId: string; toolCallId: string; resumeData: JsonValue };

interface AnyPart {
  type?: string;
  id?: unknown;
  state?: unknown;
  toolCallId?: unknown;
  output?: JsonValue;
  data?: { [K in keyof SuspendPartData]?: unknown };
  approval?: { id?: unknown; approved?: unknown; reason?: unknown };
}

/**
 * The answers in the last step of an assistant message: tool parts in `approval-responded`
 * (`addToolApprovalResponse`), and outputs the user gave (`addToolOutput`) to calls shown with a
 * `data-tollgate-suspend` part. Approval ids are parsed here, and a call answered twice (say,
 * approved and declined) refuses the whole message: both before anything is decided.
 */
export function answersIn(message: UIMessage): ChatAnswer[] {
  const parts = message.parts as AnyPart[];
  const stepStart = parts.findLastIndex((p) => p.type === 'step-start');
  const step = parts.slice(stepStart + 1);
  const suspended = new Map<string, string>();
  for (const part of parts) {
    const callId = part.data?.toolCallId ?? part.id;
    if (
      part.type === `data-${SUSPEND_DATA_PART}` &&
      typeof part.data?.runId === 'string' &&
      typeof callId === 'string'
    ) {
      suspended.set(callId, part.data.runId);
    }
  }
  const answers: ChatAnswer[] = [];
  for (const part of step) {
    if (typeof part.toolCallId !== 'string') continue;
    if (part.state === 'approval-responded' && typeof part.approval === 'object') {
      const { approved, reason, id } = part.approval ?? {};
      answers.push({
        kind: approved === true ? 'approve' : 'decline',
        ...parseApprovalId(id),
        approvalId: id as string,
        ...(typeof reason === 'string' && reason !== '' ? { reason } : {}),
      });
    }
    const runId = suspended.get(part.toolCallId);
    if (part.state === 'output-available' && runId !== undefined) {
      if (idProblem(runId, 'runId') || idProblem(part.toolCallId, 'toolCallId')) {
        throw notIssued(part.toolCallId);
      }
      answers.push({
        kind: 'resume',
        runId,
        toolCallId: part.toolCallId,
        resumeData: part.output ?? null,
      });
    }
  }
  refuseRepeats(answers);
  return answers;
}

/** Two answers to one call contradict each other or say one thing twice: neither is applied. */
export function refuseRepeats(answers: ChatAnswer[]): void {
  const seen = new Set<string>();
  for (const { runId, toolCallId } of answers) {
    const key = JSON.stringify([runId, toolCallId]);
    if (seen.has(key)) {
      throw new TollgateError(
        'INVALID_DECISION',
        `The message answers tool call ${toolCallId} more than once; answer each waiting call once, so the answer applied is the one the user gave.`,
      );
    }
    seen.add(key);
  }
}
