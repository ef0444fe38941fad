import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { hostAgents, recordingTool, testAgent, uniqueId } from './support/harness.js';

/** Calls the tool named in the prompt ("use <tool>"), then stops. */
const callNamedTool: TurnPicker = (prompt) => {
  const last = prompt.at(-1);
  if (last?.role === 'tool') return { text: 'done' };
  const tool = /use ([\w-]+)/.exec(JSON.stringify(last?.content))?.[1] ?? 'plain';
  return { toolCalls: [{ toolName: tool, args: { id: tool } }] };
};

describe('approval rules (SPEC §5)', () => {
  const plain = recordingTool('plain');
  const predicateNo = recordingTool('predicate-no', { requireApproval: () => false });
  const predicateYes = recordingTool('predicate-yes', {
    requireApproval: (args) => args.id === 'predicate-yes',
  });
  const predicateThrows = recordingTool('predicate-throws', {
    requireApproval: () => {
      throw new Error('policy bug');
    },
  });
  const { agent } = testAgent(
    'policy-agent',
    [plain.tool, predicateNo.tool, predicateYes.tool, predicateThrows.tool],
    callNamedTool,
  );
  const byDefault = recordingTool('plain');
  const { agent: guarded } = testAgent('default-policy-agent', [byDefault.tool], callNamedTool, {
    requireToolApproval: ({ requestContext }) => requestContext.env === 'prod',
  });
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, guarded], 'policies');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const run = (
    prompt: string,
    options: Parameters<ReturnType<Tollgate['getAgent']>['generate']>[1] = {},
    agentId = 'policy-agent',
  ) => tollgate.getAgent(agentId).generate(prompt, options);

  it('runs an ungated tool without asking', async () => {
    const output = await run('use plain');
    expect(output.finishReason).toBe('stop');
    expect(plain.executions).toHaveLength(1);
  });

  it('gates every call when the request sets requireToolApproval: true', async () => {
    const output = await run('use plain', { requireToolApproval: true });
    expect(output.finishReason).toBe('suspended');
    expect(output.suspendPayload).toMatchObject({ toolName: 'plain' });
    expect(plain.executions).toHaveLength(1);
  });

  it('gates with a request policy function, evaluated where the run was started', async () => {
    const seen: string[] = [];
    const policy = ({ toolName }: { toolName: string }) => {
      seen.push(toolName);
      return toolName === 'plain';
    };
    const output = await run('use plain', { requireToolApproval: policy });
    expect(output.finishReason).toBe('suspended');
    expect(seen).toEqual(['plain']);
    // Approving does not evaluate the policy again: the gate decision was recorded once.
    const done = await tollgate
      .getAgent('policy-agent')
      .approveToolCallGenerate({ runId: output.runId });
    expect(done.finishReason).toBe('stop');
    expect(seen).toEqual(['plain']);
  });

  it('lets a tool predicate override the request: false runs even when the request says true', async () => {
    const output = await run('use predicate-no', { requireToolApproval: true });
    expect(output.finishReason).toBe('stop');
    expect(predicateNo.executions).toHaveLength(1);
  });

  it('lets a tool predicate gate when an overriding request says false', async () => {
    const output = await run('use predicate-yes', {
      requireToolApproval: false,
      approvalOverride: true,
    });
    expect(output.finishReason).toBe('suspended');
    expect(predicateYes.executions).toHaveLength(0);
  });

  it('gates the call when a tool predicate throws (fail-safe)', async () => {
    const output = await run('use predicate-throws', {
      requireToolApproval: false,
      approvalOverride: true,
    });
    expect(output.finishReason).toBe('suspended');
    expect(predicateThrows.executions).toHaveLength(0);
  });

  it('gates the call when a request policy throws (fail-safe)', async () => {
    const before = plain.executions.length;
    const output = await run('use plain', {
      requireToolApproval: () => {
        throw new Error('request policy bug');
      },
    });
    expect(output.finishReason).toBe('suspended');
    expect(plain.executions).toHaveLength(before);
  });

  it('applies the agent default policy when the request sets none, with the request context', async () => {
    const prod = await run(
      'use plain',
      { requestContext: { env: 'prod' } },
      'default-policy-agent',
    );
    expect(prod.finishReason).toBe('suspended');
    const dev = await run('use plain', { requestContext: { env: 'dev' } }, 'default-policy-agent');
    expect(dev.finishReason).toBe('stop');
    expect(byDefault.executions).toHaveLength(1);
    // An overriding request's boolean (the agent owner's own code may) wins over the default.
    const forced = await run(
      'use plain',
      { requestContext: { env: 'prod' }, requireToolApproval: false, approvalOverride: true },
      'default-policy-agent',
    );
    expect(forced.finishReason).toBe('stop');
    expect(byDefault.executions).toHaveLength(2);
  });

  it('rejects bad run options with a typed error and starts nothing', async () => {
    const runId = uniqueId('bad-options');
    await expect(run('use plain', { maxSteps: 0, runId })).rejects.toMatchObject({
      name: 'TollgateError',
      code: 'INVALID_OPTIONS',
    });
    await expect(run('', {})).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(tollgate.getAgent('policy-agent').observe({ runId })).rejects.toMatchObject({
      code: 'RUN_NOT_FOUND',
    });
  });
});
