/**
 * The interactive message's buttons (docs/slack.md): Block Kit buttons whose `action_id` says
 * approve or decline and whose `value` names the call (agent, run, call, fingerprint) and
 * nothing secret; Slack sends them back to `POST /slack/actions` when clicked. Who decides is
 * never in them: it is the clicking Slack user, mapped by the server's configuration.
 */
import type { ChannelNoticeInput } from '../common/channel-types.js';
import { headline } from './notice-text.js';
import { headerBlock, noticeBlocks } from './slack-message.js';

/** `action_id` of each button. */
export const SLACK_ACTION_IDS = {
  approve: 'tollgate.approve',
  decline: 'tollgate.decline',
} as const;
/** Block ids the server replaces when it writes the outcome into the message. */
export const ACTIONS_BLOCK_ID = 'tollgate-actions';
const NOTE_BLOCK_ID = 'tollgate-note';
const OUTCOME_BLOCK_ID = 'tollgate-outcome';

/** The call a button decides, as its `value` carries it. */
export interface ButtonCall {
  agentId: string;
  runId: string;
  toolCallId: string;
  /** The call's fingerprint when the notice was sent: changed arguments are refused by the run. */
  fingerprint: string;
  /** For the outcome's header. */
  toolName?: string;
}

/** The message of a notice: its facts, and buttons while the call can still be decided. */
export function interactiveMessage(notice: ChannelNoticeInput): { text: string; blocks: object[] } {
  const blocks = noticeBlocks(notice);
  if (notice.kind !== 'expired') {
    const value = buttonValue(notice);
    blocks.push({
      type: 'actions',
      block_id: ACTIONS_BLOCK_ID,
      elements: [
        button('Approve', 'primary', SLACK_ACTION_IDS.approve, value),
        button('Decline', 'danger', SLACK_ACTION_IDS.decline, value),
      ],
    });
    blocks.push({
      type: 'context',
      block_id: NOTE_BLOCK_ID,
      elements: [
        {
          type: 'mrkdwn',
          text: 'The buttons decide as the Tollgate identity your Slack user is mapped to; the run checks its approvers.',
        },
      ],
    });
  }
  return { text: headline(notice), blocks };
}

/**
 * The message with its buttons replaced by an outcome (a decision, or why the call no longer
 * waits): the header says it, a line below (mrkdwn, escaped by the caller) says who and when.
 */
export function outcomeMessage(
  blocks: readonly object[],
  title: string,
  detail: string,
): { text: string; blocks: object[] } {
  const kept = blocks.filter((block) => {
    const id = (block as { block_id?: unknown }).block_id;
    return id !== ACTIONS_BLOCK_ID && id !== NOTE_BLOCK_ID && id !== OUTCOME_BLOCK_ID;
  });
  const header = kept.findIndex(
    (block) => (block as { block_id?: unknown }).block_id === 'tollgate-header',
  );
  if (header >= 0) kept[header] = headerBlock(title);
  else kept.unshift(headerBlock(title));
  kept.push({
    type: 'context',
    block_id: OUTCOME_BLOCK_ID,
    elements: [{ type: 'mrkdwn', text: detail }],
  });
  return { text: title, blocks: kept };
}

export function buttonValue(call: ButtonCall): string {
  const { agentId: a, runId: r, toolCallId: c, fingerprint: f, toolName: t } = call;
  return JSON.stringify({ a, r, c, f, t });
}

/** The call a button's `value` names, or undefined when it is not one of Tollgate's. */
export function parseButtonValue(value: unknown): ButtonCall | undefined {
  if (typeof value !== 'string' || value.length > 2000) return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(value) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const { a, r, c, f, t } = parsed;
  const strings = [a, r, c, f];
  if (!strings.every((s) => typeof s === 'string' && s !== '')) return undefined;
  return {
    agentId: a as string,
    runId: r as string,
    toolCallId: c as string,
    fingerprint: f as string,
    ...(typeof t === 'string' ? { toolName: t } : {}),
  };
}

function button(text: string, style: string, actionId: string, value: string): object {
  return { type: 'button', text: { type: 'plain_text', text }, style, action_id: actionId, value };
}
