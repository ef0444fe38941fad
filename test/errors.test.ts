import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { isTransientReadFailure } from '../src/temporal-client/errors.js';
import { statusOfErrorCode } from '../src/common/http-api.js';
import { Agent, createTool, Tollgate, TollgateError } from '../src/index.js';
import { scriptedModel } from '../src/testing/index.js';
import { eventually, hostAgents, recordingTool, testAgent } from './support/harness.js';

describe('definitions reject bad input with a typed error naming the problem', () => {
  const execute = async () => 'ok';

  it('refuses a tool name models cannot use', () => {
    expect(() => createTool({ id: 'delete record', inputSchema: z.object({}), execute })).toThrow(
      expect.objectContaining({
        code: 'INVALID_TOOL',
        message: expect.stringContaining('"delete record"'),
      }),
    );
  });

  it('refuses a tool without execute or schema, and a bad retry setting', () => {
    expect(() => createTool({ id: 'x', inputSchema: z.object({}) } as never)).toThrow(
      expect.objectContaining({
        code: 'INVALID_TOOL',
        message: expect.stringContaining('execute'),
      }),
    );
    expect(() => createTool({ id: 'x', execute } as never)).toThrow(
      expect.objectContaining({
        code: 'INVALID_TOOL',
        message: expect.stringContaining('inputSchema'),
      }),
    );
    expect(() =>
      createTool({ id: 'x', inputSchema: z.object({}), execute, retry: { maximumAttempts: 0 } }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_TOOL',
        message: expect.stringContaining('maximumAttempts'),
      }),
    );
  });

  it('refuses agents with duplicate tool names, bad ids or bad defaults', () => {
    const one = recordingTool('same').tool;
    const two = recordingTool('same').tool;
    const model = scriptedModel([]);
    expect(() => new Agent({ id: 'a', model, tools: { one, two } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_AGENT',
        message: expect.stringContaining('"same"'),
      }),
    );
    expect(() => new Agent({ id: 'has space', model })).toThrow(
      expect.objectContaining({ code: 'INVALID_AGENT' }),
    );
    expect(() => new Agent({ id: 'a', model, defaultOptions: { maxSteps: 0 } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_AGENT',
        message: expect.stringContaining('maxSteps'),
      }),
    );
    expect(() => new Agent({ id: 'a', model, tools: { bad: {} as never } })).toThrow(
      expect.objectContaining({
        code: 'INVALID_AGENT',
        message: expect.stringContaining('tools.bad'),
      }),
    );
  });
});

describe('runs that cannot proceed fail visibly', () => {
  const { agent } = testAgent('known-agent', [], [{ text: 'hello' }]);
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'errors');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  it('keeps a run of a published agent no running worker hosts waiting for a host, and finishes it on one (issue 26.1)', async () => {
    // Another deployment published ghost-agent on this queue, then left; this worker lacks it.
    const ghost = testAgent('ghost-agent', [], [{ text: 'boo' }]).agent;
    const elsewhere = await hostAgents([ghost], 'errors', tollgate.taskQueue);
    await elsewhere.shutdown();
    const stream = await tollgate.getAgent('ghost-agent').stream('hello?');
    const handle = (await tollgate.client()).workflow.getHandle(stream.runId);
    // Its first activity waits on the agent's own queue, which only hosts poll; the run does not fail.
    const pending = await eventually(async () => {
      const [activity] = (await handle.describe()).raw.pendingActivities ?? [];
      expect(activity?.activityType?.name).toBe('describeAgent');
      return activity!;
    });
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(pending.lastFailure ?? null).toBeNull();

    const host = await hostAgents([ghost], 'errors', tollgate.taskQueue);
    try {
      expect(await stream.text).toBe('boo');
      expect(await stream.finishReason).toBe('stop');
    } finally {
      await host.shutdown();
    }
  });

  it('rejects a caller-chosen runId that is already taken, leaving the first run intact', async () => {
    const first = await tollgate
      .getAgent('known-agent')
      .generate('hi', { runId: `taken-${Date.now()}` });
    expect(first.finishReason).toBe('stop');
    await expect(
      tollgate.getAgent('known-agent').generate('hi', { runId: first.runId }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining(first.runId),
    });
    const observed = await tollgate.getAgent('known-agent').observe({ runId: first.runId });
    expect(await observed.text).toBe('hello');
  });
});

describe('Temporal answers that are not about the run get their own codes', () => {
  it('names a namespace Temporal does not know (NAMESPACE_NOT_FOUND, HTTP 503), not a missing run', async () => {
    const elsewhere = new Tollgate({
      temporal: {
        address: process.env.TEMPORAL_ADDRESS!,
        namespace: 'no-such-namespace',
        taskQueue: 'nowhere',
      },
    });
    try {
      const runs = elsewhere.getAgent('known-agent');
      for (const call of [
        () => runs.pendingToolCalls('some-run'),
        () => runs.approveToolCall({ runId: 'some-run' }),
        () => runs.getAuditTrail('some-run'),
      ]) {
        await expect(call()).rejects.toMatchObject({
          code: 'NAMESPACE_NOT_FOUND',
          message: expect.stringContaining('"no-such-namespace"'),
        });
      }
      expect(statusOfErrorCode('NAMESPACE_NOT_FOUND')).toBe(503);
      expect(statusOfErrorCode('TEMPORAL_UNAVAILABLE')).toBe(503);
    } finally {
      await elsewhere.shutdown();
    }
  });

  it('still says RUN_NOT_FOUND for a run that does not exist', async () => {
    const tollgate = new Tollgate({
      temporal: {
        address: process.env.TEMPORAL_ADDRESS!,
        namespace: process.env.TEMPORAL_NAMESPACE!,
        taskQueue: 'nowhere',
      },
    });
    try {
      await expect(
        tollgate.getAgent('known-agent').pendingToolCalls(`missing-${Date.now()}`),
      ).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    } finally {
      await tollgate.shutdown();
    }
  });
});

describe('which failed reads a stream retries', () => {
  /** What @grpc/grpc-js rejects a call with. */
  const grpcError = (code: number) =>
    Object.assign(new Error(`${code} grpc`), { code, details: 'grpc', metadata: {} });

  it('retries timeouts, overload, outages and a missing worker, but not a refused or broken query', () => {
    for (const code of [4, 8, 10, 14]) expect(isTransientReadFailure(grpcError(code))).toBe(true);
    // Wrapped, as the Temporal client wraps it.
    expect(isTransientReadFailure(new Error('query failed', { cause: grpcError(4) }))).toBe(true);
    for (const code of [3, 7, 9, 13]) expect(isTransientReadFailure(grpcError(code))).toBe(false);
    // What a query answers while no worker has polled lately (seen after a server restart).
    const noPoller = Object.assign(grpcError(9), {
      message: '9 FAILED_PRECONDITION: no poller seen for task queue recently, worker may be down',
    });
    expect(isTransientReadFailure(new Error('Failed to query Workflow', { cause: noPoller }))).toBe(
      true,
    );
    expect(isTransientReadFailure(new TollgateError('TEMPORAL_UNAVAILABLE', 'away'))).toBe(true);
    expect(isTransientReadFailure(new TollgateError('RUN_FINISHED', 'done'))).toBe(false);
    expect(isTransientReadFailure(new Error('a bug'))).toBe(false);
  });
});
