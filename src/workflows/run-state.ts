import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import {
  addUsage,
  EMPTY_OBJECT_SCHEMA,
  makeChunk,
  ZERO_USAGE,
  type Chunk,
  type ChunkPayloads,
  type ChunkSlice,
  type ChunkType,
  type ToolCallRef,
  type Usage,
} from '../common/chunks.js';
import type { JsonValue } from '../common/json.js';
import type {
  AppliedDecision,
  DecidedBy,
  DecisionKind,
  ModelToolCall,
  PendingToolCall,
} from '../common/run-types.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import type { RunStatus } from '../common/wire.js';
import { currentDetails } from './current-details.js';

/** A call waiting for a decision, with what the workflow needs to match it. */
export interface WaitingCall extends PendingToolCall {
  kind: 'approve' | 'resume';
  /** Request order, to find "the most recently requested" call. */
  sequence: number;
}

export interface Decision {
  kind: DecisionKind;
  reason?: string;
  decidedBy?: DecidedBy;
  resumeData?: JsonValue;
}

/** A decision that was refused on the signal path: kept for audit, without effect. */
export interface RejectedDecision {
  kind: DecisionKind;
  code: string;
  message: string;
}

/**
 * Everything a run knows, rebuilt by replay: the chunk log, the conversation, the calls that wait
 * and the decisions taken. It lives only in workflow memory; history is the durable copy.
 */
export class RunState {
  readonly chunks: Chunk[] = [];
  readonly messages: JsonValue[] = [];
  readonly waiting = new Map<string, WaitingCall>();
  /** Decisions not yet consumed by their waiting call, by tool call id. */
  readonly decisions = new Map<string, Decision>();
  /** Every call that ever got a decision, so a second one is refused. */
  readonly decided = new Set<string>();
  readonly rejected: RejectedDecision[] = [];
  usage: Usage = ZERO_USAGE;
  closed = false;
  private running = 0;
  private sequence = 0;
  private idleAnnounced = false;

  constructor(readonly runId: string) {}

  emit<T extends ChunkType>(type: T, payload: ChunkPayloads[T]): void {
    this.chunks.push(makeChunk(this.runId, type, payload));
  }

  /**
   * Up to `limit` chunks from `offset`, and no more than about `maxBytes` of JSON (at least one
   * chunk), so a query answer stays well under gRPC's message limit.
   */
  slice(offset: number, limit: number, maxBytes = 1_000_000): ChunkSlice {
    const start = Math.max(0, Math.min(offset, this.chunks.length));
    let end = start;
    let bytes = 0;
    while (end < this.chunks.length && end - start < limit && (end === start || bytes < maxBytes)) {
      bytes += JSON.stringify(this.chunks[end]).length;
      end++;
    }
    return {
      chunks: this.chunks.slice(start, end),
      offset: start,
      total: this.chunks.length,
      closed: this.closed,
    };
  }

  addUsage(usage: Usage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** Parks a call until a decision of `kind` arrives, and shows it on the stream. */
  wait(
    call: ModelToolCall,
    kind: WaitingCall['kind'],
    extra: { resumeSchema?: string; suspendPayload?: JsonValue },
  ): void {
    const resumeSchema = extra.resumeSchema ?? EMPTY_OBJECT_SCHEMA;
    const waiting: WaitingCall = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: call.args,
      fingerprint: call.fingerprint,
      requiresApproval: kind === 'approve',
      requestedAt: new Date(Date.now()).toISOString(),
      kind,
      sequence: ++this.sequence,
      resumeSchema,
      ...(extra.suspendPayload !== undefined ? { suspendPayload: extra.suspendPayload } : {}),
    };
    this.waiting.set(call.toolCallId, waiting);
    const ref: ToolCallRef = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: call.args,
    };
    if (kind === 'approve') {
      this.emit('tool-call-approval', { ...ref, fingerprint: call.fingerprint, resumeSchema });
    } else {
      this.emit('tool-call-suspended', {
        ...ref,
        suspendPayload: extra.suspendPayload ?? null,
        resumeSchema,
      });
    }
  }

  /** Applies an accepted decision: the call stops waiting and the run is running again. */
  apply(call: WaitingCall, decision: Decision): AppliedDecision {
    this.waiting.delete(call.toolCallId);
    this.decided.add(call.toolCallId);
    this.decisions.set(call.toolCallId, decision);
    this.idleAnnounced = false;
    this.setStatus('running');
    const verb = { approve: 'approved', decline: 'declined', resume: 'resumed' } as const;
    return {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      decision: verb[decision.kind],
      offset: this.chunks.length,
    };
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
    for (const call of this.waiting.values()) {
      if (kind !== undefined && call.kind !== kind) continue;
      if (!latest || call.sequence > latest.sequence) latest = call;
    }
    return latest;
  }

  pendingToolCalls(): PendingToolCall[] {
    return [...this.waiting.values()]
      .sort((a, b) => a.sequence - b.sequence)
      .map(({ kind: _kind, sequence: _sequence, ...pending }) => pending);
  }

  toolStarted(): void {
    this.running++;
  }

  toolFinished(): void {
    this.running--;
    this.announceIdle();
  }

  /**
   * When nothing runs and calls wait, the stream of the current stretch ends with a `suspended`
   * finish, and Temporal UI shows the run as waiting. Announced once per idle stretch.
   */
  announceIdle(): void {
    if (this.running > 0 || this.waiting.size === 0 || this.idleAnnounced) return;
    this.idleAnnounced = true;
    const approvals = [...this.waiting.values()].some((call) => call.kind === 'approve');
    this.setStatus(approvals ? 'awaiting-approval' : 'suspended');
    this.emit('finish', { finishReason: 'suspended', usage: this.usage });
  }

  /** Keeps the search attributes and Temporal UI's current details in step with the run. */
  setStatus(status: RunStatus): void {
    const waiting = [...this.waiting.values()].sort((a, b) => a.sequence - b.sequence);
    const pendingTools = [...new Set(waiting.map((call) => call.toolName))];
    upsertSearchAttributes([
      { key: SA_KEYS.status, value: status },
      { key: SA_KEYS.pendingTools, value: pendingTools.length > 0 ? pendingTools : null },
    ]);
    setCurrentDetails(currentDetails(status, waiting));
  }
}
