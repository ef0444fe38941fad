/**
 * Where a call's Slack message was posted, kept durably without a store of its own: the notifier
 * activity answers the message's channel and timestamp, Temporal records that answer in the
 * run's history, and a later notice of the same call (reminder, escalation, hand-off, expiry)
 * reads it back from there, on whichever worker runs it (docs/slack.md "Where the message is kept").
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ChannelNoticeInput } from '../common/channel-types.js';
import { pendingToolCallsQuery } from '../common/messages.js';
import type { SlackPost } from '../channels/post-slack-notice.js';

const NOTICE_ACTIVITY = 'sendChannelNotice';

/**
 * The latest Slack post of `notice`'s call to its target in this run, as the run's history
 * recorded it; undefined when no notice of the call was posted there yet.
 */
export async function findSlackPost(
  client: Client,
  notice: ChannelNoticeInput,
): Promise<SlackPost | undefined> {
  const execution = Context.current().info.workflowExecution;
  if (!execution) return undefined;
  const { workflowId, runId } = execution;
  const { events } = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const ofCall = new Set<string>();
  let found: SlackPost | undefined;
  for (const event of events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === NOTICE_ACTIVITY) {
      const input = decode(scheduled.input?.payloads?.[0]) as
        Partial<ChannelNoticeInput> | undefined;
      if (input?.toolCallId === notice.toolCallId && input.target === notice.target) {
        ofCall.add(String(event.eventId));
      }
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed && ofCall.has(String(completed.scheduledEventId))) {
      const post = decode(completed.result?.payloads?.[0]) as Partial<SlackPost> | undefined;
      if (typeof post?.channel === 'string' && typeof post.ts === 'string') {
        found = { channel: post.channel, ts: post.ts };
      }
    }
  }
  return found;
}

/**
 * Whether the notice's call still waits: a reminder retried past a decision made in Slack must
 * not put the buttons back over the outcome the server wrote.
 */
export async function callStillWaits(client: Client, notice: ChannelNoticeInput): Promise<boolean> {
  const execution = Context.current().info.workflowExecution;
  if (!execution) return true;
  const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
  const pending = await handle.query(pendingToolCallsQuery);
  return pending.some((call) => call.toolCallId === notice.toolCallId);
}

function decode(
  payload: Parameters<typeof defaultPayloadConverter.fromPayload>[0] | undefined,
): unknown {
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload(payload);
  } catch {
    return undefined;
  }
}
