import { EventType, type Event as AgUiEvent } from '@ag-ui/core';
import type { Chunk, FinishReason } from '../../common/chunks.js';
import type { JsonValue } from '../../common/json.js';
import type { Shown } from './follow-point.js';

/** How one stretch of a run ended, as far as its chunks say. */
export type StretchEnd =
  | { kind: 'finished'; finishReason: FinishReason }
  | { kind: 'error'; message: string; code?: string };

/**
 * Turns a run's chunks (SPEC §4) into the AG-UI events of one AG-UI run: text messages, tool
 * calls with their arguments, tool results, steps. The run's lifecycle events (RUN_STARTED,
 * RUN_FINISHED with its outcome, RUN_ERROR) and its state are the session's: this class only
 * notes how the stretch ended. Ids are stable for the AG-UI run (`aguiRunId`), so an AG-UI run
 * retried with the same runId shows the same messages. `shown`: the calls and results a
 * MESSAGES_SNAPSHOT sent before the events, which are not sent again.
 */
export class AgUiTranslator {
  private textId: string | undefined;
  private texts = 0;
  /** The step's last text message: the assistant message its tool calls belong to. */
  private stepMessage: string | undefined;
  private readonly shown: Set<string>;
  private readonly shownResults: ReadonlySet<string>;
  private readonly openSteps = new Set<string>();
  private end: StretchEnd | undefined;

  constructor(
    private readonly aguiRunId: string,
    shown: Shown = { calls: new Set(), results: new Set() },
  ) {
    this.shown = new Set(shown.calls);
    this.shownResults = shown.results;
  }

  /** How the source read since the last call ended (its `finish` or `error`), then forgets it. */
  takeEnd(): StretchEnd | undefined {
    const end = this.end;
    this.end = undefined;
    return end;
  }

  translate(chunk: Chunk): AgUiEvent[] {
    switch (chunk.type) {
      case 'step-start': {
        this.stepMessage = undefined;
        const stepName = stepNameOf(chunk.runId, chunk.payload.step);
        this.openSteps.add(stepName);
        return [...this.closeText(), { type: EventType.STEP_STARTED, stepName }];
      }
      case 'step-finish': {
        const stepName = stepNameOf(chunk.runId, chunk.payload.step);
        // A continuation begins inside the step its decision belongs to: that step opened earlier.
        if (!this.openSteps.delete(stepName)) return this.closeText();
        return [...this.closeText(), { type: EventType.STEP_FINISHED, stepName }];
      }
      case 'text-delta':
        if (chunk.payload.text === '') return [];
        return [
          ...this.openText(),
          {
            type: EventType.TEXT_MESSAGE_CONTENT,
            messageId: this.textId!,
            delta: chunk.payload.text,
          },
        ];
      case 'tool-call':
      case 'tool-call-approval':
      case 'tool-call-suspended':
        return [...this.closeText(), ...this.call(chunk.payload)];
      case 'tool-result':
        return this.result(chunk.payload.toolCallId, chunk.payload.result, chunk.payload.code);
      case 'tool-error':
        return this.result(chunk.payload.toolCallId, chunk.payload.error, chunk.payload.code);
      case 'finish':
        this.end = { kind: 'finished', finishReason: chunk.payload.finishReason };
        return this.close();
      case 'error':
        this.end = {
          kind: 'error',
          message: chunk.payload.error,
          ...(chunk.payload.code !== undefined ? { code: chunk.payload.code } : {}),
        };
        return this.close();
      // `start` is the session's RUN_STARTED; `text-withdrawn` and budget warnings have no event.
      default:
        return [];
    }
  }

  /** Closes what is open (text, steps): AG-UI refuses RUN_FINISHED while either is. */
  close(): AgUiEvent[] {
    const steps = [...this.openSteps].map((stepName): AgUiEvent => ({
      type: EventType.STEP_FINISHED,
      stepName,
    }));
    this.openSteps.clear();
    return [...this.closeText(), ...steps];
  }

  private call(call: { toolCallId: string; toolName: string; args: JsonValue }): AgUiEvent[] {
    if (this.shown.has(call.toolCallId)) return [];
    this.shown.add(call.toolCallId);
    const { toolCallId } = call;
    const parent = this.stepMessage !== undefined ? { parentMessageId: this.stepMessage } : {};
    return [
      { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: call.toolName, ...parent },
      { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: JSON.stringify(call.args ?? {}) },
      { type: EventType.TOOL_CALL_END, toolCallId },
    ];
  }

  /**
   * A call's result. Its TOOL_CALL_START may belong to an earlier AG-UI run (the one that ended
   * with its interrupt): the client keeps that call, so the result alone completes it.
   */
  private result(toolCallId: string, value: JsonValue, code: string | undefined): AgUiEvent[] {
    if (this.shownResults.has(toolCallId)) return this.closeText();
    return [
      ...this.closeText(),
      {
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${toolCallId}:result`,
        toolCallId,
        role: 'tool',
        content: typeof value === 'string' ? value : JSON.stringify(value),
        ...(code !== undefined ? { metadata: { tollgate: { code } } } : {}),
      },
    ];
  }

  private openText(): AgUiEvent[] {
    if (this.textId !== undefined) return [];
    this.textId = `${this.aguiRunId}:text:${this.texts++}`;
    this.stepMessage = this.textId;
    return [{ type: EventType.TEXT_MESSAGE_START, messageId: this.textId, role: 'assistant' }];
  }

  private closeText(): AgUiEvent[] {
    if (this.textId === undefined) return [];
    const messageId = this.textId;
    this.textId = undefined;
    return [{ type: EventType.TEXT_MESSAGE_END, messageId }];
  }
}

/** A step's name: unique across the runs one AG-UI run may stream (answers to several runs). */
const stepNameOf = (runId: string, step: number) => `${runId}:step-${step}`;
