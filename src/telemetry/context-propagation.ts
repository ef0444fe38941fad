import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

let users = 0;
let installed: { contextManager: boolean; propagator: boolean } | undefined;

/**
 * Makes trace context flow in this process: through `await`s (a context manager) and into
 * Temporal headers (the W3C propagator), so a run's client call, workflow and activities share one
 * trace. A process that already set up OpenTelemetry (e.g. with the Node SDK) keeps its own; only
 * what this installed is removed again, when the last user releases it.
 */
export function useContextPropagation(): () => void {
  if (users++ === 0) {
    installed = {
      contextManager: context.setGlobalContextManager(
        new AsyncLocalStorageContextManager().enable(),
      ),
      propagator: propagation.setGlobalPropagator(new W3CTraceContextPropagator()),
    };
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--users > 0 || !installed) return;
    if (installed.contextManager) context.disable();
    if (installed.propagator) propagation.disable();
    installed = undefined;
  };
}
