import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { z } from 'zod';
import { createTool, Tollgate } from '../src/index.js';
import { createTracing, TRACING_WORKFLOW_MODULES } from '../src/telemetry/tracing.js';
import { workflowBundle } from '../src/worker.js';
import { TRACING_PATCH } from '../src/workflows/otel-interceptors.js';

import { fixturesOf, GENERATIONS, readFixture } from './support/fixture-generations.js';
import { eventually, testAgent, uniqueQueue } from './support/harness.js';
import {
  AGENT_QUEUES_PATCH,
  HANDLERS_FINISHED_PATCH,
  HERE_FIRST_PATCH,
  REQUEST_TIGHTENS_PATCH,
  TOOL_KEYS_PATCH,
  UPDATES_AFTER_EVENTS_PATCH,
} from '../src/workflows/patch-ids.js';

const OTEL_GLOBALS = Symbol.for('opentelemetry.js.api.1');

/** Looks up `id` once, then answers with what the tool returned. */
function lookupAgent(id: string, lookups: string[]) {
  const lookup = createTool({
    id: 'lookup',
    inputSchema: z.object({ id: z.string() }),
    execute: async (input) => {
      lookups.push(input.id);
      return { found: input.id };
    },
  });
  return testAgent(id, [lookup], (prompt) =>
    prompt.at(-1)?.role === 'tool'
      ? { text: 'Found it.' }
      : { toolCalls: [{ toolName: 'lookup', args: { id: 'r1' } }] },
  ).agent;
}

/**
 * What tracing leaves in a run's history: the trace header on the start (`_tracer-data`) and the
 * patch markers the run recorded.
 */
async function tracesIn(tollgate: Tollgate, runId: string) {
  const history = await (await tollgate.client()).workflow.getHandle(runId).fetchHistory();
  const events = history.events ?? [];
  const fields = events[0]?.workflowExecutionStartedEventAttributes?.header?.fields;
  return {
    headers: Object.keys(fields ?? {}),
    patches: events.flatMap((e) => {
      const marker = e.markerRecordedEventAttributes;
      if (marker?.markerName !== 'core_patch') return [];
      const payload = marker.details?.['patch-data']?.payloads?.[0]?.data;
      return [(JSON.parse(Buffer.from(payload ?? []).toString()) as { id: string }).id];
    }),
  };
}

describe('OpenTelemetry tracing', () => {
  describe('off (the default)', () => {
    const lookups: string[] = [];
    let tollgate: Tollgate;
    beforeAll(async () => {
      tollgate = new Tollgate({
        agents: { plain: lookupAgent('plain-agent', lookups) },
        temporal: { taskQueue: uniqueQueue('telemetry-off') },
      });
      await tollgate.startWorker();
    });
    afterAll(async () => {
      await tollgate.shutdown();
    });

    it('installs nothing: no OpenTelemetry globals, no tracing code in the workflow bundle, no trace headers', async () => {
      const output = await tollgate.getAgent('plain-agent').generate('Find r1');
      expect(output.text).toBe('Found it.');
      expect(lookups).toEqual(['r1']);
      expect((globalThis as Record<symbol, unknown>)[OTEL_GLOBALS]).toBeUndefined();
      expect((await workflowBundle()).code).not.toContain('OpenTelemetryInboundInterceptor');
      expect(await tracesIn(tollgate, output.runId)).toEqual({
        headers: [],
        patches: [
          UPDATES_AFTER_EVENTS_PATCH,
          REQUEST_TIGHTENS_PATCH,
          AGENT_QUEUES_PATCH,
          HERE_FIRST_PATCH,
          TOOL_KEYS_PATCH,
          HANDLERS_FINISHED_PATCH,
        ],
      });
    });
  });

  describe('on', () => {
    const exporter = new InMemorySpanExporter();
    const lookups: string[] = [];
    let tollgate: Tollgate;
    beforeAll(async () => {
      tollgate = new Tollgate({
        agents: { traced: lookupAgent('traced-agent', lookups) },
        temporal: { taskQueue: uniqueQueue('telemetry-on') },
        telemetry: { exporter, serviceName: 'tollgate-test', batch: false },
      });
      await tollgate.startWorker();
    });
    afterAll(async () => {
      await tollgate.shutdown();
    });

    const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
    let tracedRunId = '';

    it('traces a run: the start, the workflow, its model steps and its tool call, in one trace, without query spans', async () => {
      const output = await tollgate.getAgent('traced-agent').generate('Find r1');
      tracedRunId = output.runId;
      expect(output.text).toBe('Found it.');
      expect(lookups).toEqual(['r1']);

      // Workflow spans reach the exporter through a sink once the run's last task completes.
      const spans = await eventually(async () => {
        const finished = exporter.getFinishedSpans();
        expect(named(finished, 'RunWorkflow:agentRun')).toHaveLength(1);
        expect(named(finished, 'RunActivity:executeTool')).toHaveLength(1);
        return finished;
      });
      const run = named(spans, 'RunWorkflow:agentRun')[0]!;
      const trace = run.spanContext().traceId;
      const inTrace = spans.filter((s) => s.spanContext().traceId === trace).map((s) => s.name);
      expect(inTrace).toEqual(
        expect.arrayContaining([
          'StartWorkflow:agentRun',
          'RunWorkflow:agentRun',
          'StartActivity:describeAgent',
          'RunActivity:describeAgent',
          'StartActivity:modelStep',
          'RunActivity:modelStep',
          'StartActivity:executeTool',
          'RunActivity:executeTool',
        ]),
      );
      expect(inTrace.filter((name) => name === 'RunActivity:modelStep')).toHaveLength(2);
      // Streams poll runs by query; those spans are left out unless `traceQueries` is set.
      expect(spans.map((s) => s.name).filter((name) => name.includes('Query'))).toEqual([]);

      const tool = named(spans, 'RunActivity:executeTool')[0]!;
      const scheduled = spans.find((s) => s.spanContext().spanId === tool.parentSpanId);
      expect(scheduled?.name).toBe('StartActivity:executeTool');
      expect(scheduled?.parentSpanId).toBe(run.spanContext().spanId);
      expect(run.resource.attributes['service.name']).toBe('tollgate-test');
      expect(tool.resource.attributes['service.name']).toBe('tollgate-test');
      // The patch keeps runs that started untraced untraced on this worker (see otel-interceptors).
      expect(await tracesIn(tollgate, output.runId)).toEqual({
        headers: ['_tracer-data'],
        patches: [
          UPDATES_AFTER_EVENTS_PATCH,
          TRACING_PATCH,
          REQUEST_TIGHTENS_PATCH,
          AGENT_QUEUES_PATCH,
          HERE_FIRST_PATCH,
          TOOL_KEYS_PATCH,
          HANDLERS_FINISHED_PATCH,
        ],
      });
    });

    it('replays a traced run only with the tracing interceptors, so turning tracing off is a workflow change', async () => {
      const history = await (
        await tollgate.client()
      ).workflow
        .getHandle(tracedRunId)
        .fetchHistory();
      const traced = await workflowBundle({ interceptorModules: [...TRACING_WORKFLOW_MODULES] });
      await expect(
        Worker.runReplayHistory({ workflowBundle: traced }, history, tracedRunId),
      ).resolves.toBeUndefined();
      await expect(
        Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, tracedRunId),
      ).rejects.toThrow(/tollgate-otel-tracing/);
    });
  });

  it('refuses telemetry options without an exporter, naming the fix', async () => {
    const tollgate = new Tollgate({
      agents: { bad: lookupAgent('bad-agent', []) },
      temporal: { taskQueue: uniqueQueue('telemetry-bad') },
      telemetry: {} as never,
    });
    await expect(tollgate.startWorker()).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('SpanExporter'),
    });
    await tollgate.shutdown();
  });

  it('keeps in-flight runs working when turned on: every recorded (untraced) history replays with the tracing interceptors', async () => {
    const tracing = createTracing({ exporter: new InMemorySpanExporter(), batch: false });
    try {
      const bundle = await workflowBundle({
        interceptorModules: tracing.workflowInterceptorModules,
      });
      expect(bundle.code).toContain('OpenTelemetryInboundInterceptor');
      const files = GENERATIONS.flatMap((generation) =>
        fixturesOf(generation).map((name) => [generation, name] as const),
      );
      expect(files.length).toBeGreaterThan(0);
      for (const [generation, name] of files) {
        const json = readFixture(generation, name);
        const workflowId = json.events[0]?.workflowExecutionStartedEventAttributes?.workflowId;
        await expect(
          Worker.runReplayHistory(
            { workflowBundle: bundle, sinks: tracing.sinks },
            historyFromJSON(json),
            workflowId,
          ),
        ).resolves.toBeUndefined();
      }
    } finally {
      await tracing.shutdown();
    }
  });
});
