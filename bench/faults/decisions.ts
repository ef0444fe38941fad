/**
 * Races of decisions on one waiting call, over every channel Tollgate has: the update of the
 * Tollgate client, the raw `approve`/`decline` signal any Temporal client can send, and the HTTP
 * routes. What each caller was told is kept, and checked at the end against the run's audit
 * trail, which records every applied decision and every refused signal with its `decidedBy`.
 */
import type { Client } from '@temporalio/client';
import {
  isTollgateError,
  SIGNALS,
  toolCallFingerprint,
  type AgentClient,
  type AuditEntry,
  type DecisionInput,
  type PendingToolCall,
} from '../../src/index.js';
import { isTollgateHttpError, type RemoteAgent } from '../../src/http-client/index.js';
import { within } from '../support/concurrency.js';

export const ATTEMPT_KINDS = {
  'update-approve': 'approve, update (Tollgate client approveToolCall)',
  'update-decline': 'decline, update (Tollgate client declineToolCall)',
  'signal-approve': 'approve, raw Temporal signal `approve`',
  'signal-decline': 'decline, raw Temporal signal `decline`',
  'http-approve': 'approve, HTTP approve-tool-call',
  'http-decline': 'decline, HTTP decline-tool-call',
  'update-stale': 'approve with a stale fingerprint, update',
  settle: 'approve, update, to settle a call no racer decided',
} as const;
export type AttemptKind = keyof typeof ATTEMPT_KINDS;

export const SCENARIOS = [
  'duplicate approvals',
  'approve vs decline',
  'two approvers at once',
  'everything at once',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** HTTP identities: two approvers and one who declines. */
export const HTTP_IDENTITIES = ['alice', 'bob', 'carol'] as const;
export type HttpIdentity = (typeof HTTP_IDENTITIES)[number];

export interface AttemptSpec {
  kind: AttemptKind;
  /** `decidedBy.id`: unique per call, so the audit trail tells attempts apart. */
  who: string;
}

export interface Attempt extends AttemptSpec {
  runId: string;
  toolCallId: string;
  /** What the caller was told: applied, refused (with a code), sent (signals), or an error. */
  said: 'accepted' | 'refused' | 'sent' | 'error';
  code?: string;
  /** The refusal's message, or the error the caller got. */
  error?: string;
  /** `Date.now()` when the caller got its answer. */
  answeredAt?: number;
  /** What the run's audit trail says, filled in at the end. */
  audit?: 'applied' | 'refused' | 'absent';
  auditCode?: string;
}

export interface Deciders {
  agent: AgentClient;
  client(): Promise<Client>;
  http: Record<HttpIdentity, RemoteAgent>;
  /** Where the streams that decisions return are followed (bounded) in the background. */
  follow(stream: { finishReason: Promise<unknown> }, abort?: AbortController): void;
}

const decision = (kind: AttemptKind): 'approve' | 'decline' =>
  kind.endsWith('decline') ? 'decline' : 'approve';

/** The attempts of a scenario, in a shuffled order (they are all sent at once anyway). */
export function planRace(scenario: Scenario, random: () => number): AttemptSpec[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  let specs: AttemptSpec[];
  switch (scenario) {
    case 'duplicate approvals':
      specs = [
        { kind: 'update-approve', who: 'update-approve' },
        { kind: 'signal-approve', who: 'signal-approve' },
        { kind: 'http-approve', who: 'alice' },
      ];
      break;
    case 'approve vs decline': {
      const approve = pick(['update-approve', 'signal-approve', 'http-approve'] as const);
      const decline = pick(['update-decline', 'signal-decline', 'http-decline'] as const);
      specs = [
        { kind: approve, who: approve === 'http-approve' ? 'alice' : approve },
        { kind: decline, who: decline === 'http-decline' ? 'carol' : decline },
      ];
      break;
    }
    case 'two approvers at once':
      specs = [
        { kind: 'http-approve', who: 'alice' },
        { kind: 'http-approve', who: 'bob' },
        { kind: 'update-stale', who: 'update-stale' },
      ];
      break;
    case 'everything at once':
      specs = [
        { kind: 'update-approve', who: 'update-approve' },
        { kind: 'signal-approve', who: 'signal-approve' },
        { kind: 'http-approve', who: 'alice' },
        { kind: 'http-approve', who: 'bob' },
        { kind: 'update-decline', who: 'update-decline' },
        { kind: 'signal-decline', who: 'signal-decline' },
        { kind: 'http-decline', who: 'carol' },
        { kind: 'update-stale', who: 'update-stale' },
      ];
      break;
  }
  return specs
    .map((spec) => ({ spec, order: random() }))
    .sort((a, b) => a.order - b.order)
    .map(({ spec }) => spec);
}

/** Sends one decision; never throws: the outcome is in the returned attempt. */
export async function sendAttempt(
  deciders: Deciders,
  spec: AttemptSpec,
  runId: string,
  call: PendingToolCall,
  timeoutMs: number,
): Promise<Attempt> {
  const attempt: Attempt = { ...spec, runId, toolCallId: call.toolCallId, said: 'error' };
  const stale = toolCallFingerprint(call.toolName, { id: 'not-what-was-reviewed' });
  const target = { runId, toolCallId: call.toolCallId };
  const decidedBy = { id: spec.who, roles: ['fault-bench'] };
  const abort = new AbortController();
  try {
    switch (spec.kind) {
      case 'update-approve':
      case 'settle':
      case 'update-stale': {
        const fingerprint = spec.kind === 'update-stale' ? stale : call.fingerprint;
        const stream = await within(
          deciders.agent.approveToolCall({ ...target, fingerprint, decidedBy }),
          timeoutMs,
          'the update',
        );
        deciders.follow(stream);
        attempt.said = 'accepted';
        break;
      }
      case 'update-decline': {
        const reason = 'declined by the fault bench';
        const stream = await within(
          deciders.agent.declineToolCall({ ...target, reason, decidedBy }),
          timeoutMs,
          'the update',
        );
        deciders.follow(stream);
        attempt.said = 'accepted';
        break;
      }
      case 'signal-approve':
      case 'signal-decline': {
        const input: DecisionInput = {
          ...(spec.kind === 'signal-approve' ? { fingerprint: call.fingerprint } : {}),
          toolCallId: call.toolCallId,
          decidedBy,
        };
        const handle = (await deciders.client()).workflow.getHandle(runId);
        await within(
          handle.signal(spec.kind === 'signal-approve' ? SIGNALS.approve : SIGNALS.decline, input),
          timeoutMs,
          'the signal',
        );
        attempt.said = 'sent';
        break;
      }
      case 'http-approve':
      case 'http-decline': {
        const remote = deciders.http[spec.who as HttpIdentity];
        const stream = await within(
          spec.kind === 'http-approve'
            ? remote.approveToolCall({
                ...target,
                fingerprint: call.fingerprint,
                signal: abort.signal,
              })
            : remote.declineToolCall({ ...target, signal: abort.signal }),
          timeoutMs,
          'the HTTP decision',
        );
        deciders.follow(stream, abort);
        attempt.said = 'accepted';
        break;
      }
    }
  } catch (error) {
    abort.abort();
    if (isTollgateError(error)) {
      attempt.said = 'refused';
      attempt.code = error.code;
      attempt.error = error.message;
    } else if (isTollgateHttpError(error) && [404, 409, 422].includes(error.status)) {
      attempt.said = 'refused';
      attempt.code = error.code;
      attempt.error = error.message;
    } else {
      attempt.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
  }
  attempt.answeredAt = Date.now();
  return attempt;
}

/** Refusals a race explains: someone else decided first, the run finished, a stale fingerprint. */
export const EXPECTED_REFUSALS = [
  'TOOL_CALL_ALREADY_DECIDED',
  'RUN_FINISHED',
  'FINGERPRINT_MISMATCH',
];

/** Fills in `audit` of the attempts of one run from its audit trail. */
export function resolveFromAudit(attempts: Attempt[], entries: AuditEntry[]): void {
  for (const attempt of attempts) {
    const mine = entries.filter(
      (entry) =>
        entry.toolCallId === attempt.toolCallId &&
        (entry.type === 'decision' || entry.type === 'rejected-decision') &&
        entry.decidedBy?.id === attempt.who,
    );
    const applied = mine.find((entry) => entry.type === 'decision');
    const refused = mine.find((entry) => entry.type === 'rejected-decision');
    if (applied) attempt.audit = 'applied';
    else if (refused && refused.type === 'rejected-decision') {
      attempt.audit = 'refused';
      attempt.auditCode = refused.code;
    } else attempt.audit = 'absent';
  }
}

/** Applied decisions of a call in the audit trail: exactly one is right. */
export function appliedDecisions(
  entries: AuditEntry[],
  toolCallId: string,
): Array<Extract<AuditEntry, { type: 'decision' }>> {
  return entries.filter(
    (entry): entry is Extract<AuditEntry, { type: 'decision' }> =>
      entry.type === 'decision' && entry.toolCallId === toolCallId,
  );
}

export function decisionOf(kind: AttemptKind): 'approve' | 'decline' {
  return decision(kind);
}
