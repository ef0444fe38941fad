/**
 * `patchMarkers: 'one'` (docs/workflow-changes.md "One marker for new runs"): a run records one
 * patch marker instead of one per patch (and describes its agent locally), behaves the same, and a
 * fresh worker replays it.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { isTollgateError, Tollgate } from '../src/index.js';
import { ONE_MARKER_2_PATCH, ONE_MARKER_PATCH } from '../src/workflows/patch-markers.js';
import { chunksOf, fleetHosts, gatedTestAgent, uniqueQueue } from './support/harness.js';
import { changeVersionUpserts, patchesOf } from './support/patch-markers.js';

describe('patchMarkers', () => {
  const queue = uniqueQueue('patch-markers');
  const fleet = fleetHosts('patch-markers');
  afterAll(() => fleet.closeAll());

  it("'one': a parked run records one marker, survives a new worker, and runs its tool once", async () => {
    const first = gatedTestAgent('marker-agent');
    const worker = await fleet.host([first.agent], queue);
    const one = fleet.own(new Tollgate({ temporal: { taskQueue: queue }, patchMarkers: 'one' }));
    const each = fleet.own(new Tollgate({ temporal: { taskQueue: queue } }));

    const stream = await one.getAgent('marker-agent').stream('Delete rec-1');
    expect((await chunksOf(stream)).at(-1)).toMatchObject({
      payload: { finishReason: 'suspended' },
    });
    const beside = await each.getAgent('marker-agent').stream('Delete rec-1');
    await chunksOf(beside);

    // The worker that ran both goes; a fresh one replays them from history to finish them.
    await worker.shutdown();
    const second = gatedTestAgent('marker-agent');
    await fleet.host([second.agent], queue);
    for (const runId of [stream.runId, beside.runId]) {
      const approved = await one.getAgent('marker-agent').approveToolCall({ runId });
      expect(await approved.finishReason).toBe('stop');
    }
    expect(first.executions).toHaveLength(0);
    expect(second.executions).toHaveLength(2);

    const client = await one.client();
    const oneHistory = await client.workflow.getHandle(stream.runId).fetchHistory();
    // The newest one marker only: it stands for the local describe's patch too.
    expect(patchesOf(oneHistory)).toEqual([ONE_MARKER_2_PATCH]);
    expect(changeVersionUpserts(oneHistory)).toBe(1);

    const eachHistory = await client.workflow.getHandle(beside.runId).fetchHistory();
    expect(patchesOf(eachHistory)).not.toContain(ONE_MARKER_PATCH);
    expect(patchesOf(eachHistory)).not.toContain(ONE_MARKER_2_PATCH);
    expect(patchesOf(eachHistory).length).toBeGreaterThanOrEqual(5);
    expect(changeVersionUpserts(eachHistory)).toBe(patchesOf(eachHistory).length);
    // The same work, fewer events: two for each marker left out (the run records one), and five for
    // the describe (its activity's three events and the workflow task it woke became one marker).
    const saved = 2 * (patchesOf(eachHistory).length - 1) + 5;
    expect(oneHistory.events!.length).toBe(eachHistory.events!.length - saved);
  });

  it('refuses anything but each or one, naming the option', () => {
    let caught: unknown;
    try {
      new Tollgate({ patchMarkers: 'none' as never });
    } catch (error) {
      caught = error;
    }
    expect(isTollgateError(caught) && caught.code).toBe('INVALID_OPTIONS');
    expect((caught as Error).message).toMatch(/patchMarkers/);
  });
});
