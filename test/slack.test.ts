/**
 * Slack buttons that decide in Slack (docs/slack.md), end to end: a worker posting to a fake
 * Slack's Web API with a bot token, the HTTP server (another runtime, hosting no agent) taking
 * clicks signed as Slack signs them, and a real Temporal run judging each decision.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { WorkflowHandle } from '@temporalio/client';
import { Tollgate, type RunOptions } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { slackSignature } from '../src/server/slack-request.js';
import {
  clickBody,
  sendSigned,
  startFakeSlack,
  type FakeSlack,
  type FakeSlackBlock,
} from './support/fake-slack.js';
import type { TurnPicker } from '../src/testing/scripted-model.js';
import {
  eventually,
  lastToolOutputs,
  outputsText,
  recordingTool,
  testAgent,
  uniqueQueue,
} from './support/harness.js';
import { parkedDeletes } from './support/parked-deletes.js';

const SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const BOT_TOKEN = 'xoxb-test-0123456789';
const CHANNEL = 'C0APPROVALS';
const AGENT = 'slack-agent';
const REMINDING = 'slack-remind-agent';
const users = { U0ALICE: { id: 'alice' }, U0BOB: { id: 'bob', roles: ['ops'] } };

describe('Slack buttons that decide in Slack', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  // "delete <id>" deletes one record; "delete <id> and <id>" two, in parallel.
  const picker: TurnPicker = (prompt) => {
    if (prompt.some((message) => message.role === 'tool'))
      return { text: `Result: ${outputsText(lastToolOutputs(prompt) ?? [])}` };
    const said = JSON.stringify(prompt.at(-1)?.content);
    const ids = /delete ([\w-]+)(?: and ([\w-]+))?/.exec(said)?.slice(1) ?? ['none'];
    return {
      toolCalls: ids
        .filter((id) => id !== undefined)
        .map((id) => ({ toolName: 'delete-record', args: { id } })),
    };
  };
  const { agent } = testAgent(AGENT, [deleteRecord.tool], picker);
  const { agent: reminding } = testAgent(REMINDING, [deleteRecord.tool], picker, {
    approval: { remind: { every: '2s', notify: async () => {} } },
  });
  let slack: FakeSlack;
  let steering: Tollgate;
  let worker: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    slack = await startFakeSlack(BOT_TOKEN);
    const taskQueue = uniqueQueue('slack');
    steering = new Tollgate({ temporal: { taskQueue } });
    server = await createTollgateServer({
      tollgate: steering,
      auth: { tokens: [{ token: 'slack-test-token-0123456789', id: 'admin' }] },
      slack: {
        signingSecret: SIGNING_SECRET,
        botToken: BOT_TOKEN,
        apiUrl: slack.apiUrl,
        users,
      },
    }).listen({ port: 0 });
    worker = new Tollgate({
      agents: { [AGENT]: agent, [REMINDING]: reminding },
      temporal: { taskQueue },
      channels: {
        publicUrl: server.url,
        slack: [{ name: 'approvals', channel: CHANNEL, botToken: BOT_TOKEN, apiUrl: slack.apiUrl }],
      },
    });
    await worker.startWorker();
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await worker?.shutdown();
    await steering?.shutdown();
    await slack?.close();
  });

  const { executionsOf } = parkedDeletes(() => steering.getAgent(AGENT), deleteRecord.executions);
  const callsOf = (method: string, ts?: string) =>
    slack.calls.filter((c) => c.method === method && (ts === undefined || c.body.ts === ts));
  const ephemeralsTo = (user: string) =>
    callsOf('chat.postEphemeral')
      .filter((c) => c.body.user === user)
      .map((c) => String(c.body.text));
  const header = (ts: string) => slack.messages.get(ts)?.blocks[0]?.text?.text;
  const hasButtons = (ts: string) =>
    slack.messages.get(ts)!.blocks.some((b) => b.type === 'actions');

  /** Parks a run of `agentId` on "delete <id>" and answers it with its Slack message's ts. */
  async function park(id: string, options: RunOptions = {}, agentId = AGENT) {
    const first = await steering.getAgent(agentId).generate(`delete ${id}`, options);
    expect(first.finishReason).toBe('suspended');
    const ts = await eventually(async () => {
      const found = [...slack.messages].find(
        ([, m]) => !m.thread_ts && JSON.stringify(m.blocks).includes(first.runId),
      );
      if (!found) throw new Error(`no Slack message for ${first.runId} yet`);
      return found[0];
    }, 20_000);
    const handle = (await steering.client()).workflow.getHandle(first.runId);
    return { runId: first.runId, ts, handle };
  }

  /**
   * The run's history length once no activity and no workflow task is pending: the notice's post
   * is recorded, and so is the workflow task its completion made.
   */
  async function settledLength(handle: WorkflowHandle): Promise<number> {
    return eventually(async () => {
      const run = await handle.describe();
      if ((run.raw.pendingActivities ?? []).length > 0) throw new Error('an activity is pending');
      if (run.raw.pendingWorkflowTask) throw new Error('a workflow task is pending');
      return run.historyLength;
    });
  }

  async function click(
    ts: string,
    button: 'approve' | 'decline',
    userId: string,
    blocks?: FakeSlackBlock[],
  ) {
    const body = clickBody(slack, { ts, button, userId, ...(blocks ? { blocks } : {}) });
    const started = Date.now();
    const answer = await sendSigned(server.url, body, SIGNING_SECRET);
    return { status: answer.status, tookMs: Date.now() - started, body };
  }

  it('approves with a signed click as the mapped approver: answered within 3 s, the tool runs once, the message shows the outcome; a replay is refused, and the run refuses it in another server process', async () => {
    const { runId, ts, handle } = await park('rec-approve');
    const post = callsOf('chat.postMessage').find((c) => JSON.stringify(c.body).includes(runId))!;
    expect(post.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(post.body.channel).toBe(CHANNEL);
    expect(header(ts)).toBe(`Approval needed: delete-record (agent ${AGENT})`);
    // The buttons name the call and nothing secret.
    const buttons = JSON.stringify(
      slack.messages.get(ts)!.blocks.find((b) => b.type === 'actions'),
    );
    expect(buttons).toContain(runId);
    expect(buttons).not.toContain(BOT_TOKEN);
    expect(buttons).not.toContain(SIGNING_SECRET);

    const timestamp = Math.floor(Date.now() / 1000);
    const body = clickBody(slack, { ts, button: 'approve', userId: 'U0ALICE' });
    const started = Date.now();
    const answer = await sendSigned(server.url, body, SIGNING_SECRET, timestamp);
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(3000);
    await eventually(async () => expect(executionsOf('rec-approve')).toHaveLength(1));
    await eventually(async () =>
      expect(header(ts)).toBe(`Approved: delete-record (agent ${AGENT})`),
    );
    expect(hasButtons(ts)).toBe(false);
    expect(JSON.stringify(slack.messages.get(ts)!.blocks)).toContain('<@U0ALICE> as alice');

    // The same signed request again: refused before anything is decided.
    const replayed = await sendSigned(server.url, body, SIGNING_SECRET, timestamp);
    expect(replayed.status).toBe(409);
    expect(((await replayed.json()) as { error: { code: string } }).error.code).toBe(
      'SLACK_REQUEST_REPLAYED',
    );
    // Sent to another server process, which has not seen it: the run refuses a second decision.
    const other = await createTollgateServer({
      tollgate: steering,
      auth: { tokens: [{ token: 'slack-test-token-0123456789', id: 'admin' }] },
      slack: { signingSecret: SIGNING_SECRET, botToken: BOT_TOKEN, apiUrl: slack.apiUrl, users },
    }).listen({ port: 0 });
    try {
      expect((await sendSigned(other.url, body, SIGNING_SECRET, timestamp)).status).toBe(200);
      await eventually(async () =>
        expect(ephemeralsTo('U0ALICE')).toContainEqual(
          expect.stringMatching(/^Not decided: (TOOL_CALL_ALREADY_DECIDED|RUN_FINISHED)/),
        ),
      );
    } finally {
      await other.close();
    }
    await handle.result();
    expect(executionsOf('rec-approve')).toHaveLength(1);
    const audit = await steering.getAgent(AGENT).getAuditTrail(runId);
    expect(audit.filter((e) => e.type === 'decision')).toEqual([
      expect.objectContaining({
        decision: 'approved',
        channel: 'slack',
        decidedBy: { id: 'alice' },
      }),
    ]);
    // The other process wrote what the run recorded over the message: the same outcome.
    expect(header(ts)).toBe(`Approved: delete-record (agent ${AGENT})`);
  }, 60_000);

  it('declines with a click: the tool never runs; a later click on the old buttons decides nothing and the message keeps the outcome', async () => {
    const { ts, handle } = await park('rec-decline');
    const buttons = slack.messages.get(ts)!.blocks;
    expect((await click(ts, 'decline', 'U0BOB')).status).toBe(200);
    await eventually(async () =>
      expect(header(ts)).toBe(`Declined: delete-record (agent ${AGENT})`),
    );
    await handle.result();
    expect(executionsOf('rec-decline')).toHaveLength(0);
    // A new request (not a replay) from the buttons as they were: the run decides a call once.
    const before = await settledLength(handle);
    expect((await click(ts, 'approve', 'U0ALICE', buttons)).status).toBe(200);
    await eventually(async () =>
      expect(ephemeralsTo('U0ALICE').some((t) => /^Not decided: RUN_FINISHED/.test(t))).toBe(true),
    );
    // Rewritten a second time, with what the run recorded.
    await eventually(async () => expect(callsOf('chat.update', ts)).toHaveLength(2));
    expect(header(ts)).toBe(`Declined: delete-record (agent ${AGENT})`);
    expect(JSON.stringify(slack.messages.get(ts)!.blocks)).toContain('Declined by bob (slack)');
    expect(executionsOf('rec-decline')).toHaveLength(0);
    expect((await handle.describe()).historyLength).toBe(before);
  }, 60_000);

  it('refuses forged, stale, tampered, unsigned and unmapped clicks and a non-approver: nothing is decided and the history is unchanged', async () => {
    const { runId, ts, handle } = await park('rec-refused', { approval: { approvers: ['bob'] } });
    const before = await settledLength(handle);
    const body = clickBody(slack, { ts, button: 'approve', userId: 'U0ALICE' });
    const now = Math.floor(Date.now() / 1000);
    const codeOf = async (answer: Response) => [
      answer.status,
      ((await answer.json()) as { error: { code: string } }).error.code,
    ];
    // Signed with another secret.
    expect(
      await codeOf(await sendSigned(server.url, body, 'not-the-signing-secret-000000000')),
    ).toEqual([401, 'SLACK_SIGNATURE_INVALID']);
    // Signed, but 10 minutes ago.
    expect(await codeOf(await sendSigned(server.url, body, SIGNING_SECRET, now - 600))).toEqual([
      401,
      'SLACK_REQUEST_STALE',
    ]);
    // Altered after signing: bob's click with alice's signature.
    const asBob = clickBody(slack, { ts, button: 'approve', userId: 'U0BOB' });
    const aliceSignature = slackSignature(SIGNING_SECRET, String(now), body);
    expect(
      await codeOf(await sendSigned(server.url, asBob, SIGNING_SECRET, now, aliceSignature)),
    ).toEqual([401, 'SLACK_SIGNATURE_INVALID']);
    // No signature at all.
    const unsigned = await fetch(`${server.url}/slack/actions`, { method: 'POST', body });
    expect(await codeOf(unsigned)).toEqual([401, 'SLACK_SIGNATURE_INVALID']);
    // Signed, but not a Tollgate button.
    const other = new URLSearchParams({
      payload: JSON.stringify({ type: 'view_submission' }),
    }).toString();
    expect(await codeOf(await sendSigned(server.url, other, SIGNING_SECRET))).toEqual([
      400,
      'BAD_REQUEST',
    ]);

    // A Slack user with no Tollgate identity, and alice, who is not the call's approver.
    expect((await click(ts, 'approve', 'U0MALLORY')).status).toBe(200);
    expect((await click(ts, 'approve', 'U0ALICE')).status).toBe(200);
    await eventually(async () => {
      expect(ephemeralsTo('U0MALLORY')).toEqual([expect.stringContaining('SLACK_USER_UNMAPPED')]);
      expect(ephemeralsTo('U0ALICE').filter((t) => t.includes('NOT_AN_APPROVER'))).toHaveLength(1);
    });
    expect(await steering.getAgent(AGENT).pendingToolCalls(runId)).toHaveLength(1);
    expect((await handle.describe()).historyLength).toBe(before);
    expect(executionsOf('rec-refused')).toHaveLength(0);
    expect(callsOf('chat.update', ts)).toHaveLength(0);
    expect(hasButtons(ts)).toBe(true);

    // The call's approver still decides, once.
    expect((await click(ts, 'approve', 'U0BOB')).status).toBe(200);
    await eventually(async () => expect(executionsOf('rec-refused')).toHaveLength(1));
    await handle.result();
    expect(executionsOf('rec-refused')).toHaveLength(1);
  }, 60_000);

  it('records a quorum approval privately and keeps the buttons until the quorum is met', async () => {
    const { ts, handle } = await park('rec-quorum', { approval: { quorum: 2 } });
    expect((await click(ts, 'approve', 'U0ALICE')).status).toBe(200);
    await eventually(async () =>
      expect(ephemeralsTo('U0ALICE')).toContainEqual(
        'Your approval as alice is recorded; the call waits for more approvals.',
      ),
    );
    expect(hasButtons(ts)).toBe(true);
    expect(callsOf('chat.update', ts)).toHaveLength(0);
    expect(executionsOf('rec-quorum')).toHaveLength(0);
    expect((await click(ts, 'approve', 'U0BOB')).status).toBe(200);
    await eventually(async () =>
      expect(header(ts)).toBe(`Approved: delete-record (agent ${AGENT})`),
    );
    await handle.result();
    expect(executionsOf('rec-quorum')).toHaveLength(1);
  }, 60_000);

  /** The run's notice activities, by kind (request, decided, ...), from its history. */
  async function noticeKinds(handle: WorkflowHandle): Promise<string[]> {
    const { events } = await handle.fetchHistory();
    return (events ?? []).flatMap((event) => {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name !== 'sendChannelNotice') return [];
      const data = scheduled.input?.payloads?.[0]?.data;
      return [(JSON.parse(Buffer.from(data!).toString()) as { kind: string }).kind];
    });
  }

  it('rewrites the message once when the call is decided outside Slack (the API); a later click decides nothing more', async () => {
    const { runId, ts, handle } = await park('rec-elsewhere');
    const buttons = slack.messages.get(ts)!.blocks;
    await steering.getAgent(AGENT).approveToolCallGenerate({ runId, decidedBy: { id: 'carol' } });
    // No click: the run's decided notice rewrites the message.
    await eventually(async () =>
      expect(header(ts)).toBe(`Approved: delete-record (agent ${AGENT})`),
    );
    expect(JSON.stringify(slack.messages.get(ts)!.blocks)).toContain('Approved by carol (update)');
    expect(hasButtons(ts)).toBe(false);
    await handle.result();
    await settledLength(handle);
    expect(callsOf('chat.update', ts)).toHaveLength(1);
    expect(await noticeKinds(handle)).toEqual(['request', 'decided']);
    expect(executionsOf('rec-elsewhere')).toHaveLength(1);

    // A click on the buttons as they were (an old client's view).
    expect((await click(ts, 'decline', 'U0ALICE', buttons)).status).toBe(200);
    await eventually(async () =>
      expect(ephemeralsTo('U0ALICE').some((t) => t.startsWith('Not decided: RUN_FINISHED'))).toBe(
        true,
      ),
    );
    await eventually(async () => expect(callsOf('chat.update', ts)).toHaveLength(2));
    expect(header(ts)).toBe(`Approved: delete-record (agent ${AGENT})`);
    expect(JSON.stringify(slack.messages.get(ts)!.blocks)).toContain('Approved by carol (update)');
    expect(executionsOf('rec-elsewhere')).toHaveLength(1);
  }, 60_000);

  it("rewrites the message of a call a run grant approved: the grant's outcome, each tool once", async () => {
    const first = await steering.getAgent(AGENT).generate('delete rec-given and rec-granted');
    const calls = await steering.getAgent(AGENT).pendingToolCalls(first.runId);
    expect(calls).toHaveLength(2);
    const messageOf = (id: string) =>
      eventually(async () => {
        const found = [...slack.messages].find(
          ([, m]) => !m.thread_ts && JSON.stringify(m.blocks).includes(id),
        );
        if (!found) throw new Error(`no Slack message for ${id} yet`);
        return found[0];
      }, 20_000);
    const given = await messageOf('rec-given');
    const granted = await messageOf('rec-granted');
    const byId = (id: string) => calls.find((c) => (c.args as { id: string }).id === id)!;
    await steering.getAgent(AGENT).approveToolCallGenerate({
      runId: first.runId,
      toolCallId: byId('rec-given').toolCallId,
      decidedBy: { id: 'carol' },
      grant: { scope: 'run' },
    });
    await eventually(async () => {
      expect(JSON.stringify(slack.messages.get(given)!.blocks)).toContain(
        'Approved by carol (update)',
      );
      expect(JSON.stringify(slack.messages.get(granted)!.blocks)).toContain(
        'Approved by carol (grant)',
      );
    });
    expect(header(granted)).toBe(`Approved: delete-record (agent ${AGENT})`);
    expect(hasButtons(granted)).toBe(false);
    const handle = (await steering.client()).workflow.getHandle(first.runId);
    await handle.result();
    await settledLength(handle);
    expect(callsOf('chat.update', granted)).toHaveLength(1);
    expect(executionsOf('rec-given')).toHaveLength(1);
    expect(executionsOf('rec-granted')).toHaveLength(1);
  }, 60_000);

  it('leaves the message of a call decided by a click to the server: the run sends no notice of it', async () => {
    const { ts, handle } = await park('rec-clicked');
    expect((await click(ts, 'approve', 'U0BOB')).status).toBe(200);
    await eventually(async () =>
      expect(header(ts)).toBe(`Approved: delete-record (agent ${AGENT})`),
    );
    await handle.result();
    await settledLength(handle);
    expect(await noticeKinds(handle)).toEqual(['request']);
    expect(callsOf('chat.update', ts)).toHaveLength(1);
    expect(executionsOf('rec-clicked')).toHaveLength(1);
  }, 60_000);

  it('rewrites the message at each reminder (with a reply in its thread) and when the call expires, which removes the buttons', async () => {
    const { ts, handle } = await park('rec-expiry', { approval: { timeout: '5s' } }, REMINDING);
    await eventually(
      async () => expect(header(ts)).toMatch(/^Approval expired: delete-record/),
      20_000,
    );
    expect(hasButtons(ts)).toBe(false);
    const updates = callsOf('chat.update', ts).map((c) => String(c.body.text));
    expect(updates.filter((t) => t.startsWith('Still waiting for approval'))).not.toHaveLength(0);
    expect(updates.at(-1)).toMatch(/^Approval expired: delete-record .*handled as decline$/);
    const replies = [...slack.messages.values()]
      .filter((m) => m.thread_ts === ts)
      .map((m) => m.text);
    expect(replies.some((t) => t.startsWith('Still waiting for approval'))).toBe(true);
    expect(replies.some((t) => t.startsWith('Approval expired'))).toBe(true);
    // One message for the call: every later notice updated it.
    const posts = callsOf('chat.postMessage').filter(
      (c) => !c.body.thread_ts && JSON.stringify(c.body).includes('rec-expiry'),
    );
    expect(posts).toHaveLength(1);
    await handle.result();
    expect(executionsOf('rec-expiry')).toHaveLength(0);
  }, 60_000);

  it('posts a new message when the first was deleted in Slack, and later notices and clicks use it', async () => {
    const { runId, ts, handle } = await park('rec-deleted', {}, REMINDING);
    slack.messages.delete(ts);
    const topLevel = () =>
      [...slack.messages].filter(
        ([, m]) => !m.thread_ts && JSON.stringify(m.blocks).includes(runId),
      );
    const again = await eventually(async () => {
      const [found] = topLevel();
      if (!found) throw new Error('no new message yet');
      return found[0];
    }, 20_000);
    expect(again).not.toBe(ts);
    expect(header(again)).toMatch(/^Still waiting for approval: delete-record/);
    expect((await click(again, 'approve', 'U0BOB')).status).toBe(200);
    await eventually(async () =>
      expect(header(again)).toBe(`Approved: delete-record (agent ${REMINDING})`),
    );
    await handle.result();
    expect(executionsOf('rec-deleted')).toHaveLength(1);
    expect(topLevel()).toHaveLength(1);
  }, 60_000);
});
