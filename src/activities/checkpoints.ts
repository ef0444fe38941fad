import { Context } from '@temporalio/activity';
import { toJsonValue, type JsonValue } from '../common/json.js';

/** Heartbeat details of a tool attempt: the call's latest checkpoint, if any. */
interface CheckpointDetails {
  tollgateCheckpoint: JsonValue;
}

/**
 * A tool call's progress marker, kept in the activity's heartbeat details, which Temporal hands to
 * the next attempt of the same call (after a throw, a timeout or a worker crash).
 */
export class Checkpoints {
  /** The latest checkpoint of any earlier attempt of this call. */
  readonly previous: JsonValue | undefined;
  private latest: JsonValue | undefined;

  constructor(private readonly context = Context.current()) {
    const details = context.info.heartbeatDetails as Partial<CheckpointDetails> | undefined;
    this.previous = details?.tollgateCheckpoint;
    this.latest = this.previous;
  }

  /**
   * Records `value` and heartbeats it at once (the SDK may delay sending it; see
   * docs/durability.md).
   */
  record(value: unknown): void {
    this.latest = toJsonValue(value);
    // A local activity cannot heartbeat: its checkpoints stay within the attempt.
    if (!this.context.info.isLocal) this.context.heartbeat(this.details());
  }

  /** What each heartbeat carries, so the latest checkpoint is never overwritten by an empty one. */
  details(): CheckpointDetails | undefined {
    return this.latest === undefined ? undefined : { tollgateCheckpoint: this.latest };
  }
}
