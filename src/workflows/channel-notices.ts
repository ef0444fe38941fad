import { condition, log } from '@temporalio/workflow';
import type {
  ChannelNoticeInput,
  ChannelNoticeKind,
  NoticeOutcome,
} from '../common/channel-types.js';
import type { ModelToolCall } from '../common/run-types.js';
import type { ApprovalRules } from '../common/approval-rules.js';
import { sendChannelNotice } from './activity-calls.js';
import type { RunState } from './run-state.js';
import type { ToolRunContext } from './tool-run-context.js';
import { isPatched } from './patch-markers.js';
import { CHANNELS_PATCH, GRANTS_NOTICES_PATCH } from './patch-ids.js';

type NoticeExtra = 'waitedMs' | 'onTimeout' | 'approvers' | 'reassigned';

/** Posts notices about one waiting call to the channels of the run's agent. */
export interface ChannelNotices {
  /** Reminders to the channels, ms, when the channels ask for them. */
  remindEveryMs?: number;
  post(kind: ChannelNoticeKind, extra?: Pick<ChannelNoticeInput, NoticeExtra>): void;
  /**
   * The call was decided: its Slack messages show the outcome, unless a click in Slack decided
   * it (the server rewrote the message then). Each goes after the target's earlier notices of
   * the call have settled, so it is the last to rewrite the message.
   */
  decided(): void;
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
  // Each Slack target's notices of the call so far, settled (delivered or given up).
  const sent = new Map<string, Promise<unknown>>();
  const send = (notice: ChannelNoticeInput): Promise<unknown> => {
    const { target, noticeId } = notice;
    const delivery = sendChannelNotice(notice, context.state.agentQueue).catch((error: unknown) =>
      log.warn('Channel notice could not be delivered', { target, noticeId, error: String(error) }),
    );
    if (channels.slack?.includes(target))
      sent.set(target, Promise.all([sent.get(target), delivery]));
    return delivery;
  };
  const post = (
    kind: ChannelNoticeKind,
    extra: Pick<ChannelNoticeInput, NoticeExtra | 'outcome'> = {},
    targets = channels.targets,
  ) => {
    const counted = kind !== 'request' && kind !== 'expired' && kind !== 'decided';
    const count = counted ? `/${(counts[kind] = (counts[kind] ?? 0) + 1)}` : '';
    for (const target of targets) {
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
      if (kind !== 'decided') {
        void send(notice);
        continue;
      }
      // Scheduled once the earlier notices settle: the command comes when their results do.
      const earlier = sent.get(target) ?? Promise.resolve();
      awaited(
        context.state,
        earlier.then(() => send(notice)),
      );
    }
  };
  return {
    ...(channels.remindEveryMs !== undefined ? { remindEveryMs: channels.remindEveryMs } : {}),
    post: (kind, extra) => post(kind, extra),
    decided() {
      const slack = channels.slack ?? [];
      const outcome = slack.length > 0 ? recordedOutcome(context, call.toolCallId) : undefined;
      if (!outcome || outcome.channel === 'slack') return;
      if (!isPatched(GRANTS_NOTICES_PATCH)) return;
      post('decided', { outcome }, slack);
    },
  };
}

/**
 * Decided notices not settled yet, by run. A run completing right after a decision would leave
 * its notice undelivered (Temporal drops a closed run's activities), so it waits for them, a
 * little (`DECIDED_NOTICES_WAIT_MS`). Keyed by the run's state: nothing is shared between runs.
 */
const unsettled = new WeakMap<RunState, Set<Promise<unknown>>>();
/** Longest a completing run waits for its decided notices, ms; a slow Slack holds it no longer. */
export const DECIDED_NOTICES_WAIT_MS = 10_000;

function awaited(state: RunState, notice: Promise<unknown>): void {
  const pending = unsettled.get(state) ?? new Set();
  unsettled.set(state, pending);
  pending.add(notice);
  void notice.finally(() => pending.delete(notice));
}

/** Before a run completes: its decided notices delivered, or given up after a short wait. */
export async function decidedNoticesSettled(state: RunState): Promise<void> {
  const pending = unsettled.get(state);
  if (!pending || pending.size === 0) return;
  await condition(() => pending.size === 0, DECIDED_NOTICES_WAIT_MS);
}

/** The approval or decline the run's audit recorded last for the call. */
function recordedOutcome(context: ToolRunContext, toolCallId: string): NoticeOutcome | undefined {
  const entries = context.state.audit.entries;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (entry.type !== 'decision' || entry.toolCallId !== toolCallId) continue;
    if (entry.decision !== 'approved' && entry.decision !== 'declined') return undefined;
    const { decision, channel, decidedBy, at } = entry;
    return { decision, channel, ...(decidedBy ? { decidedBy } : {}), at };
  }
  return undefined;
}
