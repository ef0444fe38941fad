/**
 * The deadline a decision carries (`DecisionInput.deadline`): an ISO-8601 instant after which the
 * run refuses it. Workflow-safe: the workflow judges it with workflow time.
 */

/** ISO-8601 with a date, a time and a zone (`Z` or `±hh:mm`), e.g. `2026-05-01T12:00:05Z`. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** The deadline in ms since the epoch, or undefined when `value` is not an ISO-8601 instant. */
export function parseDeadline(value: unknown): number | undefined {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Why a decision with `deadline` arriving at `nowMs` must be refused, or undefined when it is in
 * time (or carries no deadline). A decision exactly at its deadline is still in time.
 */
export function deadlineProblem(deadline: string | undefined, nowMs: number): string | undefined {
  if (deadline === undefined) return undefined;
  const ms = parseDeadline(deadline);
  if (ms === undefined || nowMs <= ms) return undefined;
  return `The decision reached the run at ${new Date(nowMs).toISOString()}, ${nowMs - ms} ms after its deadline ${deadline}; it was not applied, send a new decision if it still stands.`;
}
