import { patched, workflowInfo } from '@temporalio/workflow';
import type { JsonValue } from '../common/json.js';
import { ONE_MARKER_MEMO, PATCH_MARKERS_MEMO_KEY } from '../common/wire.js';
import {
  AGENT_QUEUES_PATCH,
  CHANNELS_PATCH,
  COMPACTION_PATCH,
  CONTINUE_AS_NEW_PATCH,
  DEADLINE_PATCH,
  DECLINE_ENDS_STRETCH_PATCH,
  DEFINITION_REGATE_PATCH,
  GRANTS_PATCH,
  HANDLERS_FINISHED_PATCH,
  HERE_FIRST_PATCH,
  PUBLISH_ON_CHANGE_PATCH,
  REQUEST_TIGHTENS_PATCH,
  STRETCHES_PATCH,
  TOOL_KEYS_PATCH,
  UPDATES_AFTER_EVENTS_PATCH,
  GRANTS_NOTICES_PATCH,
  LOCAL_DESCRIBE_PATCH,
  LOCAL_REFUSAL_PATCH,
} from './patch-ids.js';

/**
 * The one marker a run started with `patchMarkers: 'one'` records instead of the markers of the
 * patches it stands for (docs/workflow-changes.md "One marker for new runs"). A new run records
 * the newest; the older ones stay, for the runs that recorded them.
 */
export const ONE_MARKER_PATCH = 'tollgate-one-marker';
export const ONE_MARKER_2_PATCH = 'tollgate-one-marker-2';

/**
 * Every patch `ONE_MARKER_PATCH` stands for: exactly those that existed when it was added. A patch
 * added later is not listed, so a run with this marker records its own marker for it (listing it
 * would make runs started before it take its new branch on replay). Tracing's patch is not a
 * change of code but of the worker (a run records it when it starts traced), so no marker stands
 * for it.
 */
const ONE_MARKER_COVERS: ReadonlySet<string> = new Set([
  UPDATES_AFTER_EVENTS_PATCH,
  TOOL_KEYS_PATCH,
  HANDLERS_FINISHED_PATCH,
  REQUEST_TIGHTENS_PATCH,
  AGENT_QUEUES_PATCH,
  HERE_FIRST_PATCH,
  PUBLISH_ON_CHANGE_PATCH,
  DECLINE_ENDS_STRETCH_PATCH,
  CONTINUE_AS_NEW_PATCH,
  CHANNELS_PATCH,
  DEFINITION_REGATE_PATCH,
  STRETCHES_PATCH,
  DEADLINE_PATCH,
  COMPACTION_PATCH,
  GRANTS_PATCH,
  GRANTS_NOTICES_PATCH,
]);

/** `ONE_MARKER_2_PATCH` stands for those and for the two patches added after them. */
const ONE_MARKER_2_COVERS: ReadonlySet<string> = new Set([
  ...ONE_MARKER_COVERS,
  LOCAL_DESCRIBE_PATCH,
  LOCAL_REFUSAL_PATCH,
]);

const NONE: ReadonlySet<string> = new Set();

/**
 * The patches this run's one marker stands for (none without one). Module state is the run's own:
 * the SDK gives each run its own copy of the bundle's modules. Decided by the first `isPatched()`,
 * which every agent run makes as it starts (update-order.ts), so a run never changes its answer
 * half-way. A new run asks the newest marker, which records it; on replay, a run that recorded an
 * older one is told no, and asks that one.
 */
let covered: ReadonlySet<string> | undefined;

function oneMarkerCovers(): ReadonlySet<string> {
  covered ??=
    workflowInfo().memo?.[PATCH_MARKERS_MEMO_KEY] !== 'one'
      ? NONE
      : patched(ONE_MARKER_2_PATCH)
        ? ONE_MARKER_2_COVERS
        : patched(ONE_MARKER_PATCH)
          ? ONE_MARKER_COVERS
          : NONE;
  return covered;
}

/**
 * `patched(id)` for Tollgate's workflow code: true at once for a patch the run's one marker stands
 * for, else Temporal's own answer (which records the patch's marker in a new run).
 */
export function isPatched(id: string): boolean {
  return oneMarkerCovers().has(id) || patched(id);
}

/**
 * Whether this run records one marker. A run that does starts its sub-agent runs with
 * `describeHere`, as a one-marker runtime starts its runs (`describeChoice` in start-run.ts).
 */
export function recordsOneMarker(): boolean {
  return covered !== undefined && covered !== NONE;
}

/**
 * The memo a run passes on to the runs it starts (a sub-agent's, its own next after a
 * continue-as-new): those start on the same workers, so they record one marker too.
 */
export function oneMarkerMemo(): { memo: Record<string, JsonValue> } | Record<string, never> {
  return recordsOneMarker() ? { memo: ONE_MARKER_MEMO } : {};
}
