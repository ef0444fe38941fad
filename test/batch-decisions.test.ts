/**
 * Batch decisions end to end against the real Temporal server: the runtime's `decideMany`, the
 * HTTP route and SDK, and `tollgate approve --all`. Each call of a batch is judged on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import {
  createTool,
  type Tollgate,
  type RunOptions,
  type BatchDecisionResult,
} from '../src/index.js';
import { TollgateClient } from '../src/http-client/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { cli } from './support/cli.js';
import {
  eventually,
  hostAgents,
  lastToolOutputs,
  outputsText,
  recordingTool,
  testAgent,
} from './support/harness.js';
import type { TurnPicker } from '../src/testing/index.js';

/**
 * "delete <id>" calls delete-record, "archive <id>" archive-record; several ("delete a then
 * archive b") are called one after another; then the results are reported.
 */
const byPrompt: TurnPicker = (prompt) => {
  const asked = [
    ...JSON.stringify(prompt.find((message) => message.role === 'user')?.content).matchAll(
      /(delete|archive) ([\w-]+)/g,
    ),
  ];
  const done = prompt.filter((message) => message.role === 'tool').length;
  const next = asked[done];
  if (next) return { toolCalls: [{ toolName: `${next[1]}-record`, args: { id: next[2]! } }] };
  return { text: `Result: ${outputsText(lastToolOutputs(prompt) ?? [])}` };
};

const AGENT = 'batch-agent';
const OTHER = 'batch-other-agent';
const CLI_AGENT = 'batch-cli-agent';
const OPERATOR = 'batch-operator-token-0123456789';
const SCOPED = 'batch-scoped-token-0123456789';

describe('batch decisions', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const archived: string[] = [];
  // Its own deadline wins over a request's short one: its calls keep their runs open.
  const archiveTool = createTool({
    id: 'archive-record',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    approval: { timeout: '1 day' },
    execute: async ({ id }) => {
      archived.push(id);
      return { archived: id };
    },
  });
  const tools = [deleteRecord.tool, archiveTool];
  const agents = [AGENT, OTHER, CLI_AGENT].map((id) => testAgent(id, tools, byPrompt).agent);
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents(agents, 'batch');
    server = await createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: OPERATOR, id: 'alice', roles: ['ops'] },
          { token: SCOPED, id: 'carol', scopes: { agents: [AGENT] } },
        ],
      },
      logError: (error) => console.error(error),
    }).listen({ port: 0 });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  const runsOf = (tool: typeof deleteRecord, id: string) =>
    tool.executions.filter((e) => (e.input as { id: string }).id === id);

  async function park(agentId: string, prompt: string, options: RunOptions = {}) {
    const first = await tollgate.getAgent(agentId).generate(prompt, options);
    expect(first.finishReason).toBe('suspended');
    // From the stream's suspension: a short deadline may have passed by the time a query asks.
    const call = first.suspendPayload!;
    return { runId: first.runId, toolCallId: call.toolCallId, fingerprint: call.fingerprint! };
  }

  async function historyLength(runId: string): Promise<number> {
    const history = await (await tollgate.client()).workflow.getHandle(runId).fetchHistory();
    return history.events?.length ?? 0;
  }

  const codeOf = (result: BatchDecisionResult | undefined) =>
    result?.ok ? result.decision : result?.error.code;

  it('decides each call on its own: approves the allowed ones and reports each refusal, which writes nothing', async () => {
    const plain = await park(AGENT, 'delete b-plain');
    const guarded = await park(AGENT, 'delete b-guarded', { approval: { approvers: ['bob'] } });
    const edited = await park(AGENT, 'delete b-edited');
    // A call follows the expiring one, so its run is still open to judge the late approval.
    const expiring = await park(AGENT, 'delete b-expiring then archive b-next', {
      approval: { timeout: '1s' },
    });
    await eventually(async () => {
      const [waiting] = await tollgate.getAgent(AGENT).pendingToolCalls(expiring.runId);
      expect(waiting?.toolName).toBe('archive-record');
    });
    const declined = await park(AGENT, 'delete b-declined');
    const before = await historyLength(guarded.runId);

    const results = await tollgate.decideMany(
      [
        { agentId: AGENT, action: 'approve', ...plain },
        { agentId: AGENT, action: 'approve', ...guarded },
        { agentId: AGENT, action: 'approve', ...edited, fingerprint: 'f'.repeat(64) },
        { agentId: AGENT, action: 'approve', ...expiring },
        { agentId: AGENT, action: 'approve', runId: plain.runId, toolCallId: 'call-forged' },
        { agentId: AGENT, action: 'decline', ...declined, reason: 'Not today' },
        { agentId: OTHER, action: 'approve', ...edited },
      ],
      { decidedBy: { id: 'alice' } },
    );
    expect(results.map(codeOf)).toEqual([
      'approved',
      'NOT_AN_APPROVER',
      'FINGERPRINT_MISMATCH',
      'APPROVAL_EXPIRED',
      'TOOL_CALL_NOT_PENDING',
      'declined',
      'RUN_NOT_FOUND',
    ]);
    expect(results[1]).toMatchObject({ runId: guarded.runId, toolCallId: guarded.toolCallId });
    await eventually(async () => expect(runsOf(deleteRecord, 'b-plain')).toHaveLength(1));
    for (const id of ['b-guarded', 'b-edited', 'b-expiring', 'b-declined']) {
      expect([id, runsOf(deleteRecord, id)]).toEqual([id, []]);
    }
    // The refused calls still wait, and their runs recorded nothing.
    expect(await historyLength(guarded.runId)).toBe(before);
    expect(await tollgate.getAgent(AGENT).pendingToolCalls(guarded.runId)).toHaveLength(1);
    expect(await tollgate.getAgent(AGENT).pendingToolCalls(edited.runId)).toHaveLength(1);

    // The same call twice in one batch: the run applies one and refuses the other.
    const twice = await park(AGENT, 'delete b-twice');
    const again = await tollgate.decideMany([
      { agentId: AGENT, action: 'approve', ...twice },
      { agentId: AGENT, action: 'approve', ...twice },
    ]);
    expect(again.map(codeOf).sort()).toEqual(['TOOL_CALL_ALREADY_DECIDED', 'approved']);
    await eventually(async () => expect(runsOf(deleteRecord, 'b-twice')).toHaveLength(1));
    await expect(tollgate.decideMany(new Array(101).fill(again[0]))).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  }, 90_000);

  it("POST /api/decisions decides in the token's name and within its scope, one result per call", async () => {
    const mine = await park(AGENT, 'delete h-mine');
    const guarded = await park(AGENT, 'delete h-guarded', { approval: { approvers: ['carol'] } });
    const theirs = await park(OTHER, 'delete h-theirs');
    const client = new TollgateClient({ baseUrl: server.url, token: SCOPED });
    const results = await client.decideMany([
      { agentId: AGENT, action: 'approve', ...mine },
      { agentId: AGENT, action: 'approve', ...guarded },
      { agentId: OTHER, action: 'approve', ...theirs },
    ]);
    expect(results.map(codeOf)).toEqual(['approved', 'approved', 'FORBIDDEN']);
    await eventually(async () => {
      expect(runsOf(deleteRecord, 'h-mine')).toHaveLength(1);
      expect(runsOf(deleteRecord, 'h-guarded')).toHaveLength(1);
    });
    expect(runsOf(deleteRecord, 'h-theirs')).toHaveLength(0);
    const audit = await tollgate.getAgent(AGENT).getAuditTrail(guarded.runId);
    expect(audit).toContainEqual(
      expect.objectContaining({ type: 'decision', decidedBy: { id: 'carol' }, channel: 'update' }),
    );

    const post = (body: unknown) =>
      fetch(`${server.url}/api/decisions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const empty = await post({ decisions: [] });
    expect(empty.status).toBe(400);
    const noCall = await post({
      decisions: [{ agentId: AGENT, runId: mine.runId, action: 'approve' }],
    });
    expect([
      noCall.status,
      ((await noCall.json()) as { error: { fields: string[] } }).error.fields,
    ]).toEqual([400, ['decisions.0.toolCallId']]);
    // A body cannot say who decides: decidedBy is dropped, the token's identity is used.
    const answer = await post({
      decisions: [{ agentId: OTHER, action: 'decline', ...theirs, decidedBy: { id: 'mallory' } }],
    });
    expect(await answer.json()).toEqual({
      results: [
        {
          agentId: OTHER,
          action: 'decline',
          runId: theirs.runId,
          toolCallId: theirs.toolCallId,
          ok: true,
          decision: 'declined',
        },
      ],
    });
    const theirAudit = await tollgate.getAgent(OTHER).getAuditTrail(theirs.runId);
    expect(theirAudit).toContainEqual(
      expect.objectContaining({
        type: 'decision',
        decision: 'declined',
        decidedBy: { id: 'alice', roles: ['ops'] },
      }),
    );
  }, 90_000);

  it('tollgate approve --all --agent --tool approves the matching waiting calls, each judged on its own, and exits 5 when one is refused', async () => {
    const first = await park(CLI_AGENT, 'delete c-first');
    const second = await park(CLI_AGENT, 'delete c-second');
    const guarded = await park(CLI_AGENT, 'delete c-guarded', { approval: { approvers: ['bob'] } });
    const archive = await park(CLI_AGENT, 'archive c-archive');
    await eventually(async () => {
      const listed = await tollgate.getAgent(CLI_AGENT).listSuspendedRuns();
      expect(listed.total).toBe(4);
    }, 20_000);
    const flags = ['--task-queue', tollgate.taskQueue, '--as', 'alice'];
    const usage = await cli(['approve', '--all', ...flags]);
    expect([usage.code, usage.stderr]).toEqual([2, expect.stringContaining('needs --agent')]);

    const run = await cli([
      'approve',
      '--all',
      '--agent',
      CLI_AGENT,
      '--tool',
      'delete-record',
      '--json',
      ...flags,
    ]);
    expect(run.code).toBe(5);
    const { results } = JSON.parse(run.stdout) as { results: BatchDecisionResult[] };
    const byRun = Object.fromEntries(results.map((r) => [r.runId, codeOf(r)]));
    expect(byRun).toEqual({
      [first.runId]: 'approved',
      [second.runId]: 'approved',
      [guarded.runId]: 'NOT_AN_APPROVER',
    });
    await eventually(async () => {
      expect(runsOf(deleteRecord, 'c-first')).toHaveLength(1);
      expect(runsOf(deleteRecord, 'c-second')).toHaveLength(1);
    });
    expect(runsOf(deleteRecord, 'c-guarded')).toHaveLength(0);
    expect(archived).not.toContain('c-archive');
    expect(await tollgate.getAgent(CLI_AGENT).pendingToolCalls(archive.runId)).toHaveLength(1);

    const human = await cli([
      'decline',
      '--all',
      '--agent',
      CLI_AGENT,
      '--run',
      archive.runId,
      ...flags,
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('1 of 1 declined by alice.');
    expect(human.stdout).toContain('declined');
    expect(archived).not.toContain('c-archive');
  }, 120_000);
});
