import type { PendingToolCall } from '../common/run-types.js';
import type { ChunkLog } from './chunk-log.js';
import type { JudgedRun } from './decision-judge.js';
import { publicView, requestChunk, type Decision, type WaitingCall } from './waiting-call.js';

/**
 * The run's calls that wait for a decision, and the decisions that arrived for them. A call waits
 * until a decision settles it or its deadline expires it; a decision stays in the mailbox until
 * the call's wait takes it. This is what the decision judge reads of a run.
 */
export class WaitingCalls implements JudgedRun {
  private readonly calls = new Map<string, WaitingCall>();
  /** Decisions not yet taken by their waiting call, by tool call id. */
  private readonly decisions = new Map<string, Decision>();
  /** Every call that ever got a decision, so a second one is refused. */
  readonly decided = new Set<string>();
  /** Calls whose approval deadline passed. */
  readonly expired = new Set<string>();
  /** The run has closed: nothing waits any more and no decision is taken. */
  closed = false;
  private sequence = 0;

  constructor(
    readonly runId: string,
    readonly agentId: string,
    private readonly log: ChunkLog,
  ) {}

  get waiting(): ReadonlyMap<string, WaitingCall> {
    return this.calls;
  }

  /** Request order of the next call that starts to wait. */
  nextSequence(): number {
    return ++this.sequence;
  }

  /** Adds a waiting call (or shows it again, updated) and puts its request on the stream. */
  show(call: WaitingCall): void {
    this.calls.set(call.toolCallId, call);
    const request = requestChunk(call);
    this.log.emit(request.type, request.payload);
  }

  /** The call stops waiting without a decision (its child run ended, or stopped showing it). */
  remove(toolCallId: string): void {
    this.calls.delete(toolCallId);
  }

  /**
   * A decision settles the call. A routed call's decision travels down to its child run, so
   * nothing here waits to take it.
   */
  settle(call: WaitingCall, decision: Decision): void {
    this.calls.delete(call.toolCallId);
    this.decided.add(call.toolCallId);
    if (!call.route) this.decisions.set(call.toolCallId, decision);
  }

  /** The call's deadline passed before a decision. */
  expire(toolCallId: string): void {
    this.calls.delete(toolCallId);
    this.expired.add(toolCallId);
  }

  hasDecision(toolCallId: string): boolean {
    return this.decisions.has(toolCallId);
  }

  /** Takes the decision of a call once it has arrived. */
  takeDecision(toolCallId: string): Decision | undefined {
    const decision = this.decisions.get(toolCallId);
    this.decisions.delete(toolCallId);
    return decision;
  }

  /** The most recently requested waiting call, of one kind of wait if given. */
  latestWaiting(kind?: WaitingCall['kind']): WaitingCall | undefined {
    let latest: WaitingCall | undefined;
    for (const call of this.calls.values()) {
      if (kind !== undefined && call.kind !== kind) continue;
      if (!latest || call.sequence > latest.sequence) latest = call;
    }
    return latest;
  }

  /** The waiting calls in request order. */
  inOrder(): WaitingCall[] {
    return [...this.calls.values()].sort((a, b) => a.sequence - b.sequence);
  }

  pendingToolCalls(): PendingToolCall[] {
    return this.inOrder().map(publicView);
  }

  /** Some waiting call waits for an approval (not only for resume data). */
  awaitsApproval(): boolean {
    return [...this.calls.values()].some((call) => call.kind === 'approve');
  }

  close(): void {
    this.closed = true;
    this.calls.clear();
  }
}
