/** Reading the patch markers a run's history recorded. */
import type proto from '@temporalio/proto';

type History = proto.temporal.api.history.v1.IHistory;

/** The ids of the patches a history recorded (markers named `core_patch`), in order. */
export function patchesOf(history: History): string[] {
  return (history.events ?? []).flatMap((event) => {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    return (marker.details?.['patch-data']?.payloads ?? []).map(
      (payload) => (JSON.parse(new TextDecoder().decode(payload.data!)) as { id: string }).id,
    );
  });
}

/** How many search attribute upserts of `TemporalChangeVersion` (one per patch marker) it has. */
export function changeVersionUpserts(history: History): number {
  return (history.events ?? []).filter(
    (event) =>
      event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.[
        'TemporalChangeVersion'
      ] !== undefined,
  ).length;
}
