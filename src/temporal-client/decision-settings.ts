import { parseDuration } from '../common/approval-rules.js';
import { TollgateError } from '../common/errors.js';

/** How long decisions wait, and how they are bounded (`new Tollgate({ decisions })`). */
export interface DecisionSettings {
  /**
   * How long a decision call waits for the run to confirm it, ms or `'10 seconds'`. When it runs
   * out the call rejects with `DECISION_NOT_CONFIRMED`. Per call: the decision's `wait` option.
   * Default 20 s: after a worker crash Temporal holds a run's next task for its old worker up to
   * 10 s (the sticky queue), then a restarted worker may replay the run.
   */
  wait?: number | string;
  /**
   * Added to the wait to make the decision's deadline (now + wait + margin): covers the clock
   * difference between this process and the Temporal server. ms or `'5 seconds'`. Default 5 s.
   */
  deadlineMargin?: number | string;
  /**
   * A worker counts as polling a task queue when Temporal saw it poll within this time. An idle
   * worker re-polls about every 60 s (Temporal's long poll), so keep it above that. ms or
   * `'75 seconds'`. Default 75 s.
   */
  workerSeenWithin?: number | string;
}

export interface CheckedDecisionSettings {
  waitMs: number;
  deadlineMarginMs: number;
  workerSeenWithinMs: number;
}

const DEFAULTS: CheckedDecisionSettings = {
  waitMs: 20_000,
  deadlineMarginMs: 5_000,
  workerSeenWithinMs: 75_000,
};

/** Checks `new Tollgate({ decisions })`; throws `INVALID_OPTIONS` naming the field. */
export function checkDecisionSettings(
  settings: DecisionSettings | undefined,
): CheckedDecisionSettings {
  if (settings === undefined) return DEFAULTS;
  if (typeof settings !== 'object' || settings === null) {
    throw new TollgateError('INVALID_OPTIONS', 'decisions must be an object of settings.');
  }
  const unknown = Object.keys(settings).find((key) => !(key in FIELDS));
  if (unknown !== undefined) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `Unknown setting decisions.${unknown}; known: ${Object.keys(FIELDS).join(', ')}.`,
    );
  }
  const read = (field: keyof DecisionSettings): number => {
    const value = settings[field];
    return value === undefined
      ? DEFAULTS[FIELDS[field]]
      : parseDuration(value, `decisions.${field}`);
  };
  return {
    waitMs: read('wait'),
    deadlineMarginMs: read('deadlineMargin'),
    workerSeenWithinMs: read('workerSeenWithin'),
  };
}

const FIELDS: Record<keyof DecisionSettings, keyof CheckedDecisionSettings> = {
  wait: 'waitMs',
  deadlineMargin: 'deadlineMarginMs',
  workerSeenWithin: 'workerSeenWithinMs',
};
