import { Context } from '@temporalio/activity';
import { toJsonValue, type JsonValue } from '../common/json.js';

/**
 * Heartbeat details of a tool attempt: the call's latest checkpoint, if any, and whether this
 * attempt has started `execute` without reporting how it ended.
 */
interface AttemptDetails {
  tollgateCheckpoint?: JsonValue;
  tollgateExecuting?: true;
}

/**
 * A tool call's progress marker, kept in the activity's heartbeat details, which Temporal hands to
 * the next attempt of the same call (after a throw, a timeout or a worker crash).
 */
export class Checkpoints {
  /** The latest checkpoint of any earlier attempt of this call. */
  readonly previous: JsonValue | undefined;
  /**
   * The previous attempt started `execute` and ended without reporting a throw: it timed out, its
   * worker died, or the server refused its completion, so the call may have had its effect.
   */
  readonly previousEndedUnseen: boolean;
  private latest: JsonValue | undefined;
  /** Undefined until marked: a cleared mark must still replace the details the server holds. */
  private executing: boolean | undefined;

  /**
   * `carried`: the details an attempt refused by a worker without the agent handed on
   * (`ExecuteToolInput.priorAttempt`), used when this activity has none of its own yet.
   */
  constructor(
    private readonly context = Context.current(),
    carried?: JsonValue,
  ) {
    const details = (context.info.heartbeatDetails ?? carried) as AttemptDetails | undefined;
    this.previous = details?.tollgateCheckpoint;
    this.previousEndedUnseen = details?.tollgateExecuting === true;
    this.latest = this.previous;
  }

  /**
   * Records `value` and heartbeats it at once (the SDK may delay sending it; see
   * docs/durability.md).
   */
  record(value: unknown): void {
    this.latest = toJsonValue(value);
    this.send();
  }

  /**
   * Marks `execute` as running (`true`) or as having thrown (`false`). The mark goes out before
   * `execute` starts (a first heartbeat is not throttled), so an attempt that never reports back
   * leaves it for the next attempt; a throw clears it, as the tool has said what happened.
   */
  markExecuting(executing: boolean): void {
    this.executing = executing;
    this.send();
  }

  /** What each heartbeat carries, so the latest checkpoint is never overwritten by an empty one. */
  details(): AttemptDetails | undefined {
    if (this.latest === undefined && this.executing === undefined) return undefined;
    return {
      ...(this.latest !== undefined ? { tollgateCheckpoint: this.latest } : {}),
      ...(this.executing === true ? { tollgateExecuting: true as const } : {}),
    };
  }

  private send(): void {
    // A local activity cannot heartbeat: its checkpoints and marks stay within the attempt.
    if (!this.context.info.isLocal) this.context.heartbeat(this.details());
  }
}
