/**
 * Records the event histories that `test/replay.test.ts` replays. Not a test: run it by hand, and
 * only when `agentRun` changes on purpose (see test/fixtures/histories/README.md):
 *
 *   node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/node dist/test/support/record-history.js
 *
 * It starts its own dev server on a throwaway database, hosts an agent with a scripted model and a
 * gated tool, drives one run per scenario, and writes each run's full history as proto JSON to
 * `test/fixtures/histories/<name>.json`.
 */
import './quiet-runtime.js';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDevServer } from '../../src/devserver/index.js';
import { Tollgate, type AgentClient } from '../../src/index.js';
import type { TurnPicker } from '../../src/testing/scripted-model.js';
import { chunksOf, recordingTool, testAgent, uniqueQueue } from './harness.js';

/** The source tree's fixture folder, found from `dist/test/support/`. */
const FIXTURES_DIR = fileURLToPath(new URL('../../../test/fixtures/histories/', import.meta.url));
const AGENT_ID = 'history-agent';

/** One call for a plain prompt, two parallel calls when the prompt says "both"; "Done." after tool results. */
const pickTurn: TurnPicker = (prompt) => {
  if (prompt.at(-1)?.role === 'tool') return { text: 'Done.' };
  const user = prompt.find((message) => message.role === 'user');
  const said = JSON.stringify(user?.content ?? '');
  if (said.includes('both')) {
    return {
      text: 'Deleting both.',
      toolCalls: [
        { toolCallId: 'call_a', toolName: 'delete-record', args: { id: 'a' } },
        { toolCallId: 'call_b', toolName: 'delete-record', args: { id: 'b' } },
      ],
    };
  }
  return {
    text: 'Deleting it.',
    toolCalls: [{ toolCallId: 'call_1', toolName: 'delete-record', args: { id: 'r1' } }],
  };
};

interface Scenario {
  /** Fixture file name and run id; the replay test passes it back as the workflow id. */
  name: string;
  prompt: string;
  /** Decides the run's gated calls, draining each stretch of the stream. */
  decide(agent: AgentClient, runId: string): Promise<void>;
  /** How many times the tool must have run, so a wrong recording fails here rather than later. */
  executions: number;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'approved',
    prompt: 'Delete record r1',
    executions: 1,
    decide: async (agent, runId) => {
      await chunksOf(await agent.approveToolCall({ runId, toolCallId: 'call_1' }));
    },
  },
  {
    name: 'declined',
    prompt: 'Delete record r1',
    executions: 0,
    decide: async (agent, runId) => {
      await chunksOf(await agent.declineToolCall({ runId, toolCallId: 'call_1' }));
    },
  },
  {
    name: 'parallel-decided-in-reverse',
    prompt: 'Delete both records a and b',
    executions: 1,
    decide: async (agent, runId) => {
      await chunksOf(await agent.approveToolCall({ runId, toolCallId: 'call_b' }));
      await chunksOf(
        await agent.declineToolCall({ runId, toolCallId: 'call_a', reason: 'Keep record a' }),
      );
    },
  },
];

async function record(
  tollgate: Tollgate,
  executions: unknown[],
  scenario: Scenario,
): Promise<string> {
  const agent = tollgate.getAgent(AGENT_ID);
  const before = executions.length;
  const stream = await agent.stream(scenario.prompt, { runId: scenario.name });
  await chunksOf(stream);
  if ((await stream.finishReason) !== 'suspended')
    throw new Error(`${scenario.name}: the run did not wait for a decision.`);
  await scenario.decide(agent, stream.runId);

  const handle = (await tollgate.client()).workflow.getHandle(stream.runId);
  await handle.result();
  const ran = executions.length - before;
  if (ran !== scenario.executions)
    throw new Error(
      `${scenario.name}: the tool ran ${ran} time(s), expected ${scenario.executions}.`,
    );

  const json = `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 2)}\n`;
  const file = join(FIXTURES_DIR, `${scenario.name}.json`);
  await writeFile(file, json);
  return `${file} (${json.length} bytes)`;
}

async function main(): Promise<void> {
  const dbDir = await mkdtemp(join(tmpdir(), 'tollgate-record-'));
  const server = await startDevServer({ dbFile: join(dbDir, 'dev-server.db') });
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent(AGENT_ID, [deleteRecord.tool], pickTurn);
  const tollgate = new Tollgate({
    agents: { [AGENT_ID]: agent },
    temporal: {
      address: server.address,
      namespace: server.namespace,
      taskQueue: uniqueQueue('record-history'),
    },
  });
  try {
    await tollgate.startWorker();
    await mkdir(FIXTURES_DIR, { recursive: true });
    for (const scenario of SCENARIOS) {
      console.log(`recorded ${await record(tollgate, deleteRecord.executions, scenario)}`);
    }
  } finally {
    await tollgate.shutdown();
    await server.stop();
    await rm(dbDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
