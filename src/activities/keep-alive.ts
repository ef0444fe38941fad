import { Context } from '@temporalio/activity';

/**
 * Heartbeats while `body` runs, so a worker that dies mid-activity is noticed after the heartbeat
 * timeout rather than after the whole attempt timeout. The SDK throttles the actual calls. Each
 * heartbeat carries `details()`, which replace the details of the previous one.
 */
export async function whileHeartbeating<T>(
  body: () => Promise<T>,
  details: () => unknown = () => undefined,
): Promise<T> {
  const context = Context.current();
  const timeoutMs = context.info.heartbeatTimeoutMs;
  if (!timeoutMs) return body();
  const timer = setInterval(
    () => context.heartbeat(details()),
    Math.max(100, Math.floor(timeoutMs / 3)),
  );
  try {
    return await body();
  } finally {
    clearInterval(timer);
  }
}
