/**
 * SPEC §1 "Tool names": the model, chunks, policies, hooks, pending calls, the audit and
 * `TollgatePendingTools` name a tool by its key in `tools`; where the key differs from the tool's
 * id, operators see the id too; runs started before this rule keep the ids they started with.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { AgentRegistry } from '../src/activities/agent-registry.js';
import { createActivities } from '../src/activities/index.js';
import { DEFAULT_THREAD_SETTINGS } from '../src/activities/memory.js';
import { LiveBus } from '../src/live/live-bus.js';
import { Agent, createTool, Tollgate, type Chunk } from '../src/index.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import { SA_KEYS } from '../src/common/search-attribute-keys.js';
import { agentTaskQueue } from '../src/common/wire.js';
import { toolLabel } from '../src/common/chunks.js';
import { describeAgent } from '../src/activities/describe-agent.js';
import { currentDetails } from '../src/workflows/current-details.js';
import type { WaitingCall } from '../src/workflows/waiting-call.js';
import {
  chunksOf,
  hostAgents,
  publishWithoutWorker,
  recordingTool,
  uniqueId,
} from './support/harness.js';

/** "use <tool>" calls that tool (by the name given) with `{ id: 'rec-1' }`, then says `done`. */
const callNamedTool: TurnPicker = (prompt) => {
  const last = prompt.at(-1);
  if (last?.role === 'tool') return { text: 'done' };
  const tool = /use ([\w-]+)/.exec(JSON.stringify(last?.content))?.[1] ?? 'none';
  return { toolCalls: [{ toolName: tool, args: { id: 'rec-1' } }] };
};

/** The tool fields of every chunk about a tool call. */
function toolNamesOf(chunks: Chunk[]): Array<{ type: string; toolName: unknown; toolId: unknown }> {
  return chunks
    .filter((chunk) => chunk.type.startsWith('tool-'))
    .map((chunk) => {
      const payload = chunk.payload as { toolName?: string; toolId?: string };
      return { type: chunk.type, toolName: payload.toolName, toolId: payload.toolId };
    });
}

describe('tools are named by their key in tools (SPEC §1 "Tool names")', () => {
  const deletions = recordingTool('delete-record');
  const archived: string[] = [];
  const predicateSaw: string[] = [];
  const archive = createTool({
    id: 'archive-record',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: (_args, context) => {
      predicateSaw.push(context.toolName);
      return true;
    },
    execute: async (input) => {
      archived.push(input.id);
      return { archived: input.id };
    },
  });
  const hooks: string[] = [];
  const model = scriptedModel(callNamedTool, 'tool-keys');
  // As ported from the reference design: the policy names the key, not the id.
  const agent = new Agent({
    id: 'tool-keys-agent',
    model,
    tools: { deleteRecord: deletions.tool, archive },
    hooks: {
      beforeToolCall: ({ toolName, toolId }) => void hooks.push(`before ${toolName} ${toolId}`),
      afterToolCall: ({ toolName, toolId }) => void hooks.push(`after ${toolName} ${toolId}`),
    },
    defaultOptions: { requireToolApproval: ({ toolName }) => toolName === 'deleteRecord' },
  });
  const namedSaw: string[] = [];
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = new Tollgate({
      agents: { agent },
      temporal: { taskQueue: uniqueId('tool-keys') },
      policies: {
        keysOnly: ({ toolName }) => {
          namedSaw.push(toolName);
          return toolName === 'deleteRecord';
        },
      },
    });
    await tollgate.startWorker();
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('gates with a ported requireToolApproval on the key; the model, chunks, pending calls, search attribute, audit and hooks use the key and show the id', async () => {
    const client = tollgate.getAgent('tool-keys-agent');
    const runId = uniqueId('keys');
    const offeredBefore = model.offeredTools.length;
    const stream = await client.stream('use deleteRecord', { runId });
    const first = await chunksOf(stream);
    expect(await stream.finishReason).toBe('suspended');
    expect(model.offeredTools[offeredBefore]).toEqual(['deleteRecord', 'archive']);
    expect(deletions.executions).toHaveLength(0);
    const named = { toolName: 'deleteRecord', toolId: 'delete-record' };
    expect(toolNamesOf(first)).toEqual([
      { type: 'tool-call', ...named },
      { type: 'tool-call-approval', ...named },
    ]);
    expect(await stream.suspendPayload).toMatchObject(named);
    expect(await client.pendingToolCalls(runId)).toEqual([expect.objectContaining(named)]);
    const handle = (await tollgate.client()).workflow.getHandle(runId);
    expect((await handle.describe()).typedSearchAttributes.get(SA_KEYS.pendingTools)).toEqual([
      'deleteRecord',
      'delete-record',
    ]);

    const approved = await client.approveToolCall({ runId });
    expect(toolNamesOf(await chunksOf(approved))).toEqual([{ type: 'tool-result', ...named }]);
    expect(await approved.finishReason).toBe('stop');
    expect(deletions.executions).toHaveLength(1);
    expect(hooks).toEqual([
      'before deleteRecord delete-record',
      'after deleteRecord delete-record',
    ]);
    const audit = await client.getAuditTrail(runId);
    expect(audit.map((entry) => [entry.type, entry.toolName, entry.toolId])).toEqual([
      ['gate', 'deleteRecord', 'delete-record'],
      ['request', 'deleteRecord', 'delete-record'],
      ['decision', 'deleteRecord', 'delete-record'],
    ]);
    expect(audit[0]).toMatchObject({ gated: true, source: 'agent-function' });
    // The id identifies the definition in Temporal: the execution's activity summary.
    const summaries = ((await handle.fetchHistory()).events ?? []).flatMap((event) => {
      const data = event.userMetadata?.summary?.data;
      return data ? [Buffer.from(data).toString()] : [];
    });
    expect(summaries).toContain('"tool delete-record"');
    expect(summaries).not.toContain('"tool deleteRecord"');
  });

  it('gives request policy functions, named policies and tool predicates the key', async () => {
    const client = tollgate.getAgent('tool-keys-agent');
    const requestSaw: string[] = [];
    const byFunction = await client.generate('use deleteRecord', {
      requireToolApproval: ({ toolName }) => {
        requestSaw.push(toolName);
        return toolName === 'deleteRecord';
      },
    });
    expect(byFunction.finishReason).toBe('suspended');
    expect(requestSaw).toEqual(['deleteRecord']);

    const byName = await client.generate('use deleteRecord', { requireToolApproval: 'keysOnly' });
    expect(byName.finishReason).toBe('suspended');
    expect(namedSaw).toEqual(['deleteRecord']);

    const byPredicate = await client.generate('use archive', {
      requireToolApproval: false,
      approvalOverride: true,
    });
    expect(byPredicate.finishReason).toBe('suspended');
    expect(predicateSaw).toEqual(['archive']);
    expect(byPredicate.suspendPayload).toMatchObject({
      toolName: 'archive',
      toolId: 'archive-record',
    });
    expect(deletions.executions).toHaveLength(1);
    expect(archived).toEqual([]);
  });

  it('answers a call of the id, which the model is not offered, as an unknown tool', async () => {
    const output = await tollgate.getAgent('tool-keys-agent').generate('use delete-record');
    expect(output.finishReason).toBe('stop');
    expect(output.toolResults).toEqual([
      expect.objectContaining({
        toolName: 'delete-record',
        error: expect.stringContaining('Available tools: deleteRecord, archive'),
      }),
    ]);
    expect(deletions.executions).toHaveLength(1);
  });
});

describe('tools whose key is their id', () => {
  it('show no separate id', async () => {
    const plain = recordingTool('plain', { requireApproval: true });
    const agent = new Agent({
      id: 'same-key-agent',
      model: scriptedModel(callNamedTool),
      tools: { plain: plain.tool },
    });
    const tollgate = await hostAgents([agent], 'same-key');
    try {
      const output = await tollgate.getAgent('same-key-agent').generate('use plain');
      expect(output.finishReason).toBe('suspended');
      expect(output.suspendPayload).toEqual(expect.objectContaining({ toolName: 'plain' }));
      expect(output.suspendPayload).not.toHaveProperty('toolId');
    } finally {
      await tollgate.shutdown();
    }
  });
});

const distFile = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The workflow code as it was before the `tollgate-tool-keys` patch: the same bundle, with the
 * run-start decision replaced by one that records no marker and names tools by id.
 */
function workflowBundleBeforeToolKeys() {
  return bundleWorkflowCode({
    workflowsPath: distFile('../src/workflows/index.js'),
    workflowInterceptorModules: [distFile('../src/workflows/update-order.js')],
    webpackConfigHook: (config) => ({
      ...config,
      resolve: {
        ...config.resolve,
        alias: {
          ...config.resolve?.alias,
          [distFile('../src/workflows/tool-keys-patch.js')]: distFile(
            './support/tool-keys-before-patch.js',
          ),
        },
      },
    }),
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (m) => console.error(m),
    },
  });
}

describe('a run started before tools were named by key, decided after the upgrade', () => {
  it('keeps the ids it started with on the new worker: model, chunks, execution and audit', async () => {
    const deletions = recordingTool('delete-record', { requireApproval: true });
    const model = scriptedModel(callNamedTool, 'before-keys');
    const agent = new Agent({
      id: 'before-keys-agent',
      model,
      tools: { deleteRecord: deletions.tool },
    });
    const taskQueue = uniqueId('before-keys');
    const tollgate = new Tollgate({ agents: { agent }, temporal: { taskQueue } });
    const client = tollgate.getAgent('before-keys-agent');
    const runId = uniqueId('old-run');
    let connection: NativeConnection | undefined;
    let oldWorker: Worker | undefined;
    let oldAgentWorker: Worker | undefined;
    let oldRunning: Promise<unknown> | undefined;
    try {
      connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
      const activities = createActivities({
        agents: new AgentRegistry([agent]),
        bus: new LiveBus(),
        client: await tollgate.client(),
        threads: DEFAULT_THREAD_SETTINGS,
        policies: new Map(),
      });
      const namespace = process.env.TEMPORAL_NAMESPACE!;
      oldWorker = await Worker.create({
        connection,
        namespace,
        taskQueue,
        workflowBundle: await workflowBundleBeforeToolKeys(),
        activities,
      });
      // That release already sent the agent's activities to the agent's own queue.
      oldAgentWorker = await Worker.create({
        connection,
        namespace,
        taskQueue: agentTaskQueue(taskQueue, agent.id),
        activities,
      });
      oldRunning = Promise.all([oldWorker.run(), oldAgentWorker.run()]);
      // The run stands for one started before the directory existed: its agent is listed as an
      // upgraded worker of that deployment would list it.
      await publishWithoutWorker(tollgate, taskQueue, [agent], 'old-worker');
      const started = await client.generate('use delete-record', { runId });
      expect(started.finishReason).toBe('suspended');
      expect(started.suspendPayload).toMatchObject({ toolName: 'delete-record' });
      expect(started.suspendPayload).not.toHaveProperty('toolId');
      expect(model.offeredTools).toEqual([['delete-record']]);
      await stopOldWorker();

      // The upgrade: the new code's worker replays the run and finishes it.
      await tollgate.startWorker();
      const approved = await client.approveToolCall({ runId });
      const chunks = await chunksOf(approved);
      expect(await approved.finishReason).toBe('stop');
      expect(toolNamesOf(chunks)).toEqual([
        { type: 'tool-result', toolName: 'delete-record', toolId: undefined },
      ]);
      expect(deletions.executions).toHaveLength(1);
      expect(model.offeredTools).toEqual([['delete-record'], ['delete-record']]);
      const audit = await client.getAuditTrail(runId);
      expect(audit.map((entry) => entry.toolName)).toEqual([
        'delete-record',
        'delete-record',
        'delete-record',
      ]);

      // A run started now names the tool by its key.
      const fresh = await client.generate('use deleteRecord');
      expect(fresh.suspendPayload).toMatchObject({
        toolName: 'deleteRecord',
        toolId: 'delete-record',
      });
      expect(model.offeredTools.at(-1)).toEqual(['deleteRecord']);
    } finally {
      // Also when an assertion failed first: a worker left polling keeps jest from exiting.
      await stopOldWorker();
      await tollgate.shutdown();
    }

    async function stopOldWorker(): Promise<void> {
      for (const worker of [oldWorker, oldAgentWorker])
        if (worker?.getState() === 'RUNNING') worker.shutdown();
      await oldRunning;
      await connection?.close();
      connection = undefined;
    }
  });
});

describe('tool keys and ids without a server', () => {
  const deleteRecord = recordingTool('delete-record').tool;
  const model = scriptedModel([]);

  it('describes the tools by key with their ids for new runs, by id for runs started before', () => {
    const agent = new Agent({ id: 'describe-keys', model, tools: { deleteRecord } });
    const byKey = describeAgent(agent, 'key');
    expect(byKey.toolNaming).toBe('key');
    expect(Object.keys(byKey.tools)).toEqual(['deleteRecord']);
    expect(byKey.tools.deleteRecord).toMatchObject({
      name: 'deleteRecord',
      toolId: 'delete-record',
    });
    const byId = describeAgent(agent);
    expect(byId).not.toHaveProperty('toolNaming');
    expect(Object.keys(byId.tools)).toEqual(['delete-record']);
    expect(byId.tools['delete-record']).not.toHaveProperty('toolId');
  });

  it('refuses a key models would reject, and a sub-agent whose tool name is a tool key', () => {
    expect(() => new Agent({ id: 'a', model, tools: { 'delete record': deleteRecord } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_AGENT',
        message: expect.stringContaining('"delete record"'),
      }),
    );
    const db = new Agent({ id: 'db', model });
    expect(
      () => new Agent({ id: 'a', model, tools: { 'agent-db': deleteRecord }, agents: { db } }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_AGENT',
        message: expect.stringContaining('already a tool'),
      }),
    );
  });

  it('labels a tool for operators with its id only where the id differs', () => {
    expect(toolLabel({ toolName: 'deleteRecord', toolId: 'delete-record' })).toBe(
      'deleteRecord (id delete-record)',
    );
    expect(toolLabel({ toolName: 'plain' })).toBe('plain');
    const waiting = {
      toolCallId: 'call_1',
      toolName: 'deleteRecord',
      toolId: 'delete-record',
      args: { id: 'rec-1' },
      fingerprint: 'ab'.repeat(32),
      requiresApproval: true,
      resumeSchema: '{}',
      requestedAt: '2026-01-01T00:00:00.000Z',
      kind: 'approve',
      sequence: 1,
    } satisfies WaitingCall;
    expect(currentDetails('awaiting-approval', [waiting])).toContain(
      '| deleteRecord (id delete-record) | approve / decline |',
    );
  });
});
