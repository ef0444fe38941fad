import { refOf } from '../common/chunks.js';
import type { ChildStatus } from '../common/run-types.js';
import type { ChunkLog } from './chunk-log.js';
import type { RunActivity } from './run-activity.js';
import type { WaitingCalls } from './waiting-calls.js';

/** A delegation in progress: a sub-agent's child run and the version of its last report. */
interface ChildRun {
  agentId: string;
  version: number;
}

/**
 * The mirror of the run's sub-agent runs (SPEC §7), kept by delegation: the calls a child run
 * waits on are shown in this run, so an approver at the top sees and decides them.
 */
export class ChildRuns {
  private readonly children = new Map<string, ChildRun>();

  constructor(
    private readonly agentId: string,
    private readonly calls: WaitingCalls,
    private readonly log: ChunkLog,
    private readonly activity: RunActivity,
  ) {}

  /** A delegation started: its child run's waiting calls will be mirrored here. */
  started(toolCallId: string, agentId: string): void {
    this.children.set(toolCallId, { agentId, version: 0 });
    this.activity.toolStarted();
  }

  /** A delegation ended; any of its calls still shown as waiting gets `answer` as its error. */
  finished(toolCallId: string, answer: string): void {
    if (!this.children.delete(toolCallId)) return;
    this.activity.childIdle(toolCallId, false);
    for (const [id, call] of this.calls.waiting) {
      if (call.route?.child !== toolCallId) continue;
      this.calls.remove(id);
      this.log.emit('tool-error', { ...refOf(call), toolCallId: id, error: answer });
    }
    this.activity.toolFinished();
  }

  /**
   * Takes a child run's report: its waiting calls appear here under `<delegation id>/<id>`, with
   * the inner tool's name and arguments and the delegation path, so an approver sees what runs.
   */
  mirror(status: ChildStatus): void {
    const child = this.children.get(status.toolCallId);
    if (!child || status.version <= child.version) return;
    child.version = status.version;
    this.activity.childIdle(status.toolCallId, status.idle);
    const incoming = new Map(
      status.waiting.map((call) => [`${status.toolCallId}/${call.toolCallId}`, call]),
    );
    for (const [id, call] of this.calls.waiting) {
      if (call.route?.child === status.toolCallId && !incoming.has(id)) this.calls.remove(id);
    }
    for (const [id, inner] of incoming) {
      if (this.calls.waiting.has(id) || this.calls.decided.has(id)) continue;
      this.calls.show({
        ...inner,
        toolCallId: id,
        path: [this.agentId, ...(inner.path ?? [child.agentId])],
        kind: inner.requiresApproval ? 'approve' : 'resume',
        sequence: this.calls.nextSequence(),
        route: { child: status.toolCallId, innerId: inner.toolCallId },
      });
    }
    if (!status.idle) this.activity.resumed();
    this.activity.announceIdle();
  }
}
