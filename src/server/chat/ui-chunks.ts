import type { UIMessageChunk } from 'ai';
import type { Chunk, FinishReason } from '../../common/chunks.js';
import type { JsonValue } from '../../common/json.js';
import { approvalIdOf } from './approval-id.js';

/** The data part that carries a call parked by `suspend()`: `data-tollgate-suspend`, id = call id. */
export const SUSPEND_DATA_PART = 'tollgate-suspend';

/** What a `data-tollgate-suspend` part holds: answer it with `addToolOutput({ output: resumeData })`. */
export interface SuspendPartData {
  /** The run the call waits in. */
  runId: string;
  toolCallId: string;
  toolName: string;
  suspendPayload: JsonValue;
  /** JSON Schema (as a JSON string) the resume data must match. */
  resumeSchema: string;
}

/**
 * Turns one stretch of a run's chunks into AI SDK UI message chunks: text parts, tool input and
 * output parts, `tool-approval-request` for a gated call, `tool-output-denied` for a call this
 * request declined, and a `data-tollgate-suspend` part for a call parked by `suspend()`.
 */
export class UiChunkTranslator {
  private textId: string | undefined;
  private texts = 0;
  private readonly inputShown = new Set<string>();

  /** `declined`: calls declined by this request, shown as denied instead of their result. */
  constructor(
    private readonly messageKey: string,
    private readonly declined: ReadonlySet<string> = new Set(),
  ) {}

  translate(chunk: Chunk): UIMessageChunk[] {
    switch (chunk.type) {
      case 'step-start':
        return [...this.closeText(), { type: 'start-step' }];
      case 'step-finish':
        return [...this.closeText(), { type: 'finish-step' }];
      case 'text-delta':
        return [
          ...this.openText(),
          { type: 'text-delta', id: this.textId!, delta: chunk.payload.text },
        ];
      case 'tool-call':
        return [...this.closeText(), ...this.input(chunk.payload)];
      case 'tool-call-approval':
        return [
          ...this.closeText(),
          ...this.input(chunk.payload),
          {
            type: 'tool-approval-request',
            toolCallId: chunk.payload.toolCallId,
            approvalId: approvalIdOf({ runId: chunk.runId, ...chunk.payload }),
          },
        ];
      case 'tool-call-suspended': {
        const { toolCallId, toolName, suspendPayload, resumeSchema } = chunk.payload;
        const data: SuspendPartData = {
          runId: chunk.runId,
          toolCallId,
          toolName,
          suspendPayload,
          resumeSchema,
        };
        return [
          ...this.closeText(),
          ...this.input(chunk.payload),
          { type: `data-${SUSPEND_DATA_PART}`, id: toolCallId, data },
        ];
      }
      case 'tool-result': {
        const { toolCallId } = chunk.payload;
        if (this.declined.has(toolCallId)) return [{ type: 'tool-output-denied', toolCallId }];
        return [
          ...this.input(chunk.payload),
          {
            type: 'tool-output-available',
            toolCallId,
            output: chunk.payload.result,
            ...codeMetadata(chunk.payload.code),
          },
        ];
      }
      case 'tool-error':
        return [
          ...this.input(chunk.payload),
          {
            type: 'tool-output-error',
            toolCallId: chunk.payload.toolCallId,
            errorText: chunk.payload.error,
            ...codeMetadata(chunk.payload.code),
          },
        ];
      case 'finish':
        return [...this.closeText(), finishChunk(chunk.payload.finishReason)];
      case 'error':
        return [...this.closeText(), { type: 'error', errorText: errorTextOf(chunk.payload) }];
      // `start` is sent once per response by the caller; `text-withdrawn` has no UI equivalent.
      default:
        return [];
    }
  }

  /** Closes an open text part: the end of a response that stopped mid-text. */
  end(): UIMessageChunk[] {
    return this.closeText();
  }

  private input(call: { toolCallId: string; toolName: string; args: JsonValue }): UIMessageChunk[] {
    if (this.inputShown.has(call.toolCallId)) return [];
    this.inputShown.add(call.toolCallId);
    return [
      {
        type: 'tool-input-available',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.args,
      },
    ];
  }

  private openText(): UIMessageChunk[] {
    if (this.textId !== undefined) return [];
    this.textId = `${this.messageKey}-text-${this.texts++}`;
    return [{ type: 'text-start', id: this.textId }];
  }

  private closeText(): UIMessageChunk[] {
    if (this.textId === undefined) return [];
    const id = this.textId;
    this.textId = undefined;
    return [{ type: 'text-end', id }];
  }
}

function finishChunk(reason: FinishReason): UIMessageChunk {
  // A run that waits for a decision ends the response with the call still open, as tool calls do.
  const finishReason = reason === 'suspended' ? 'tool-calls' : reason;
  return { type: 'finish', finishReason };
}

function errorTextOf(payload: { error: string; code?: string }): string {
  return payload.code !== undefined ? `${payload.code}: ${payload.error}` : payload.error;
}

/**
 * A call's code as the AI SDK carries metadata of a tool's output: the UI part keeps it as
 * `resultProviderMetadata.tollgate.code`.
 */
function codeMetadata(code: string | undefined): {
  providerMetadata?: { tollgate: { code: string } };
} {
  return code !== undefined ? { providerMetadata: { tollgate: { code } } } : {};
}

/** The UI message chunks of one response: `start`, each run's chunks, and nothing after. */
export async function* uiMessageChunks(
  sources: Array<{ runId: string; chunks: AsyncIterable<Chunk> }>,
  options: { messageId?: string; declined?: ReadonlySet<string> },
): AsyncIterable<UIMessageChunk> {
  yield options.messageId !== undefined
    ? { type: 'start', messageId: options.messageId }
    : { type: 'start' };
  // One response is one assistant message: only the last run's `finish` ends it.
  let finish: UIMessageChunk | undefined;
  for (const source of sources) {
    const translator = new UiChunkTranslator(source.runId, options.declined);
    for await (const chunk of source.chunks) {
      for (const ui of translator.translate(chunk)) {
        if (ui.type === 'finish') finish = ui;
        else yield ui;
      }
    }
    yield* translator.end();
  }
  if (finish) yield finish;
}
