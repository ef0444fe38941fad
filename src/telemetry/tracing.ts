import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { ClientInterceptors } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { TollgateError } from '../common/errors.js';
import { useContextPropagation } from './context-propagation.js';
import { WithoutQuerySpans } from './query-filter.js';

/** The workflow-side interceptors; bundled only into a traced worker's workflow code. */
export const TRACING_WORKFLOW_MODULES: readonly string[] = [
  fileURLToPath(new URL('../workflows/otel-interceptors.js', import.meta.url)),
];

/** OpenTelemetry tracing of runs, model steps and tool calls. Off unless given. */
export interface TracingOptions {
  /** Where finished spans go: an OTLP exporter in production, `InMemorySpanExporter` in tests. */
  exporter: SpanExporter;
  /** `service.name` of every span. Default `tollgate`. */
  serviceName?: string;
  /**
   * `true`: export spans in batches (for production). `false`: export each span as it ends (for
   * tests and debugging). Default `true`.
   */
  batch?: boolean;
  /**
   * Also export spans of queries (`QueryWorkflow:*`, `HandleQuery:*`). Streams read runs by query
   * many times a second, so these are left out by default. Default `false`.
   */
  traceQueries?: boolean;
}

/** What a traced worker and client are built with. */
export interface Tracing {
  /**
   * For `bundleWorkflowCode({ workflowInterceptorModules })`: a span per run (`RunWorkflow:agentRun`)
   * and per activity or child run it starts, and the trace context passed on to them.
   */
  readonly workflowInterceptorModules: string[];
  /** For `Worker.create({ interceptors })`: a span per activity execution (`RunActivity:modelStep`). */
  readonly workerInterceptors: WorkerInterceptors;
  /** For `Worker.create({ sinks })`: carries the spans made in the workflow sandbox to the exporter. */
  readonly sinks: InjectedSinks<OpenTelemetrySinks>;
  /** For `new Client({ interceptors })`: spans for starting, signalling and updating runs. */
  readonly clientInterceptors: ClientInterceptors;
  /** Exports every span that has ended. */
  forceFlush(): Promise<void>;
  /** Exports what is left and stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * Tracing with the Temporal OpenTelemetry interceptors. Spans of one run (the client call that
 * started it, the workflow, its activities and sub-agent runs) share a trace. Nothing is installed
 * in the process until this is called.
 */
export function createTracing(options: TracingOptions): Tracing {
  if (typeof options?.exporter?.export !== 'function') {
    throw new TollgateError(
      'INVALID_OPTIONS',
      'telemetry needs an OpenTelemetry SpanExporter as `exporter`, e.g. { exporter: new OTLPTraceExporter() }.',
    );
  }
  const resource = new Resource({ 'service.name': options.serviceName ?? 'tollgate' });
  const exporting =
    options.batch === false
      ? new SimpleSpanProcessor(options.exporter)
      : new BatchSpanProcessor(options.exporter);
  const processor = options.traceQueries ? exporting : new WithoutQuerySpans(exporting);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  const tracer = provider.getTracer('tollgate');
  const release = useContextPropagation();
  return {
    workflowInterceptorModules: [...TRACING_WORKFLOW_MODULES],
    workerInterceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(processor, resource) },
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer })] },
    forceFlush: () => provider.forceFlush(),
    shutdown: async () => {
      try {
        await provider.shutdown();
      } finally {
        release();
      }
    },
  };
}
