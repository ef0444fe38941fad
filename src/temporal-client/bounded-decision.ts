import type { Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { TollgateError } from '../common/errors.js';
import { sendUpdate } from './send-update.js';

/**
 * Sends a decision update and waits at most `waitMs` for the run to confirm it. When the wait
 * runs out the update is cancelled on this side and the call rejects with
 * `DECISION_NOT_CONFIRMED`: Temporal may still hold the update, but the run refuses it after
 * `input.deadline`.
 */
export async function sendDecisionWithin<Result, Input extends { deadline?: string }>(
  client: Client,
  runId: string,
  update: UpdateDefinition<Result, [Input]>,
  input: Input & { deadline: string },
  waitMs: number,
): Promise<Result> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(notConfirmed(runId, input.deadline, waitMs));
    }, waitMs);
  });
  const sent = client.connection.withAbortSignal(controller.signal, () =>
    sendUpdate(client, runId, update, [input], controller.signal),
  );
  // The cancelled update rejects after the timeout has answered; nobody waits for it any more.
  sent.catch(() => undefined);
  try {
    return await Promise.race([sent, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function notConfirmed(runId: string, deadline: string, waitMs: number): TollgateError {
  return new TollgateError(
    'DECISION_NOT_CONFIRMED',
    `Run ${runId} did not confirm the decision within ${waitMs} ms (its worker is slow or restarting); it may still apply until ${deadline} and is refused after that, so check the run before deciding again.`,
  );
}
