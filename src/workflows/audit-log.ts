import type { AuditEntry } from '../common/run-types.js';

type Without<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/**
 * The run's audit trail: gate evaluations, requests, decisions (accepted and refused), expiries
 * and reminders. Built by the workflow from its own history, so a query answers it for running
 * and closed runs alike; timestamps are workflow time.
 */
export class AuditLog {
  readonly entries: AuditEntry[] = [];

  add(entry: Without<AuditEntry, 'at'>): void {
    this.entries.push({ ...entry, at: new Date(Date.now()).toISOString() } as AuditEntry);
  }
}

/** The call an entry is about: its id, its name and, where it differs, its tool's id. */
export function auditRef(call: { toolCallId: string; toolName: string; toolId?: string }): {
  toolCallId: string;
  toolName: string;
  toolId?: string;
} {
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    ...(call.toolId !== undefined ? { toolId: call.toolId } : {}),
  };
}
