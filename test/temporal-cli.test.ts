import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import { hostAgents, recordingTool, testAgent } from './support/harness.js';

const run = promisify(execFile);

/** Runs the `temporal` CLI against the test server; resolves with its output even when it fails. */
async function temporal(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const cli = process.env.TEMPORAL_CLI!;
  const connection = [
    '--address',
    process.env.TEMPORAL_ADDRESS!,
    '--namespace',
    process.env.TEMPORAL_NAMESPACE!,
  ];
  try {
    const { stdout, stderr } = await run(cli, [...args, ...connection], { timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const deleteThenDone: TurnPicker = (prompt) =>
  prompt.at(-1)?.role === 'tool'
    ? { text: 'done' }
    : { toolCalls: [{ toolName: 'delete-record', args: { id: 'cli-1' } }] };

describe('decisions from another service: the temporal CLI alone (SPEC §8)', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent('cli-agent', [deleteRecord.tool], deleteThenDone);
  let tollgate: Tollgate;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'cli');
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  async function parked(): Promise<{ runId: string; toolCallId: string }> {
    const output = await tollgate.getAgent('cli-agent').generate('delete cli-1');
    expect(output.finishReason).toBe('suspended');
    return { runId: output.runId, toolCallId: output.suspendPayload!.toolCallId };
  }

  it('lists the pending call and approves it with `temporal workflow signal --name approve`', async () => {
    const { runId, toolCallId } = await parked();
    const query = await temporal(
      'workflow',
      'query',
      '--workflow-id',
      runId,
      '--name',
      'pendingToolCalls',
      '--output',
      'json',
    );
    expect(query.code).toBe(0);
    expect(query.stdout).toContain(toolCallId);
    expect(query.stdout).toContain('delete-record');

    const executed = deleteRecord.executions.length;
    const signal = await temporal(
      'workflow',
      'signal',
      '--workflow-id',
      runId,
      '--name',
      'approve',
      '--input',
      JSON.stringify({ toolCallId }),
    );
    expect(signal.code).toBe(0);
    const result = await temporal('workflow', 'result', '--workflow-id', runId, '--output', 'json');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"finishReason": "stop"');
    expect(deleteRecord.executions.length).toBe(executed + 1);
  });

  it('approves with `temporal workflow update execute --name approveToolCall`, which returns the applied decision', async () => {
    const { runId, toolCallId } = await parked();
    const executed = deleteRecord.executions.length;
    const update = await temporal(
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      runId,
      '--name',
      'approveToolCall',
      '--input',
      JSON.stringify({ toolCallId, decidedBy: { id: 'ops-cli' } }),
      '--output',
      'json',
    );
    expect(update.code).toBe(0);
    expect(update.stdout).toContain('"decision": "approved"');
    expect((await temporal('workflow', 'result', '--workflow-id', runId)).code).toBe(0);
    expect(deleteRecord.executions.length).toBe(executed + 1);
  });

  it('rejects a bad update with the typed error of SPEC §5 and leaves the run waiting', async () => {
    const { runId, toolCallId } = await parked();
    const wrong = await temporal(
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      runId,
      '--name',
      'approveToolCall',
      '--input',
      JSON.stringify({ toolCallId, fingerprint: 'not-the-fingerprint' }),
    );
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr + wrong.stdout).toMatch(/does not match tool call/);
    const unknown = await temporal(
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      runId,
      '--name',
      'declineToolCall',
      '--input',
      '{"toolCallId":"call_nope"}',
    );
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr + unknown.stdout).toMatch(/call_nope is not waiting/);
    expect(await tollgate.getAgent('cli-agent').pendingToolCalls(runId)).toEqual([
      expect.objectContaining({ toolCallId }),
    ]);
    const decline = await temporal(
      'workflow',
      'update',
      'execute',
      '--workflow-id',
      runId,
      '--name',
      'declineToolCall',
      '--input',
      JSON.stringify({ toolCallId, reason: 'Not today' }),
    );
    expect(decline.code).toBe(0);
    const executed = deleteRecord.executions.length;
    const client = await tollgate.client();
    expect(await client.workflow.getHandle(runId).result()).toMatchObject({ finishReason: 'stop' });
    expect(deleteRecord.executions.length).toBe(executed);
  });
});
