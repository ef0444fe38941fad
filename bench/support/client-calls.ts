import type { Client } from '@temporalio/client';

/** One call a client made to Temporal's workflow service, with its monotonic start and end. */
export interface ClientCall {
  method: string;
  startMs: number;
  /** NaN until the call answers. */
  endMs: number;
}

/**
 * Records every call made through `client.workflowService` from now on, in order; the caller may
 * empty the array between phases.
 */
export function recordCalls(client: Client): ClientCall[] {
  const calls: ClientCall[] = [];
  const service = client.workflowService as unknown as Record<string, unknown>;
  // Generated services carry their methods on the prototype, reflected ones on the instance.
  const names = new Set([
    ...Object.getOwnPropertyNames(service),
    ...Object.getOwnPropertyNames(Object.getPrototypeOf(service)),
  ]);
  for (const method of names) {
    const original = service[method];
    if (method === 'constructor' || typeof original !== 'function') continue;
    service[method] = (...args: unknown[]) => {
      const call: ClientCall = { method, startMs: performance.now(), endMs: NaN };
      calls.push(call);
      const answer = (original as (...a: unknown[]) => unknown).apply(service, args);
      if (answer instanceof Promise)
        void answer.then(
          () => (call.endMs = performance.now()),
          () => (call.endMs = performance.now()),
        );
      else call.endMs = call.startMs;
      return answer;
    };
  }
  return calls;
}
