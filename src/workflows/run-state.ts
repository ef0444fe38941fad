import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import {
  addUsage,
  makeChunk,
  refOf,
  ZERO_USAGE,
  type Chunk,
  type ChunkPayloads,
  type ChunkSlice,
  type ChunkType,
  type Usage,
} from '../common/chunks.js';
import type { JsonValue } from '../common/json.js';
import type {
  AppliedDecision,
  ChildStatus,
  DecisionChannel,
  ModelToolCall,
  PendingToolCall,
} from '../common/run-types.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import type { RunStatus } from '../common/wire.js';
import { toolCallFingerprint } from '../common/fingerprint.js';
import { AuditLog, auditRef } from './audit-log.js';
import {
  publicView,
  requestChunk,
  waitingCall,
  type Decision,
  type WaitDetails,
  type WaitingCall,
} from './waiting-call.js';
import { currentDetails } from './current-details.js';

/** A delegation in progress: a sub-agent's child run and what it last reported. */
interface ChildRun {
  agentId: string;
  version: number;
  idle: boolean;
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
  /** Calls whose approval deadline passed. */
  readonly expired = new Set<string>();
  readonly audit = new AuditLog();
  usage: Usage = ZERO_USAGE;
  closed = false;
  /** The agent's default for auto-resume, known once its manifest is read. */
  autoResume = false;
  /**
   * Offset of `chunks[0]` in the run's log: 0 in a run's first execution, the offset where the
   * previous one ended after a continue-as-new. Offsets clients hold are offsets in the whole log.
   */
  chunkBase = 0;
  /** Temporal run id of the execution before this one, which answers for offsets below the base. */
  previousExecution: string | undefined;
  /** Reports a sub-agent's run has sent its parent, over all its executions. */
  parentReports = 0;
  /** Called whenever what the run waits on changes; a sub-agent's run reports to its parent. */
  onWaitingChanged: ((status: { idle: boolean; waiting: PendingToolCall[] }) => void) | undefined;
  private readonly children = new Map<string, ChildRun>();
  private running = 0;
  private sequence = 0;
  private idleAnnounced = false;

  constructor(
    readonly runId: string,
    readonly agentId: string,
  ) {}

  emit<T extends ChunkType>(type: T, payload: ChunkPayloads[T]): void {
    this.chunks.push(makeChunk(this.runId, type, payload));
  }

  /**
   * Up to `limit` chunks from `offset`, and no more than about `maxBytes` of JSON (at least one
   * chunk), so a query answer stays well under gRPC's message limit.
   */
  slice(offset: number, limit: number, maxBytes = 1_000_000): ChunkSlice {
    const start = Math.max(0, Math.min(offset - this.chunkBase, this.chunks.length));
    let end = start;
    let bytes = 0;
    while (end < this.chunks.length && end - start < limit && (end === start || bytes < maxBytes)) {
      bytes += JSON.stringify(this.chunks[end]).length;
      end++;
    }
    return {
      chunks: this.chunks.slice(start, end),
      offset: this.chunkBase + start,
      total: this.nextOffset,
      closed: this.closed,
      // Only executions after a continue-as-new say where their part of the log begins.
      ...(this.chunkBase > 0 ? { base: this.chunkBase } : {}),
      ...(this.previousExecution !== undefined && offset < this.chunkBase
        ? { previousExecution: this.previousExecution }
        : {}),
    };
  }

  /** Offset the next chunk of the run's log gets. */
  get nextOffset(): number {
    return this.chunkBase + this.chunks.length;
  }

  addUsage(usage: Usage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** Parks a call until a decision of `kind` arrives, and shows it on the stream. */
  wait(call: ModelToolCall, kind: WaitingCall['kind'], extra: WaitDetails): void {
    const waiting = waitingCall(call, kind, extra, ++this.sequence);
    this.show(waiting);
    this.audit.add({
      type: 'request',
      ...auditRef(call),
      kind: kind === 'approve' ? 'approval' : 'suspension',
      args: call.args,
      fingerprint: call.fingerprint,
      ...(waiting.expiresAt ? { expiresAt: waiting.expiresAt } : {}),
    });
  }

  /** Adds a waiting call and puts its request on the stream. */
  private show(waiting: WaitingCall): void {
    this.waiting.set(waiting.toolCallId, waiting);
    const { type, payload } = requestChunk(waiting);
    this.chunks.push({ type, payload, runId: this.runId, from: 'AGENT' } as Chunk);
  }

  /** A delegation started: its child run's waiting calls will be mirrored here. */
  childStarted(toolCallId: string, agentId: string): void {
    this.children.set(toolCallId, { agentId, version: 0, idle: false });
    this.toolStarted();
  }

  /** A delegation ended; any of its calls still shown as waiting gets `answer` as its error. */
  childFinished(toolCallId: string, answer: string): void {
    if (!this.children.delete(toolCallId)) return;
    for (const [id, call] of this.waiting) {
      if (call.route?.child !== toolCallId) continue;
      this.waiting.delete(id);
      this.emit('tool-error', { ...refOf(call), toolCallId: id, error: answer });
    }
    this.toolFinished();
  }

  /**
   * Takes a child run's report: its waiting calls appear here under `<delegation id>/<id>`, with
   * the inner tool's name and arguments and the delegation path, so an approver sees what runs.
   */
  mirror(status: ChildStatus): void {
    const child = this.children.get(status.toolCallId);
    if (!child || status.version <= child.version) return;
    child.version = status.version;
    child.idle = status.idle;
    const incoming = new Map(
      status.waiting.map((call) => [`${status.toolCallId}/${call.toolCallId}`, call]),
    );
    for (const [id, call] of this.waiting) {
      if (call.route?.child === status.toolCallId && !incoming.has(id)) this.waiting.delete(id);
    }
    for (const [id, inner] of incoming) {
      if (this.waiting.has(id) || this.decided.has(id)) continue;
      this.show({
        ...inner,
        toolCallId: id,
        path: [this.agentId, ...(inner.path ?? [child.agentId])],
        kind: inner.requiresApproval ? 'approve' : 'resume',
        sequence: ++this.sequence,
        route: { child: status.toolCallId, innerId: inner.toolCallId },
      });
    }
    if (!status.idle) {
      this.idleAnnounced = false;
      this.setStatus('running');
    }
    this.announceIdle();
  }

  /** Applies an accepted decision: the call stops waiting and the run is running again. */
  apply(call: WaitingCall, decision: Decision, channel: DecisionChannel): AppliedDecision {
    const approvals = call.approvals ?? [];
    if (decision.kind === 'approve' && call.quorum && approvals.length + 1 < call.quorum) {
      return this.recordApproval(call, decision, channel);
    }
    this.auditDecision(call, decision, channel);
    this.waiting.delete(call.toolCallId);
    this.decided.add(call.toolCallId);
    // A routed call's decision travels down to its child run; nothing here waits on it.
    if (!call.route) this.decisions.set(call.toolCallId, decision);
    this.idleAnnounced = false;
    this.setStatus('running');
    const verb = { approve: 'approved', decline: 'declined', resume: 'resumed' } as const;
    return {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      decision: verb[decision.kind],
      offset: this.nextOffset,
    };
  }

  /** One approval of a quorum: the call keeps waiting, and the stream shows the approvals so far. */
  private recordApproval(
    call: WaitingCall,
    decision: Decision,
    channel: DecisionChannel,
  ): AppliedDecision {
    const offset = this.nextOffset;
    const at = new Date(Date.now()).toISOString();
    call.approvals = [...(call.approvals ?? []), { id: decision.decidedBy!.id, at }];
    this.audit.add({
      type: 'decision',
      ...auditRef(call),
      decision: 'approval-recorded',
      channel,
      fingerprint: call.fingerprint,
      ...(decision.decidedBy ? { decidedBy: decision.decidedBy } : {}),
    });
    this.show(call);
    if (this.idle) this.emit('finish', { finishReason: 'suspended', usage: this.usage });
    this.setStatus('awaiting-approval');
    return {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      decision: 'approval-recorded',
      offset,
    };
  }

  private auditDecision(call: WaitingCall, decision: Decision, channel: DecisionChannel): void {
    const verb = { approve: 'approved', decline: 'declined', resume: 'resumed' } as const;
    this.audit.add({
      type: 'decision',
      ...auditRef(call),
      decision: verb[decision.kind],
      channel,
      fingerprint: call.fingerprint,
      ...(decision.decidedBy ? { decidedBy: decision.decidedBy } : {}),
      ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      ...(decision.args !== undefined
        ? {
            editedArgs: decision.args,
            editedFingerprint: toolCallFingerprint(call.toolName, decision.args),
          }
        : {}),
    });
  }

  /** The call's deadline passed before a decision: it stops waiting and is recorded as expired. */
  expire(call: ModelToolCall, onTimeout: 'decline' | 'approve' | 'fail'): void {
    this.waiting.delete(call.toolCallId);
    this.expired.add(call.toolCallId);
    this.audit.add({ type: 'expiry', ...auditRef(call), onTimeout });
    this.idleAnnounced = false;
    this.setStatus('running');
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
    return [...this.waiting.values()].sort((a, b) => a.sequence - b.sequence).map(publicView);
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
    if (!this.idle || this.idleAnnounced) return;
    this.idleAnnounced = true;
    const approvals = [...this.waiting.values()].some((call) => call.kind === 'approve');
    this.setStatus(approvals ? 'awaiting-approval' : 'suspended');
    this.emit('finish', { finishReason: 'suspended', usage: this.usage });
  }

  /** Calls wait and nothing runs, counting a child run that itself only waits as not running. */
  get idle(): boolean {
    const idleChildren = [...this.children.values()].filter((child) => child.idle).length;
    return this.running - idleChildren === 0 && this.waiting.size > 0;
  }

  /** Keeps the search attributes and Temporal UI's current details in step with the run. */
  setStatus(status: RunStatus): void {
    const waiting = [...this.waiting.values()].sort((a, b) => a.sequence - b.sequence);
    // Searchable by the name and, where it differs, by the tool's id.
    const pendingTools = [
      ...new Set(waiting.flatMap((call) => [call.toolName, ...(call.toolId ? [call.toolId] : [])])),
    ];
    upsertSearchAttributes([
      { key: SA_KEYS.status, value: status },
      { key: SA_KEYS.pendingTools, value: pendingTools.length > 0 ? pendingTools : null },
    ]);
    setCurrentDetails(currentDetails(status, waiting));
    this.onWaitingChanged?.({ idle: this.idle, waiting: this.pendingToolCalls() });
  }
}
