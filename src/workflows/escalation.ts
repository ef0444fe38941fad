import type { EscalationLevel } from '../common/approval-rules.js';
import type { ModelToolCall, Reassignment } from '../common/run-types.js';
import { auditRef } from './audit-log.js';
import { reassign } from './reassignment.js';
import type { RunState } from './run-state.js';

/**
 * The escalation levels of one waiting call (docs/escalation.md), fired in order, each at most
 * once: a level waits for the ones before it. Time is workflow time, so a replay fires the same
 * levels at the same points; the approval wait sleeps on a durable timer until `nextAt()`.
 */
export class EscalationLadder {
  private fired = 0;

  constructor(
    private readonly levels: readonly EscalationLevel[],
    private readonly requestedAt: number,
  ) {}

  /** Whether the call's rules escalate at all (runs without escalation keep their old path). */
  get empty(): boolean {
    return this.levels.length === 0;
  }

  /** When the next level fires by time; `Infinity` when it waits for reminders, or none is left. */
  nextAt(): number {
    const next = this.levels[this.fired];
    return next?.afterMs !== undefined ? this.requestedAt + next.afterMs : Infinity;
  }

  /**
   * Fires every level now due, in order, after `reminders` reminders: the call's approvers become
   * the level's, with an `escalation` audit entry. Answers the changes made, for the channels.
   */
  fireDue(state: RunState, call: ModelToolCall, reminders: number): Reassignment[] {
    const fired: Reassignment[] = [];
    for (let next = this.levels[this.fired]; next && this.isDue(next, reminders);) {
      const waiting = state.calls.waiting.get(call.toolCallId);
      if (!waiting) break;
      const level = ++this.fired;
      const waitedMs = Date.now() - this.requestedAt;
      state.audit.add({
        type: 'escalation',
        ...auditRef(call),
        level,
        ...(waiting.approvers ? { from: waiting.approvers } : {}),
        to: next.to,
        waitedMs,
        reminders,
      });
      const change: Reassignment = {
        kind: 'escalation',
        to: next.to,
        at: new Date(Date.now()).toISOString(),
        level,
      };
      reassign(state, waiting, change);
      fired.push(change);
      next = this.levels[this.fired];
    }
    return fired;
  }

  private isDue(level: EscalationLevel, reminders: number): boolean {
    return level.afterMs !== undefined
      ? Date.now() >= this.requestedAt + level.afterMs
      : reminders >= (level.afterReminders ?? Infinity);
  }
}
