import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { Agent, createTool, Tollgate } from '../src/index.js';
import { VISIBILITY_LAG_MS } from '../src/temporal-client/live-policies.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import {
  callNamed,
  eventually,
  gatedRecordingTool,
  recordingTool,
  uniqueId,
  uniqueQueue,
} from './support/harness.js';

/**
 * "chain <id>": delete-record, then transfer, then a text; "slow <id>": pause (longer than a
 * change's second look at visibility), then lookup; anything else as `callNamed`.
 */
const chainOrNamed: TurnPicker = (prompt, turn) => {
  const first = JSON.stringify(prompt.find((m) => m.role === 'user')?.content);
  const slow = /slow ([\w-]+)/.exec(first)?.[1];
  if (slow) {
    const steps = prompt.filter((m) => m.role === 'tool').length;
    if (steps === 0) return { toolCalls: [{ toolName: 'pause', args: { id: slow } }] };
    if (steps === 1) return { toolCalls: [{ toolName: 'lookup', args: { id: slow } }] };
    return { text: 'Looked up.' };
  }
  const id = /chain ([\w-]+)/.exec(first)?.[1];
  if (!id) return callNamed(prompt, turn);
  const done = prompt.filter((m) => m.role === 'tool').length;
  if (done === 0) return { toolCalls: [{ toolName: 'delete-record', args: { id } }] };
  if (done === 1) return { toolCalls: [{ toolName: 'transfer', args: { id } }] };
  return { text: 'Both done.' };
};

describe('live approval policies: an operator changes a rule while calls wait (docs/live-policies.md)', () => {
  const executed: Array<{ tool: string; id: string }> = [];
  const lookup = recordingTool('lookup');
  let returnChange = (): void => undefined;
  const changeReturned = new Promise<void>((resolve) => (returnChange = resolve));
  const tools = {
    'delete-record': gatedRecordingTool('delete-record', executed),
    transfer: gatedRecordingTool('transfer', executed),
    lookup: lookup.tool,
    pause: createTool({
      id: 'pause',
      inputSchema: z.object({ id: z.string() }),
      // Longer than a change's late tell, and at least until the test says the change returned
      // (a loaded machine can make the late tell, after VISIBILITY_LAG_MS, slower than any pause).
      execute: async () => {
        await Promise.all([
          new Promise((resolve) => setTimeout(resolve, VISIBILITY_LAG_MS + 1_500)),
          changeReturned,
        ]);
        return { paused: true };
      },
    }),
  };
  const agent = new Agent({ id: 'live-ruled', model: scriptedModel(chainOrNamed), tools });
  let tollgate: Tollgate;
  const operator = { identity: { id: 'ops', roles: ['admin'] } };

  beforeAll(async () => {
    const taskQueue = uniqueQueue('live-policies');
    tollgate = new Tollgate({ agents: { agent }, temporal: { taskQueue } });
    await tollgate.startWorker();
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('live-ruled');
  const ran = (tool: string, id: string) =>
    executed.filter((e) => e.tool === tool && e.id === id).length;
  const finished = async (runId: string) => {
    const client = await tollgate.client();
    await client.workflow.getHandle(runId).result();
  };
  const waitingRun = async (prompt: string) => {
    const output = await a().generate(prompt, { memory: { resource: 'r', thread: uniqueId('t') } });
    expect(output.finishReason).toBe('suspended');
    return output.runId;
  };
  const visible = (runIds: string[]) =>
    eventually(async () => {
      const { runs } = await a().listSuspendedRuns({ perPage: 1000 });
      expect(runs.map((r) => r.runId)).toEqual(expect.arrayContaining(runIds));
    }, 20_000);

  it('a relaxed rule releases every call of the tool waiting now, once each, recorded as the policy release; new calls run at once', async () => {
    const waiting = [await waitingRun('transfer p1'), await waitingRun('transfer p2')];
    const other = await waitingRun('delete-record p3');
    await visible([...waiting, other]);
    const result = await tollgate.livePolicies.set(
      {
        agentId: 'live-ruled',
        toolName: 'transfer',
        requireApproval: false,
        reason: 'incident over',
      },
      operator,
    );
    expect(result.rule).toMatchObject({
      toolName: 'transfer',
      requireApproval: false,
      changedBy: { id: 'ops' },
    });
    expect(result.released.map((r) => r.runId).sort()).toEqual([...waiting].sort());
    expect(result.refused).toEqual([]);
    await Promise.all(waiting.map(finished));
    expect([ran('transfer', 'p1'), ran('transfer', 'p2'), ran('delete-record', 'p3')]).toEqual([
      1, 1, 0,
    ]);
    const audit = await a().getAuditTrail(waiting[0]!);
    expect(audit.map((e) => e.type)).toEqual([
      'gate',
      'request',
      'policy-change',
      'policy-release',
      'decision',
    ]);
    expect(audit[3]).toMatchObject({ changedBy: { id: 'ops' }, reason: 'incident over' });
    expect(audit[4]).toMatchObject({ decision: 'approved', channel: 'policy' });
    expect(audit[4]).not.toHaveProperty('decidedBy');
    // A call of another tool still waits; a new run's call of the relaxed tool runs at once.
    expect(await a().pendingToolCalls(other)).toHaveLength(1);
    const fresh = await a().generate('transfer p4');
    expect(fresh.finishReason).toBe('stop');
    expect(ran('transfer', 'p4')).toBe(1);
    const gate = (await a().getAuditTrail(fresh.runId))[0];
    expect(gate).toMatchObject({ type: 'gate', gated: false, source: 'live-policy' });
    expect(await tollgate.livePolicies.list({ agentId: 'live-ruled' })).toHaveLength(1);
  });

  it('a tightened rule gates calls not yet made and never reopens a decided one', async () => {
    // transfer is relaxed above; put it back as coded so the chain waits on it.
    await tollgate.livePolicies.set(
      { agentId: 'live-ruled', toolName: 'transfer', requireApproval: null },
      operator,
    );
    const before = await a().generate('lookup l1');
    expect(before.finishReason).toBe('stop');
    const chain = await a().generate('chain c1');
    expect(chain.finishReason).toBe('suspended');
    await a().approveToolCallGenerate({ runId: chain.runId, decidedBy: { id: 'alice' } });
    expect(await a().pendingToolCalls(chain.runId)).toMatchObject([{ toolName: 'transfer' }]);
    expect(ran('delete-record', 'c1')).toBe(1);
    await visible([chain.runId]);

    const tightened = await tollgate.livePolicies.set(
      { agentId: 'live-ruled', toolName: 'delete-record', requireApproval: true },
      operator,
    );
    const looked = await tollgate.livePolicies.set(
      { agentId: 'live-ruled', toolName: 'lookup', requireApproval: true },
      operator,
    );
    expect([tightened.released, looked.released]).toEqual([[], []]);
    // The decided call stays decided and ran once; the run still waits on transfer only.
    const audit = await a().getAuditTrail(chain.runId);
    const ofDelete = audit.filter((e) => e.toolName === 'delete-record' && e.type === 'request');
    expect(ofDelete).toHaveLength(1);
    expect(await a().pendingToolCalls(chain.runId)).toMatchObject([{ toolName: 'transfer' }]);
    expect(ran('delete-record', 'c1')).toBe(1);
    // A new call of the tightened tool waits.
    const after = await a().generate('lookup l2');
    expect(after.finishReason).toBe('suspended');
    expect(lookup.executions.map((e) => (e.input as { id: string }).id)).toEqual(['l1']);
    // Relaxing transfer releases the chain's waiting call; delete-record still never runs again.
    await tollgate.livePolicies.set(
      { agentId: 'live-ruled', toolName: 'transfer', requireApproval: false },
      operator,
    );
    await finished(chain.runId);
    expect([ran('delete-record', 'c1'), ran('transfer', 'c1')]).toEqual([1, 1]);
  });

  it('refuses a change from a caller without admin, a scope limited to resources, or for a tool the agent lacks, storing nothing', async () => {
    const rulesBefore = await tollgate.livePolicies.list();
    const change = { agentId: 'live-ruled', toolName: 'lookup', requireApproval: false };
    await expect(
      tollgate.livePolicies.set(change, { scope: { actions: ['decide'] } }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      tollgate.livePolicies.set(change, { scope: { actions: ['admin'], resources: ['r'] } }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(
      tollgate.livePolicies.set({ ...change, toolName: 'drop-table' }, operator),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(
      tollgate.livePolicies.set({ ...change, requireApproval: 'no' as never }, operator),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    expect(await tollgate.livePolicies.list()).toEqual(rulesBefore);
  });

  it('a run started the moment before a change follows it: told by the first listing or, once visibility caught up, by the second', async () => {
    await tollgate.livePolicies.set(
      { agentId: 'live-ruled', toolName: 'lookup', requireApproval: null },
      operator,
    );
    // Not awaited: the change is stored while the run's start may not be listed yet.
    const stream = await a().stream('slow s1', {
      memory: { resource: 'r', thread: uniqueId('t') },
    });
    const changed = await tollgate.livePolicies.set(
      { agentId: 'live-ruled', toolName: 'lookup', requireApproval: true },
      operator,
    );
    returnChange();
    expect(changed.refused).toEqual([]);
    expect(await stream.finishReason).toBe('suspended');
    expect(await a().pendingToolCalls(stream.runId)).toMatchObject([{ toolName: 'lookup' }]);
    expect(lookup.executions.filter((e) => (e.input as { id: string }).id === 's1')).toEqual([]);
    const audit = await a().getAuditTrail(stream.runId);
    expect(audit.filter((e) => e.type === 'policy-change').length).toBeLessThanOrEqual(1);
    await a().declineToolCallGenerate({ runId: stream.runId, decidedBy: { id: 'alice' } });
    expect(lookup.executions.filter((e) => (e.input as { id: string }).id === 's1')).toEqual([]);
  }, 60_000);
});
