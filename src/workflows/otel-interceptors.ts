/**
 * Workflow interceptors for OpenTelemetry tracing: a span for each run, and trace context on the
 * activities and sub-agent runs it starts. Not part of the default bundle: `src/telemetry/` adds
 * this module only to the workflow code of a traced worker.
 *
 * The interceptors change the order in which an update's completion and the commands after it are
 * recorded, so a run must always be replayed with the interceptors it ran with. A run records the
 * patch `tollgate-otel-tracing` when it starts traced; a run without it (one that started on an
 * untraced worker) stays untraced on a traced worker.
 */
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import {
  patched,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';

/** The patch a run records when it starts with tracing. */
export const TRACING_PATCH = 'tollgate-otel-tracing';

type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/**
 * An interceptor with the methods of `Interceptor` that passes every call straight on unless the
 * run is traced; the real interceptor is made on first traced use.
 */
function whenTraced<T extends object>(Interceptor: new () => T, traced: () => boolean): T {
  let instance: Record<string, Method> | undefined;
  const gate: Record<string, Method> = {};
  for (const name of Object.getOwnPropertyNames(Interceptor.prototype)) {
    if (name === 'constructor') continue;
    gate[name] = (input, next) => {
      if (!traced()) return next(input);
      instance ??= new Interceptor() as unknown as Record<string, Method>;
      return instance[name]!.call(instance, input, next);
    };
  }
  return gate as T;
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  let traced = false;
  const isTraced = () => traced;
  // Runs first: patches can be used once the workflow starts, before anything else happens.
  const decide: WorkflowInboundCallsInterceptor = {
    execute: (input, next) => {
      traced = patched(TRACING_PATCH);
      return next(input);
    },
  };
  return {
    inbound: [decide, whenTraced(OpenTelemetryInboundInterceptor, isTraced)],
    outbound: [whenTraced(OpenTelemetryOutboundInterceptor, isTraced)],
    internals: [whenTraced(OpenTelemetryInternalsInterceptor, isTraced)],
  };
};
