import { log } from '@temporalio/workflow';
import type { ChannelNoticeInput, ChannelNoticeKind } from '../common/channel-types.js';
import type { ModelToolCall } from '../common/run-types.js';
import type { ApprovalRules } from '../common/approval-rules.js';
import { sendChannelNotice } from './activity-calls.js';
import type { ToolRunContext } from './tool-run-context.js';
import { isPatched } from './patch-markers.js';
import { CHANNELS_PATCH } from './patch-ids.js';

/** Posts notices about one waiting call to the channels of the run's agent. */
export interface ChannelNotices {
  /** Reminders to the channels, ms, when the channels ask for them. */
  remindEveryMs?: number;
  post(
    kind: ChannelNoticeKind,
    extra?: Pick<ChannelNoticeInput, 'waitedMs' | 'onTimeout' | 'approvers' | 'reassigned'>,
  ): void;
}

/**
 * The notices of a call that starts to wait, or none when the agent has no channels (its
 * manifest, recorded when the run started, says). Runs recorded before channels existed ask no
 * patch and replay as before. Each notice is one activity per webhook, scheduled once per call
 * and kind in the run's history: a restart neither loses nor repeats it. Posting never holds up
 * the wait; a notice that cannot be delivered is logged.
 */
export function channelNotices(
  context: ToolRunContext,
  call: ModelToolCall,
  rules: ApprovalRules,
  times: { requestedAt: number; expiresAt: number | undefined },
): ChannelNotices | undefined {
  const channels = context.manifest.channels;
  if (!channels || channels.targets.length === 0 || !isPatched(CHANNELS_PATCH)) return undefined;
  // Reminders, escalations and hand-offs are numbered in their notice ids: `/reminder/2`.
  const counts: Partial<Record<ChannelNoticeKind, number>> = {};
  return {
    ...(channels.remindEveryMs !== undefined ? { remindEveryMs: channels.remindEveryMs } : {}),
    post(kind, extra = {}) {
      const counted = kind !== 'request' && kind !== 'expired';
      const count = counted ? `/${(counts[kind] = (counts[kind] ?? 0) + 1)}` : '';
      for (const target of channels.targets) {
        const notice: ChannelNoticeInput = {
          target,
          kind,
          noticeId: `${context.state.runId}/${call.toolCallId}/${kind}${count}`,
          agentId: context.manifest.agentId,
          runId: context.state.runId,
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          ...(call.toolId !== undefined ? { toolId: call.toolId } : {}),
          args: call.args,
          fingerprint: call.fingerprint,
          requestedAt: new Date(times.requestedAt).toISOString(),
          ...(times.expiresAt !== undefined
            ? { expiresAt: new Date(times.expiresAt).toISOString() }
            : {}),
          ...(rules.approvers ? { approvers: rules.approvers } : {}),
          ...(rules.quorum !== undefined ? { quorum: rules.quorum } : {}),
          ...extra,
        };
        sendChannelNotice(notice, context.state.agentQueue).catch((error: unknown) =>
          log.warn('Channel notice could not be delivered', {
            target,
            noticeId: notice.noticeId,
            error: String(error),
          }),
        );
      }
    },
  };
}
