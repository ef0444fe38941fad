import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, Tollgate, type ApprovalPolicy, type ReminderInfo } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import {
  callNamed,
  chunksOf,
  eventually,
  gatedRecordingTool,
  uniqueQueue,
} from './support/harness.js';

/** A webhook receiver that keeps the JSON events it was posted. */
async function startReceiver(): Promise<{
  server: Server;
  url: string;
  events: Array<Record<string, unknown>>;
}> {
  const events: Array<Record<string, unknown>> = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (data: Buffer) => (text += data.toString()));
    request.on('end', () => {
      events.push(JSON.parse(text) as Record<string, unknown>);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, events };
}

describe('escalation of waiting approvals (issue 28.2, docs/escalation.md)', () => {
  const executed: Array<{ tool: string; id: string }> = [];
  const reminders: ReminderInfo[] = [];
  const tool = (id: string, approval: ApprovalPolicy) => gatedRecordingTool(id, executed, approval);
  const tools = Object.fromEntries(
    [
      // Temporal timers may fire up to about a second late, so the intervals here are generous.
      tool('wire', {
        approvers: ['alice'],
        remind: { every: 800, notify: (info) => void reminders.push(info) },
        escalate: { after: { reminders: 2 }, to: 'role:managers' },
      }),
      tool('purge', {
        approvers: ['alice'],
        timeout: '30 seconds',
        escalate: [
          { after: 1500, to: ['carol'] },
          { after: '60 seconds', to: ['role:directors'] },
        ],
      }),
      tool('lapse', {
        approvers: ['alice'],
        timeout: 1500,
        escalate: { after: '60 seconds', to: ['carol'] },
      }),
    ].map((each) => [each.id, each]),
  );
  const agent = new Agent({ id: 'escalating', model: scriptedModel(callNamed), tools });
  let tollgate: Tollgate;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { taskQueue: uniqueQueue('escalation') },
      channels: {
        publicUrl: 'http://127.0.0.1:9',
        signingSecret: 'escalation-test-secret-0123456789abcdef',
        webhooks: [{ name: 'ops', url: `${receiver.url}/hook`, format: 'json', links: false }],
      },
    });
    await tollgate.startWorker();
  }, 120_000);
  afterAll(async () => {
    await tollgate.shutdown();
    await new Promise((done) => receiver.server.close(done));
  });

  const a = () => tollgate.getAgent('escalating');
  const ran = (toolName: string, id: string) =>
    executed.filter((e) => e.tool === toolName && e.id === id).length;
  // The reminders' timers keep adding events while the call waits, so a refusal is shown to have
  // written nothing by the update and signal events, which only a decision that got in adds.
  const decisionEvents = async (runId: string) =>
    (
      (await (await tollgate.client()).workflow.getHandle(runId).fetchHistory()).events ?? []
    ).filter(
      (event) =>
        event.workflowExecutionUpdateAcceptedEventAttributes ??
        event.workflowExecutionUpdateCompletedEventAttributes ??
        event.workflowExecutionSignaledEventAttributes,
    ).length;
  const noticesOf = (runId: string, type: string) =>
    receiver.events.filter((event) => event.runId === runId && event.type === type);
  const approversOf = async (runId: string) => (await a().pendingToolCalls(runId))[0]?.approvers;

  it('escalates after two reminders: the first approver is refused, the escalated group releases the call once', async () => {
    const first = await a().generate('wire w1');
    expect(first.finishReason).toBe('suspended');
    const { runId } = first;
    await eventually(
      async () => expect(await approversOf(runId)).toEqual(['role:managers']),
      20_000,
    );
    expect(reminders.filter((r) => r.runId === runId).length).toBeGreaterThanOrEqual(2);

    const before = await decisionEvents(runId);
    await expect(a().approveToolCall({ runId, decidedBy: { id: 'alice' } })).rejects.toMatchObject({
      code: 'NOT_AN_APPROVER',
    });
    expect(await decisionEvents(runId)).toBe(before);
    expect(ran('wire', 'w1')).toBe(0);

    const out = await a().approveToolCallGenerate({
      runId,
      decidedBy: { id: 'mia', roles: ['managers'] },
    });
    expect(out.text).toBe('Got: {"done":"w1"}');
    expect(ran('wire', 'w1')).toBe(1);

    const audit = await a().getAuditTrail(runId);
    const escalations = audit.filter((entry) => entry.type === 'escalation');
    expect(escalations).toEqual([
      expect.objectContaining({ level: 1, from: ['alice'], to: ['role:managers'], reminders: 2 }),
    ]);
    // The reminders before it, then the escalation, then the decision by the escalated group.
    const types = audit.map((entry) => entry.type);
    expect(types.indexOf('escalation')).toBeGreaterThan(types.lastIndexOf('request'));
    expect(audit.at(-1)).toMatchObject({ type: 'decision', decidedBy: { id: 'mia' } });

    // Observers see the call again with its new approvers, in a stretch of its own.
    const waited = await chunksOf(await a().observe({ runId }));
    expect(waited.at(-1)?.payload).toMatchObject({ finishReason: 'suspended' });
    const escalated = await chunksOf(await a().observe({ runId, offset: waited.length }));
    expect(escalated.map((chunk) => chunk.type)).toEqual(['tool-call-approval', 'finish']);
    expect(escalated[0]?.payload).toMatchObject({
      approvers: ['role:managers'],
      reassigned: [{ kind: 'escalation', level: 1, to: ['role:managers'] }],
    });
    await eventually(async () =>
      expect(noticesOf(runId, 'tollgate.approval.escalation')).toHaveLength(1),
    );
    expect(noticesOf(runId, 'tollgate.approval.escalation')[0]).toMatchObject({
      approvers: ['role:managers'],
      reassigned: { kind: 'escalation', level: 1 },
    });
  }, 60_000);

  it("escalates after a duration on a durable timer, level by level; only the next level's approver decides", async () => {
    const first = await a().generate('purge p1');
    const { runId } = first;
    await eventually(async () => expect(await approversOf(runId)).toEqual(['carol']), 20_000);
    await expect(a().declineToolCall({ runId, decidedBy: { id: 'alice' } })).rejects.toMatchObject({
      code: 'NOT_AN_APPROVER',
    });
    const out = await a().approveToolCallGenerate({ runId, decidedBy: { id: 'carol' } });
    expect(out.finishReason).toBe('stop');
    expect(ran('purge', 'p1')).toBe(1);
    const audit = await a().getAuditTrail(runId);
    // The second level (60 s) never fired: the call was decided first.
    expect(audit.filter((entry) => entry.type === 'escalation')).toEqual([
      expect.objectContaining({ level: 1, to: ['carol'], reminders: 0 }),
    ]);
  }, 60_000);

  it('an escalated call declined by the new approver never runs', async () => {
    const { runId } = await a().generate('purge p2');
    await eventually(async () => expect(await approversOf(runId)).toEqual(['carol']), 20_000);
    const out = await a().declineToolCallGenerate({ runId, decidedBy: { id: 'carol' } });
    expect(out.finishReason).toBe('stop');
    expect(ran('purge', 'p2')).toBe(0);
  }, 60_000);

  it('keeps expiry its own outcome: a deadline before the escalation expires the call, nothing escalates', async () => {
    const { runId } = await a().generate('lapse l1');
    const handle = (await tollgate.client()).workflow.getHandle(runId);
    await handle.result();
    expect(ran('lapse', 'l1')).toBe(0);
    const audit = await a().getAuditTrail(runId);
    expect(audit.some((entry) => entry.type === 'expiry')).toBe(true);
    expect(audit.some((entry) => entry.type === 'escalation')).toBe(false);
  }, 60_000);
});
