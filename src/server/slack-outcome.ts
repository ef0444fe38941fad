/**
 * The outcome a Slack message shows once its call waits no more, read from the call's run: a
 * click on a message whose call was decided elsewhere (the inbox, a link, the API) rewrites it
 * with this. The rendering is `channels/slack-outcome.ts`, shared with the worker's notices.
 */
import type { ButtonCall } from '../channels/slack-buttons.js';
import {
  recordedEndOutcome,
  type RecordedEnd,
  type SlackOutcome,
} from '../channels/slack-outcome.js';
import type { AuditEntry } from '../common/run-types.js';
import type { Tollgate } from '../runtime.js';

export { decidedOutcome, type SlackOutcome } from '../channels/slack-outcome.js';

/** The call's outcome from its run's audit; a plain "no longer waiting" when it has none. */
export async function recordedOutcome(tollgate: Tollgate, call: ButtonCall): Promise<SlackOutcome> {
  const audit = await tollgate
    .getAgent(call.agentId)
    .getAuditTrail(call.runId)
    .catch((): AuditEntry[] => []);
  const last = audit
    .filter((entry) => 'toolCallId' in entry && entry.toolCallId === call.toolCallId)
    .reverse()
    .find((entry): entry is RecordedEnd => entry.type === 'decision' || entry.type === 'expiry');
  return recordedEndOutcome(call, last);
}
