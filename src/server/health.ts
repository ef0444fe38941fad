import type { Tollgate } from '../runtime.js';

/** How long the health check waits for Temporal before calling it down, ms. */
export const HEALTH_TIMEOUT_MS = 3000;

/**
 * True when the Temporal frontend answers a cheap call (`GetSystemInfo`) within `timeoutMs`,
 * through the runtime's own client connection.
 */
export async function temporalAnswers(
  tollgate: Tollgate,
  timeoutMs = HEALTH_TIMEOUT_MS,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('Temporal did not answer in time.')), timeoutMs);
  });
  try {
    const client = await Promise.race([tollgate.client(), timeout]);
    await Promise.race([
      client.connection.withDeadline(deadline, () => client.workflowService.getSystemInfo({})),
      timeout,
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
