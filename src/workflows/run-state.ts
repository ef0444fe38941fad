import { addUsage, ZERO_USAGE, type FinishReason, type Usage } from '../common/chunks.js';
import type { JsonValue } from '../common/json.js';
import type {
  AppliedDecision,
  DecidedBy,
  DecisionChannel,
  ModelToolCall,
} from '../common/run-types.js';
import { toolCallFingerprint } from '../common/fingerprint.js';
import { AuditLog, auditRef } from './audit-log.js';
import { ChildRuns } from './child-runs.js';
import { ChunkLog } from './chunk-log.js';
import { RunActivity } from './run-activity.js';
import { StatusPublisher } from './status-publication.js';
import { WaitingCalls } from './waiting-calls.js';
import { waitingCall, type Decision, type WaitDetails, type WaitingCall } from './waiting-call.js';
import type { RunGrant } from './run-grants.js';

const VERBS = { approve: 'approved', decline: 'declined', resume: 'resumed' } as const;

/**
 * Everything a run knows, rebuilt by replay; it lives only in workflow memory, history is the
 * durable copy. Each part has an owner: the chunk log, the waiting calls and their decisions,
 * the audit trail, idle accounting, the status shown outside, the mirror of child runs. What is
 * left here is how a call's wait, decision, expiry and the run's close move them together.
 */
export class RunState {
  readonly log: ChunkLog;
  readonly calls: WaitingCalls;
  readonly audit = new AuditLog();
  readonly status: StatusPublisher;
  readonly activity: RunActivity;
  readonly children: ChildRuns;
  readonly messages: JsonValue[] = [];
  usage: Usage = ZERO_USAGE;
  /** The agent's default for auto-resume, known once its manifest is read. */
  autoResume = false;
  /** The task queue of the agent's activities (`agentQueueOfRun`); undefined: the run's own. */
  agentQueue: string | undefined;
  /** Agent work tries the run's own queue first (`AgentRoute`, `onAgentHost`). */
  hereFirst = false;
  /** Live approval rules (docs/live-policies.md): from the manifest, then each change told. */
  readonly live: Record<string, boolean> = {};
  /** Grants for this run only, given with approvals (`DecisionInput.runGrant`). */
  readonly runGrants: RunGrant[] = [];

  constructor(
    readonly runId: string,
    readonly agentId: string,
  ) {
    this.log = new ChunkLog(runId);
    this.calls = new WaitingCalls(runId, agentId, this.log);
    this.status = new StatusPublisher(this.calls, () => this.activity.idle);
    this.activity = new RunActivity(this.calls, this.log, this.status, () => this.usage);
    this.children = new ChildRuns(agentId, this.calls, this.log, this.activity);
  }

  addUsage(usage: Usage): void {
    this.usage = addUsage(this.usage, usage);
  }

  /** Parks a call until a decision of `kind` arrives, and shows it on the stream. */
  wait(call: ModelToolCall, kind: WaitingCall['kind'], extra: WaitDetails): void {
    const waiting = waitingCall(call, kind, extra, this.calls.nextSequence());
    this.calls.show(waiting);
    this.audit.add({
      type: 'request',
      ...auditRef(call),
      kind: kind === 'approve' ? 'approval' : 'suspension',
      args: call.args,
      fingerprint: call.fingerprint,
      ...(waiting.expiresAt ? { expiresAt: waiting.expiresAt } : {}),
    });
  }

  /** Applies an accepted decision: the call stops waiting and the run is running again. */
  apply(call: WaitingCall, decision: Decision, channel: DecisionChannel): AppliedDecision {
    this.log.relayEnd();
    const approvals = call.approvals ?? [];
    if (decision.kind === 'approve' && call.quorum && approvals.length + 1 < call.quorum) {
      return this.recordApproval(call, decision, channel);
    }
    this.auditDecision(call, decision, channel);
    this.calls.settle(call, decision);
    this.activity.resumed();
    return {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      decision: VERBS[decision.kind],
      offset: this.log.nextOffset,
    };
  }

  /** One approval of a quorum: the call keeps waiting, and the stream shows the approvals so far. */
  private recordApproval(
    call: WaitingCall,
    decision: Decision,
    channel: DecisionChannel,
  ): AppliedDecision {
    const offset = this.log.nextOffset;
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
    this.calls.show(call);
    if (this.activity.idle) {
      this.log.emit('finish', { finishReason: 'suspended', usage: this.usage });
    }
    this.status.publish('awaiting-approval');
    return {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      decision: 'approval-recorded',
      offset,
    };
  }

  private auditDecision(call: WaitingCall, decision: Decision, channel: DecisionChannel): void {
    const grant = decision.grant;
    if (grant) {
      this.audit.add({
        type: 'grant-used',
        ...auditRef(call),
        grantId: grant.grantId,
        ...(decision.decidedBy ? { grantedBy: decision.decidedBy } : {}),
        fingerprint: call.fingerprint,
        expiresAt: grant.expiresAt,
      });
    }
    this.audit.add({
      type: 'decision',
      ...auditRef(call),
      decision: VERBS[decision.kind],
      channel,
      fingerprint: call.fingerprint,
      ...(decision.decidedBy ? { decidedBy: decision.decidedBy } : {}),
      ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      ...(decision.amount !== undefined ? { amount: decision.amount } : {}),
      ...(decision.args !== undefined
        ? {
            editedArgs: decision.args,
            editedFingerprint: toolCallFingerprint(call.toolName, decision.args),
          }
        : {}),
      ...(grant ? { grantId: grant.grantId } : {}),
    });
  }

  /**
   * A live rule that no longer asks for approval releases a waiting call: approved, recorded as
   * the policy's doing and not a person's (docs/live-policies.md).
   */
  releaseByPolicy(call: WaitingCall, change: { changedBy?: DecidedBy; reason?: string }): void {
    this.log.relayEnd();
    this.audit.add({ type: 'policy-release', ...auditRef(call), ...change });
    this.audit.add({
      type: 'decision',
      ...auditRef(call),
      decision: 'approved',
      channel: 'policy',
      fingerprint: call.fingerprint,
    });
    this.calls.settle(call, { kind: 'approve' });
    this.activity.resumed();
  }

  /** The call's deadline passed before a decision: it stops waiting and is recorded as expired. */
  expire(call: ModelToolCall, onTimeout: 'decline' | 'approve' | 'fail'): void {
    this.calls.expire(call.toolCallId);
    this.audit.add({ type: 'expiry', ...auditRef(call), onTimeout });
    this.activity.resumed();
  }

  /** The run ends: its log closes with `finishReason`, nothing waits any more. */
  close(finishReason: FinishReason, status: 'completed' | 'failed' | 'cancelled'): void {
    this.log.emit('finish', { finishReason, usage: this.usage });
    this.log.closed = true;
    this.calls.close();
    this.status.publish(status);
  }
}
