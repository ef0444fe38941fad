import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Tollgate } from '../src/index.js';
import type { ChildWorker } from '../bench/support/child.js';
import { testChildWorker } from './support/child-worker.js';
import { uniqueQueue } from './support/harness.js';
import { HTTP_SERVER, serverCalls, stateDir } from './support/mcp-fixtures.js';
import { TRANSFER_QUESTION, TRANSFER_SCHEMA } from './support/mcp-test-server.js';

const WORKER_SCRIPT = fileURLToPath(new URL('./support/mcp-worker-process.js', import.meta.url));

/** Starts the Streamable HTTP test server; resolves with its process and URL. */
async function startHttpServer(dir: string): Promise<{ server: ChildProcess; url: string }> {
  const server = spawn(process.execPath, [HTTP_SERVER], {
    env: { ...process.env, MCP_STATE_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    server.stdout!.on('data', (data: Buffer) => {
      const found = /listening (\d+)/.exec(String(data));
      if (found) resolve(found[1]!);
    });
    server.once('exit', (code) => reject(new Error(`mcp-http-server exited (${code})`)));
  });
  return { server, url: `http://127.0.0.1:${port}/mcp` };
}

describe('MCP tools over Streamable HTTP, across a worker restart', () => {
  const queue = uniqueQueue('mcp-restart');
  const workers: ChildWorker[] = [];
  let server: ChildProcess | undefined;
  let tollgate: Tollgate | undefined;

  afterAll(async () => {
    await tollgate?.shutdown();
    for (const worker of workers) await worker.stop('SIGTERM');
    server?.kill('SIGTERM');
  });

  it('gates over HTTP, and a call parked on an elicitation completes on a new worker with the answer', async () => {
    const dir = await stateDir('http');
    const started = await startHttpServer(dir);
    server = started.server;
    const spawnWorker = async (name: string) => {
      const worker = testChildWorker(name, WORKER_SCRIPT, queue, { MCP_URL: started.url });
      workers.push(worker);
      await worker.whenReady(60_000);
      return worker;
    };
    const a = await spawnWorker('worker A');
    // This process hosts no worker: it only starts and decides runs.
    tollgate = new Tollgate({ temporal: { taskQueue: queue } });
    const agent = tollgate.getAgent('mcp-restart-agent');

    // The destructive tool waits for approval, and runs once when approved.
    const gated = await agent.generate('delete it');
    expect(gated.finishReason).toBe('suspended');
    expect(gated.suspendPayload).toMatchObject({ toolName: 'delete_file', requiresApproval: true });
    expect(await serverCalls(dir, 'delete_file')).toHaveLength(0);
    const deleted = await agent.approveToolCallGenerate({ runId: gated.runId });
    expect(deleted.text).toBe('"deleted /tmp/a.txt"');
    expect(await serverCalls(dir, 'delete_file')).toHaveLength(1);

    // The call parks on the server's question; then its worker dies.
    const parked = await agent.generate('transfer 7');
    expect(parked.finishReason).toBe('suspended');
    expect(parked.suspendPayload).toMatchObject({
      toolName: 'transfer',
      suspendPayload: { kind: 'mcp-elicitation', message: TRANSFER_QUESTION(7) },
    });
    const [pending] = await agent.pendingToolCalls(parked.runId);
    expect(JSON.parse(pending!.resumeSchema).anyOf[0]).toEqual(TRANSFER_SCHEMA);
    expect(await a.stop('SIGKILL')).toBe('SIGKILL');

    const b = await spawnWorker('worker B');
    const done = await agent.resumeGenerate(
      { account: 'NL91 ABNA', confirm: true },
      { runId: parked.runId },
    );
    expect(done.text).toBe('"transferred 7 EUR to NL91 ABNA"');
    const transfer = await serverCalls(dir, 'transfer');
    // Asked on worker A's call, answered on worker B's re-issued call; done once.
    expect(transfer.map((line) => line.event)).toEqual(['started', 'started', 'elicited', 'done']);
    expect(transfer[2]!.answer).toEqual({ account: 'NL91 ABNA', confirm: true });
    expect(b.alive).toBe(true);
  });
});
