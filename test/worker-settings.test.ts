import { beforeAll, describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { freePorts } from '../src/devserver/free-ports.js';
import { Tollgate, type Agent, type WorkerSettings } from '../src/index.js';
import { gatedTestAgent, settlesWithin, uniqueQueue } from './support/harness.js';
import { answeringAgentsModule, cli, runScript, type CliResult } from './support/cli.js';
import { startTcpProxy } from './support/tcp-proxy.js';

const TEMPORAL = process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';

function tollgateWith(agent: Agent, worker: WorkerSettings, address = TEMPORAL): Tollgate {
  return new Tollgate({
    agents: { [agent.id]: agent },
    temporal: { address, taskQueue: uniqueQueue('worker-settings') },
    worker,
  });
}

/** Parks a run on its approval, approves it; the run's workflow-task queue kinds, in order. */
async function approvedRunTaskQueues(tollgate: Tollgate, agentId: string): Promise<string[]> {
  const runs = tollgate.getAgent(agentId);
  const parked = await runs.generate('Delete rec-1');
  expect(parked.finishReason).toBe('suspended');
  const done = await runs.approveToolCallGenerate({ runId: parked.runId });
  expect(done.finishReason).toBe('stop');
  const client = await tollgate.client();
  const history = await client.workflow.getHandle(parked.runId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const kind = event.workflowTaskScheduledEventAttributes?.taskQueue?.kind;
    return kind === undefined || kind === null ? [] : [kind === 2 ? 'sticky' : 'normal'];
  });
}

/**
 * A task queue name longer than the server's limit: the worker starts, then its first poll is
 * refused (InvalidArgument, about a minute later here) and the worker fails by itself.
 */
const REFUSED_WORKER = fileURLToPath(new URL('./support/refused-worker.js', import.meta.url));
const REFUSED_QUEUE = `refused-${'q'.repeat(1000)}`;

describe('worker settings', () => {
  // Started first and checked last: their minute of waiting overlaps the other tests.
  let apiWorker: Promise<CliResult>;
  let cliWorker: Promise<CliResult>;
  beforeAll(async () => {
    const env = { TASK_QUEUE: REFUSED_QUEUE };
    apiWorker = runScript(REFUSED_WORKER, [], env);
    cliWorker = cli(
      [
        'worker',
        '--agents',
        await answeringAgentsModule({ a: { id: 'refused-cli', text: 'hi' } }),
        '--task-queue',
        REFUSED_QUEUE,
      ],
      env,
    );
  });

  it.each<[string, WorkerSettings, string]>([
    ['a cache of 1', { maxCachedWorkflows: 1 }, 'worker.maxCachedWorkflows must be 0'],
    ['a negative cache', { maxCachedWorkflows: -5 }, 'worker.maxCachedWorkflows must be a whole'],
    [
      'more workflow tasks than cached runs',
      { maxCachedWorkflows: 4, maxConcurrentWorkflowTaskExecutions: 8 },
      'cannot exceed worker.maxCachedWorkflows (4)',
    ],
    [
      'one workflow task at a time with the cache on',
      { maxConcurrentWorkflowTaskExecutions: 1 },
      'must be at least 2 while the workflow cache is on',
    ],
    [
      'fractional activity slots',
      { maxConcurrentActivityTaskExecutions: 2.5 },
      'worker.maxConcurrentActivityTaskExecutions must be a whole number',
    ],
    [
      'a grace time that is not a duration',
      { shutdownGraceTime: 'soon' },
      'worker.shutdownGraceTime',
    ],
    ['a connect timeout of zero', { connectTimeout: 0 }, 'worker.connectTimeout'],
    [
      'an unknown setting',
      { maxCachedWorkflow: 10 } as unknown as WorkerSettings,
      'worker.maxCachedWorkflow is not a worker setting',
    ],
  ])('rejects %s with INVALID_OPTIONS naming the field', (_name, worker, message) => {
    const { agent } = gatedTestAgent('settings-agent');
    expect(() => tollgateWith(agent, worker)).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining(message),
      }),
    );
  });

  it('passes the cache bound to Temporal: with the cache off no task goes to a sticky queue', async () => {
    const cached = gatedTestAgent('cached-agent');
    const uncached = gatedTestAgent('uncached-agent');
    const withCache = tollgateWith(cached.agent, { maxCachedWorkflows: 10 });
    const withoutCache = tollgateWith(uncached.agent, {
      maxCachedWorkflows: 0,
      maxConcurrentWorkflowTaskExecutions: 1,
      maxConcurrentActivityTaskExecutions: 4,
      shutdownGraceTime: '5 seconds',
    });
    try {
      await Promise.all([withCache.startWorker(), withoutCache.startWorker()]);
      const [sticky, normal] = await Promise.all([
        approvedRunTaskQueues(withCache, 'cached-agent'),
        approvedRunTaskQueues(withoutCache, 'uncached-agent'),
      ]);
      expect(sticky).toContain('sticky');
      expect(normal.length).toBeGreaterThan(2);
      expect(normal.every((kind) => kind === 'normal')).toBe(true);
      // Every task replayed from history, and the approved tool still ran exactly once.
      expect(uncached.executions).toHaveLength(1);
      expect(cached.executions).toHaveLength(1);
    } finally {
      await Promise.all([withCache.shutdown(), withoutCache.shutdown()]);
    }
  }, 60_000);

  it('fails startWorker() at once with TEMPORAL_UNAVAILABLE when nothing listens', async () => {
    const [port] = await freePorts(1);
    const { agent, executions } = gatedTestAgent('unreachable-agent');
    const tollgate = tollgateWith(agent, {}, `127.0.0.1:${port}`);
    try {
      await expect(tollgate.startWorker()).rejects.toMatchObject({
        code: 'TEMPORAL_UNAVAILABLE',
        message: expect.stringContaining(`127.0.0.1:${port} could not be reached`),
      });
      expect(executions).toHaveLength(0);
    } finally {
      await tollgate.shutdown();
    }
  }, 30_000);

  it('waits up to connectTimeout for Temporal, then hosts runs as usual', async () => {
    const [port] = await freePorts(1);
    const proxy = await startTcpProxy(TEMPORAL, { port, listening: false });
    const { agent, executions } = gatedTestAgent('patient-agent');
    const tollgate = tollgateWith(agent, { connectTimeout: '60 seconds' }, proxy.address);
    try {
      const starting = tollgate.startWorker();
      expect(await settlesWithin(starting, 3000)).toBe(false);
      await proxy.listen();
      await starting;
      const queues = await approvedRunTaskQueues(tollgate, 'patient-agent');
      expect(queues.length).toBeGreaterThan(2);
      expect(executions).toHaveLength(1);
    } finally {
      await tollgate.shutdown();
      await proxy.close();
    }
  }, 90_000);

  it('workerStopped() resolves once shutdown() has stopped the worker', async () => {
    const { agent } = gatedTestAgent('stopping-agent');
    const tollgate = tollgateWith(agent, {});
    await expect(tollgate.workerStopped()).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await tollgate.startWorker();
    const stopped = tollgate.workerStopped();
    expect(await settlesWithin(stopped, 500)).toBe(false);
    await tollgate.shutdown();
    await expect(stopped).resolves.toBeUndefined();
  }, 30_000);

  it('workerStopped() rejects with WORKER_STOPPED when the worker stops by itself; the CLI worker exits 1', async () => {
    const api = await apiWorker;
    expect(api.stdout).toContain('STARTED');
    expect(api.stdout).toMatch(
      /STOPPED WORKER_STOPPED: The agent worker on task queue 'refused-q+' stopped by itself/,
    );
    // shutdown() returns after such a failure.
    expect(api.stdout).toContain('SHUT DOWN');
    expect(api.code).toBe(0);
    const cliEnd = await cliWorker;
    expect(cliEnd.stderr).toContain('WORKER_STOPPED');
    expect(cliEnd.code).toBe(1);
  }, 180_000);
});
