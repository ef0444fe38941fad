import type { HealthResponse } from '../common/http-api.js';
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

/**
 * `/api/health`: whether Temporal answers, and how many workers poll the runtime's task queue.
 * No worker does not make the API unhealthy: workers restart while the API can still answer
 * (decisions with `WORKER_UNAVAILABLE`), and a load balancer should not drain it for that.
 */
export async function health(tollgate: Tollgate): Promise<HealthResponse> {
  if (!(await temporalAnswers(tollgate))) return { ok: false, temporal: false };
  try {
    const client = await tollgate.client();
    const workers = await client.connection.withDeadline(Date.now() + HEALTH_TIMEOUT_MS, () =>
      tollgate.workerPollers(),
    );
    return { ok: true, temporal: true, workers };
  } catch {
    return { ok: true, temporal: true };
  }
}
