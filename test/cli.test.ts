import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { createTool, Tollgate } from '../src/index.js';
import type { TurnPicker } from '../src/testing/index.js';
import {
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueId,
  uniqueQueue,
  lastToolOutputs,
  outputsText,
} from './support/harness.js';
import { answeringAgentsModule, CLI, cli, envWith } from './support/cli.js';

/** A long-running CLI process, its output so far, and its exit. */
function start(args: string[], env: Record<string, string | undefined> = {}) {
  const child: ChildProcess = spawn(process.execPath, [CLI, ...args], {
    env: envWith(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    /** The first stdout line matching `test`, waiting for it up to `timeoutMs`. */
    waitForLine: (test: (line: string) => boolean, timeoutMs = 30_000) =>
      eventually(async () => {
        const line = lines.find(test);
        if (line === undefined) throw new Error(`No such line yet; stdout: ${lines.join('\n')}`);
        return line;
      }, timeoutMs),
  };
}

function jsonLines(stdout: string): Array<{ type: string; from?: string; payload?: unknown }> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { type: string; payload?: unknown });
}

/** "delete <id>" asks the gated tool, "ask" the suspending one; after a tool, reports its result. */
const byPrompt: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `result: ${outputsText(outputs)}` };
  const last = prompt.at(-1);
  const text = JSON.stringify(last?.content);
  const id = /delete ([\w-]+)/.exec(text)?.[1];
  if (id) return { text: 'Deleting. ', toolCalls: [{ toolName: 'delete-record', args: { id } }] };
  if (text.includes('ask')) return { toolCalls: [{ toolName: 'ask-city', args: {} }] };
  return { text: 'hello there' };
};

describe('the tollgate CLI', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const resumed: unknown[] = [];
  const askCity = createTool({
    id: 'ask-city',
    inputSchema: z.object({}),
    resumeSchema: z.object({ city: z.string() }),
    execute: async (_input, { agent }) => {
      if (!agent.resumeData) return agent.suspend({ question: 'Which city?' });
      resumed.push(agent.resumeData);
      return { city: agent.resumeData.city };
    },
  });
  const { agent } = testAgent('cli-agent', [deleteRecord.tool, askCity], byPrompt);
  const thread = uniqueId('cli-thread');
  const memory = { thread, resource: 'ops' };
  let tollgate: Tollgate;
  let flags: string[];

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'cli');
    flags = ['--task-queue', tollgate.taskQueue];
  });
  afterAll(async () => {
    await tollgate.shutdown();
  });

  const a = () => tollgate.getAgent('cli-agent');
  /** A run parked on `delete-record`, with the id of the call and its fingerprint. */
  const parkDeletion = async (id: string) => {
    const output = await a().generate(`delete ${id}`, { memory });
    expect(output.finishReason).toBe('suspended');
    return { runId: output.runId, ...output.suspendPayload! };
  };
  const executionsOf = (id: string) =>
    deleteRecord.executions.filter((execution) => (execution.input as { id: string }).id === id);

  it('prints help with the exit codes, and exits 2 on usage errors', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('runs pending');
    expect(help.stdout).toContain('3  the run waits for a decision');
    const approveHelp = await cli(['approve', '--help']);
    expect(approveHelp.code).toBe(0);
    expect(approveHelp.stdout).toContain('--fingerprint <hex>');

    const missing = await cli(['approve']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error: USAGE: approve needs <runId>.');
    const unknown = await cli(['watch', 'some-run', '--fingerprint', 'x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('watch takes no --fingerprint option');
    const json = await cli(['frobnicate', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'USAGE', message: 'Unknown command "frobnicate".' },
    });
  });

  it('lists the waiting calls across agents, as a table and as JSON', async () => {
    const parked = await parkDeletion('rec-list');
    await eventually(async () => {
      const { runs } = await a().listSuspendedRuns({ threadId: thread });
      expect(runs.map((run) => run.runId)).toContain(parked.runId);
    });

    const table = await cli(['runs', 'pending', '--thread', thread, ...flags]);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trim().split('\n');
    expect(header).toMatch(/^RUN +AGENT +TOOL +WAITS FOR +ARGS +FINGERPRINT +WAITING SINCE$/);
    const row = rows.find((line) => line.startsWith(parked.runId))!;
    expect(row).toContain('cli-agent');
    expect(row).toContain('delete-record');
    expect(row).toContain('{"id":"rec-list"}');
    expect(row).toContain(parked.fingerprint!.slice(0, 12));
    expect(row).not.toContain(parked.fingerprint!);

    const json = await cli(['runs', 'pending', '--thread', thread, '--json', ...flags]);
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as { runs: Array<{ runId: string }>; total: number };
    expect(listed.runs.find((run) => run.runId === parked.runId)).toMatchObject({
      agentId: 'cli-agent',
      threadId: thread,
      toolCalls: [
        {
          toolCallId: parked.toolCallId,
          toolName: 'delete-record',
          args: { id: 'rec-list' },
          fingerprint: parked.fingerprint,
          requiresApproval: true,
        },
      ],
    });
    expect(listed.total).toBe(listed.runs.length);
  });

  it('approve applies the decision as $USER@host, follows the run to its end and exits 0; the tool ran once', async () => {
    const parked = await parkDeletion('rec-approve');
    const result = await cli(
      ['approve', parked.runId, '--fingerprint', parked.fingerprint!, ...flags],
      { USER: 'tester' },
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`Approved by tester@${hostname()}.`);
    expect(result.stdout).toContain('← delete-record {"done":"delete-record","id":"rec-approve"}');
    expect(result.stdout).toContain('✓ run finished (stop)');
    expect(executionsOf('rec-approve')).toHaveLength(1);
  });

  it('run starts a run and follows it; with --once it exits 3 while a call waits, and the call runs once when approved', async () => {
    const result = await cli(['run', 'cli-agent', 'delete rec-run', '--once', ...flags]);
    expect(result).toMatchObject({ code: 3, stderr: '' });
    const runId = /^Run (\S+):$/m.exec(result.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(result.stdout).toContain('delete-record');
    expect(executionsOf('rec-run')).toHaveLength(0);
    const out = await a().approveToolCallGenerate({ runId: runId! });
    expect(out.finishReason).toBe('stop');
    expect(executionsOf('rec-run')).toHaveLength(1);

    const usage = await cli(['run', 'cli-agent', 'hi', '--thread', 't1', ...flags]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--thread and --resource go together');
  });

  it('run --active-tools narrows the run: a call of another tool is refused and never runs', async () => {
    const result = await cli([
      'run',
      'cli-agent',
      'delete rec-narrow',
      '--active-tools',
      'ask-city',
      '--json',
      ...flags,
    ]);
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines.find((line) => line.type === 'tool-error')?.payload).toMatchObject({
      toolName: 'delete-record',
      code: 'TOOL_NOT_ALLOWED',
    });
    expect(lines.at(-1)).toMatchObject({ type: 'finish' });
    expect(executionsOf('rec-narrow')).toHaveLength(0);
  });

  it('decline with --json streams JSON lines, names the decider, and the tool never runs', async () => {
    const parked = await parkDeletion('rec-decline');
    const result = await cli([
      'decline',
      parked.runId,
      '--reason',
      'Not today',
      '--as',
      'alice',
      '--roles',
      'ops,admin',
      '--json',
      ...flags,
    ]);
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines[0]).toEqual({
      type: 'decision',
      from: 'CLI',
      runId: parked.runId,
      payload: { decision: 'decline', decidedBy: { id: 'alice', roles: ['ops', 'admin'] } },
    });
    expect(lines.find((line) => line.type === 'tool-result')?.payload).toMatchObject({
      result: 'Not today',
    });
    expect(lines.at(-1)).toMatchObject({ type: 'finish', payload: { finishReason: 'stop' } });
    expect(executionsOf('rec-decline')).toHaveLength(0);
  });

  it('a wrong fingerprint exits 5 with the code on stderr, and the call stays pending', async () => {
    const parked = await parkDeletion('rec-fingerprint');
    const result = await cli(['approve', parked.runId, '--fingerprint', 'deadbeef', ...flags]);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/^error: FINGERPRINT_MISMATCH: /);
    expect(result.stdout).toBe('');
    expect(await a().pendingToolCalls(parked.runId)).toHaveLength(1);
    expect(executionsOf('rec-fingerprint')).toHaveLength(0);
  });

  it('an unknown run exits 4 (RUN_NOT_FOUND), in text and in JSON', async () => {
    const text = await cli(['approve', uniqueId('no-such-run'), ...flags]);
    expect(text.code).toBe(4);
    expect(text.stderr).toMatch(/^error: RUN_NOT_FOUND: No run with id "no-such-run-/);
    const json = await cli(['watch', 'no-such-run', '--json', ...flags]);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
  });

  it('resume: --data that is not JSON exits 2, data the schema refuses exits 5, good data exits 0', async () => {
    const asked = await a().generate('ask me', { memory });
    expect(asked.finishReason).toBe('suspended');
    const { runId } = asked;

    const notJson = await cli(['resume', runId, '--data', '{city:', ...flags]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^error: USAGE: --data is not valid JSON/);
    const refused = await cli(['resume', runId, '--data', '{"town":"Oslo"}', ...flags]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain('error: INVALID_RESUME_DATA: ');
    expect(refused.stderr).toContain('resumeData.city is required');
    expect(resumed).toEqual([]);

    const ok = await cli(['resume', runId, '--data', '{"city":"Paris"}', ...flags]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('result: {"city":"Paris"}');
    expect(resumed).toEqual([{ city: 'Paris' }]);
  });

  it('watch prints a finished run and exits 0; with --once it stops at the wait and exits 3', async () => {
    const finished = await a().generate('say hello');
    const watched = await cli(['watch', finished.runId, ...flags]);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toBe('hello there\n✓ run finished (stop)\n');

    const parked = await parkDeletion('rec-watch-once');
    const once = await cli(['watch', parked.runId, '--once', ...flags]);
    expect(once.code).toBe(3);
    expect(once.stdout).toContain('⏸ delete-record waits for approval');
    expect(once.stdout).toContain(`Run ${parked.runId} waits for a decision:`);
    expect(once.stdout).toContain(
      `tollgate approve ${parked.runId} --tool-call ${parked.toolCallId} --fingerprint ${parked.fingerprint}`,
    );
    const json = await cli(['watch', parked.runId, '--once', '--json', ...flags]);
    expect(json.code).toBe(3);
    expect(jsonLines(json.stdout).at(-1)).toMatchObject({
      type: 'waiting',
      from: 'CLI',
      payload: { toolCalls: [{ toolCallId: parked.toolCallId, toolName: 'delete-record' }] },
    });
  });

  it('watch keeps watching through a decision made elsewhere until the run completes', async () => {
    const parked = await parkDeletion('rec-watch');
    const watcher = start(['watch', parked.runId, ...flags]);
    await watcher.waitForLine((line) => line.includes('waits for a decision'));
    const approved = await a().approveToolCall({ runId: parked.runId });
    expect(await approved.finishReason).toBe('stop');
    expect(await watcher.exited).toBe(0);
    expect(watcher.lines).toContain('← delete-record {"done":"delete-record","id":"rec-watch"}');
    expect(watcher.lines.at(-1)).toBe('✓ run finished (stop)');
    expect(executionsOf('rec-watch')).toHaveLength(1);
  });
});

describe('the tollgate CLI hosting agents and the API', () => {
  it('worker hosts the agents of a module until SIGINT, then exits 0', async () => {
    const moduleFile = await answeringAgentsModule({
      greeter: { id: 'module-greeter', text: 'hi from the module' },
    });
    const taskQueue = uniqueQueue('cli-worker');
    const worker = start(['worker', '--agents', moduleFile, '--task-queue', taskQueue, '--json']);
    const client = new Tollgate({ temporal: { taskQueue } });
    try {
      const ready = JSON.parse(await worker.waitForLine((line) => line.startsWith('{'))) as unknown;
      expect(ready).toMatchObject({
        type: 'ready',
        worker: { taskQueue, agents: ['module-greeter'] },
      });
      const output = await client.getAgent('module-greeter').generate('hello');
      expect(output.text).toBe('hi from the module');
    } finally {
      await client.shutdown();
      worker.child.kill('SIGINT');
    }
    expect(await worker.exited).toBe(0);
    expect(worker.stderr()).toBe('');
  });

  it('worker passes --max-cached-workflows and --connect-timeout to the worker, checked first', async () => {
    const moduleFile = await answeringAgentsModule({
      greeter: { id: 'uncached-greeter', text: 'hi without a cache' },
    });
    const taskQueue = uniqueQueue('cli-worker-settings');
    const flags = ['worker', '--agents', moduleFile, '--task-queue', taskQueue];
    const refused = await cli([...flags, '--max-cached-workflows', '1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'worker.maxCachedWorkflows must be 0 (no cache) or at least 2',
    );
    const badTimeout = await cli([...flags, '--connect-timeout', 'soon']);
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr).toContain('worker.connectTimeout');

    const worker = start([...flags, '--max-cached-workflows', '0', '--connect-timeout', '30s']);
    const client = new Tollgate({ temporal: { taskQueue } });
    try {
      await worker.waitForLine((line) => line.startsWith('Worker hosting'));
      const output = await client.getAgent('uncached-greeter').generate('hello');
      expect(output.text).toBe('hi without a cache');
      // With the cache off, no workflow task of the run went to a sticky queue.
      const history = await (await client.client()).workflow.getHandle(output.runId).fetchHistory();
      const kinds = (history.events ?? []).flatMap((event) => {
        const kind = event.workflowTaskScheduledEventAttributes?.taskQueue?.kind;
        return kind === undefined || kind === null ? [] : [kind];
      });
      expect(kinds.length).toBeGreaterThan(1);
      expect(kinds.every((kind) => kind === 1)).toBe(true);
    } finally {
      await client.shutdown();
      worker.child.kill('SIGINT');
    }
    expect(await worker.exited).toBe(0);
  });

  it('serve answers the API with the configured tokens until SIGINT, then exits 0', async () => {
    const tokens = JSON.stringify([{ token: 'secret-1', id: 'ops', roles: ['ops'] }]);
    const server = start(['serve', '--port', '0', '--json'], { TOLLGATE_TOKENS: tokens });
    try {
      const ready = JSON.parse(await server.waitForLine((line) => line.startsWith('{'))) as {
        api: string;
      };
      expect(ready.api).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
      expect((await fetch(`${ready.api}/health`)).status).toBe(200);
      expect((await fetch(`${ready.api}/approvals`)).status).toBe(401);
      // Filtered to an agent without runs: other tests' parked runs have no worker to answer.
      const approvals = await fetch(`${ready.api}/approvals?agentId=no-such-agent`, {
        headers: { authorization: 'Bearer secret-1' },
      });
      expect(approvals.status).toBe(200);
      expect(await approvals.json()).toMatchObject({ approvals: [] });
    } finally {
      server.child.kill('SIGINT');
    }
    expect(await server.exited).toBe(0);
  });

  it('dev starts Temporal, a worker with the demo agent and the API, prints the URLs, and stops on SIGINT', async () => {
    const temporalPort = await freePortPair(1000);
    const db = join(await mkdtemp(join(tmpdir(), 'tollgate-cli-dev-')), 'dev.db');
    // No configured tokens (dev makes one up) and no OpenAI endpoint (the demo's scripted model).
    const env = {
      TOLLGATE_TOKENS: undefined,
      TOLLGATE_TOKENS_FILE: undefined,
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
    };
    const dev = start(
      ['dev', '--temporal-port', String(temporalPort), '--port', '0', '--db', db, '--json'],
      env,
    );
    try {
      const ready = JSON.parse(await dev.waitForLine((line) => line.startsWith('{'), 60_000)) as {
        temporal: { address: string; ui: string };
        api: string;
        token: string;
        worker: { agents: string[] };
      };
      expect(ready.temporal.address).toBe(`127.0.0.1:${temporalPort}`);
      expect(ready.temporal.ui).toBe(`http://127.0.0.1:${temporalPort + 1000}`);
      expect(ready.worker.agents).toEqual(['ops-agent']);
      const started = await fetch(`${ready.api}/agents/ops-agent/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messages: 'Delete the stale record rec-42' }),
      });
      expect(started.status).toBe(200);
      expect(await started.json()).toMatchObject({
        finishReason: 'suspended',
        suspendPayload: {
          toolName: 'deleteRecord',
          toolId: 'delete-record',
          args: { id: 'rec-42' },
        },
      });
    } finally {
      dev.child.kill('SIGINT');
    }
    expect(await dev.exited).toBe(0);
  });
});

/** A free port whose neighbour `offset` above is free too (the dev server's Web UI). */
async function freePortPair(offset: number): Promise<number> {
  for (;;) {
    const port = await listenOn(0);
    if (port + offset > 65535) continue;
    try {
      await listenOn(port + offset);
      return port;
    } catch {
      // The neighbour is taken: pick again.
    }
  }
}

function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => {
      const { port: bound } = probe.address() as { port: number };
      probe.close(() => resolve(bound));
    });
  });
}
