import { parseDeadline } from '../common/decision-deadline.js';
import type { DecisionInput } from '../common/run-types.js';

type Checked = { ok: true; value: DecisionInput } | { ok: false; message: string };

const FIELDS = new Set([
  'toolCallId',
  'fingerprint',
  'reason',
  'decidedBy',
  'resumeData',
  'args',
  'amount',
  'agentId',
  'deadline',
  'channel',
  'grant',
  'runGrant',
]);

/**
 * Checks the shape of a decision as it arrives from any client (another language, the CLI, a
 * hand-typed `--input`): the message names the first bad field.
 */
export function checkDecisionInput(raw: unknown): Checked {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, message: `A decision must be a JSON object, not ${describe(raw)}.` };
  }
  const input = raw as Record<string, unknown>;
  const unknownField = Object.keys(input).find((key) => !FIELDS.has(key));
  if (unknownField !== undefined) {
    return {
      ok: false,
      message: `Unknown decision field "${unknownField}"; allowed: ${[...FIELDS].join(', ')}.`,
    };
  }
  for (const field of ['toolCallId', 'fingerprint', 'reason', 'agentId'] as const) {
    const value = input[field];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0)) {
      return {
        ok: false,
        message: `Decision field "${field}" must be a non-empty string, not ${describe(value)}.`,
      };
    }
  }
  if (input.deadline !== undefined && parseDeadline(input.deadline) === undefined) {
    return {
      ok: false,
      message: `Decision field "deadline" must be an ISO-8601 instant with a zone, e.g. "2026-05-01T12:00:05Z", not ${describe(input.deadline)}.`,
    };
  }
  // 'slack' is new with docs/slack.md: only decisions carrying it reach the new value, and an
  // older worker refuses them here, before history, so no run's replay changes.
  if (input.channel !== undefined && input.channel !== 'link' && input.channel !== 'slack') {
    return {
      ok: false,
      message: `Decision field "channel" may only be "link" or "slack", not ${describe(input.channel)}.`,
    };
  }
  const grant = input.grant as Record<string, unknown> | undefined;
  if (
    grant !== undefined &&
    (typeof grant !== 'object' ||
      grant === null ||
      typeof grant.grantId !== 'string' ||
      grant.grantId === '' ||
      typeof grant.expiresAt !== 'string')
  ) {
    return {
      ok: false,
      message: 'Decision field "grant" must be { grantId: string, expiresAt: string }.',
    };
  }
  if (input.runGrant !== undefined && input.runGrant !== true) {
    return {
      ok: false,
      message: `Decision field "runGrant" may only be true, not ${describe(input.runGrant)}.`,
    };
  }
  const decidedBy = input.decidedBy;
  if (decidedBy !== undefined) {
    const by = decidedBy as Record<string, unknown>;
    if (
      typeof decidedBy !== 'object' ||
      decidedBy === null ||
      typeof by.id !== 'string' ||
      by.id === ''
    ) {
      return {
        ok: false,
        message: 'Decision field "decidedBy" must be { id: string, roles?: string[] }.',
      };
    }
    if (
      by.roles !== undefined &&
      !(Array.isArray(by.roles) && by.roles.every((r) => typeof r === 'string'))
    ) {
      return {
        ok: false,
        message: 'Decision field "decidedBy.roles" must be an array of strings.',
      };
    }
  }
  return { ok: true, value: input as DecisionInput };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value) : `a ${typeof value}`;
}
