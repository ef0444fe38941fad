/**
 * Issue 29.2: `a2aTool()` against an agent served by the A2A SDK's own server: its
 * `input-required` parks the call durably, the resume data is its reply, each message is sent
 * once, and a failed task is a typed tool error.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { a2aTool, type A2AInputRequired } from '../src/a2a/index.js';
import type { Agent, Tollgate } from '../src/index.js';
import {
  hostAgents,
  lastToolOutputs,
  outputsText,
  testAgent,
  uniqueQueue,
} from './support/harness.js';
import { startSdkAgent, type SdkAgent } from './support/a2a-sdk-server.js';

describe('a2aTool() against an A2A SDK server', () => {
  let remote: SdkAgent;
  let tollgate: Tollgate;
  let agent: Agent;
  const queue = uniqueQueue('a2a-tool');

  beforeAll(async () => {
    remote = await startSdkAgent();
    const deploy = a2aTool({ id: 'deploy', url: remote.url, pollIntervalMs: 100 });
    ({ agent } = testAgent('a2a-deployer', [deploy], (prompt) => {
      const outputs = lastToolOutputs(prompt);
      if (outputs) return { text: `Got: ${outputsText(outputs)}` };
      const text = JSON.stringify(prompt.at(-1)?.content);
      return {
        toolCalls: [
          {
            toolName: 'deploy',
            args: { message: text.includes('fail') ? 'please fail' : 'deploy v2' },
          },
        ],
      };
    }));
    tollgate = await hostAgents([agent], 'a2a-tool', queue);
  });
  afterAll(async () => {
    await tollgate?.shutdown();
    await remote?.close();
  });

  it('parks the call on input-required across a worker restart, sends the resume data as the reply once, and returns the result', async () => {
    const first = await tollgate.getAgent('a2a-deployer').generate('deploy it');
    expect(first.finishReason).toBe('suspended');
    // The worker that sent the message goes away; the suspension lives in the run alone.
    await tollgate.shutdown();
    tollgate = await hostAgents([agent], 'a2a-tool', queue);
    const client = tollgate.getAgent('a2a-deployer');
    const [parked] = await client.pendingToolCalls(first.runId);
    const asked = parked!.suspendPayload as unknown as A2AInputRequired;
    expect(asked).toEqual(
      expect.objectContaining({
        kind: 'a2a-input-required',
        question: 'Which environment?',
        round: 0,
      }),
    );
    expect(remote.received).toEqual([expect.objectContaining({ taskId: '', text: 'deploy v2' })]);

    const out = await client.resumeGenerate({ text: 'staging' }, { runId: first.runId });
    expect(out.finishReason).toBe('stop');
    expect(out.text).toContain('Deployed to staging.');
    expect(remote.received).toHaveLength(2);
    expect(remote.received[1]).toEqual(
      expect.objectContaining({ taskId: asked.taskId, text: 'staging' }),
    );
    // Message ids come from the call's idempotency key: a retried attempt would send the same.
    expect(remote.received[0]!.messageId).toMatch(/^tollgate-[0-9a-f]{32}$/);
  });

  it('a failed remote task is a tool error with code A2A_TASK_FAILED, sent once', async () => {
    const before = remote.received.length;
    const out = await tollgate.getAgent('a2a-deployer').generate('fail please');
    const errors = out.steps.flatMap((step) => JSON.stringify(step)).join('');
    expect(errors).toContain('A2A_TASK_FAILED');
    expect(errors).toContain('No capacity left.');
    expect(remote.received.length - before).toBe(1);
  });
});
