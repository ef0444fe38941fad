/**
 * Records the event histories that `test/replay.test.ts` replays. Not a test: run it by hand (see
 * test/fixtures/histories/README.md for when):
 *
 *   node_modules/.bin/tsc -p tsconfig.json && node_modules/.bin/node dist/test/support/record-history.js
 *
 * Without arguments it records only the scenarios whose fixtures are missing, so existing
 * fixtures (histories of older workflow code) are kept. Name fixtures to re-record their
 * scenarios, or pass `--all`.
 *
 * It starts its own dev server on a throwaway database, hosts the agents of `history-agents.ts`
 * (scripted models), plays the scenarios of `history-scenarios.ts` and writes each recorded
 * workflow execution's full history as proto JSON to
 * `test/fixtures/histories/<newest generation>/<name>.json` (see `fixture-generations.ts`).
 */
import './quiet-runtime.js';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startDevServer } from '../../src/devserver/index.js';
import { Tollgate } from '../../src/index.js';
import { fixtureFile, NEWEST_GENERATION } from './fixture-generations.js';
import { uniqueQueue } from './harness.js';
import { startFakeSlack } from './fake-slack.js';
import { AGENTS, HISTORY_SLACK, THREAD_HISTORY_LIMIT } from './history-agents.js';
import { decidedElsewhereScenario } from './history-grants-scenarios.js';
import { followedFromStartScenario } from './history-follow-scenario.js';
import { playScenario, SCENARIOS, type Recording, type Scenario } from './history-scenarios.js';

const fixtureFileOf = (name: string) => fixtureFile(NEWEST_GENERATION, name);

/** The scenarios the command line asks for: named ones, all, or those with a missing fixture. */
function selectScenarios(args: string[], all: Scenario[]): Scenario[] {
  const SCENARIOS = all;
  if (args.includes('--all')) return SCENARIOS;
  if (args.length === 0)
    return SCENARIOS.filter((s) => s.fixtures.some((name) => !existsSync(fixtureFileOf(name))));
  const known = SCENARIOS.flatMap((s) => s.fixtures);
  const unknown = args.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new Error(`Unknown fixture(s): ${unknown.join(', ')}. Known: ${known.join(', ')}.`);
  return SCENARIOS.filter((s) => s.fixtures.some((name) => args.includes(name)));
}

async function write(tollgate: Tollgate, recording: Recording): Promise<string> {
  const client = await tollgate.client();
  const handle = client.workflow.getHandle(recording.workflowId, recording.runId);
  const json = `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 2)}\n`;
  const file = fixtureFileOf(recording.name);
  await writeFile(file, json);
  return `${file} (${json.length} bytes)`;
}

async function main(): Promise<void> {
  // The Slack app of `history-slack` posts to a fake Slack; the scenario counts its updates.
  const slack = await startFakeSlack(HISTORY_SLACK.botToken);
  const updates = () => slack.calls.filter((call) => call.method === 'chat.update').length;
  /** Made once the server runs. */
  const following: { tollgate?: Tollgate } = {};
  const scenarios = selectScenarios(process.argv.slice(2), [
    ...SCENARIOS,
    decidedElsewhereScenario(updates),
    followedFromStartScenario(() => following.tollgate!),
  ]);
  if (scenarios.length === 0) {
    await slack.close();
    console.log('Every fixture exists; name fixtures (or pass --all) to re-record them.');
    return;
  }
  const dbDir = await mkdtemp(join(tmpdir(), 'tollgate-record-'));
  const server = await startDevServer({ dbFile: join(dbDir, 'dev-server.db') });
  const temporal = {
    address: server.address,
    namespace: server.namespace,
    taskQueue: uniqueQueue('record-history'),
  };
  // From generation 10, a client that follows by update (docs/streams.md), for its scenario.
  following.tollgate = new Tollgate({ temporal, patchMarkers: 'one', follow: 'update' });
  const tollgate = new Tollgate({
    agents: Object.fromEntries(AGENTS.map((agent) => [agent.id, agent])),
    temporal,
    threads: { historyLimit: THREAD_HISTORY_LIMIT },
    // From generation 9, new runs record one patch marker (docs/workflow-changes.md).
    patchMarkers: 'one',
    channels: {
      publicUrl: 'http://127.0.0.1:9',
      slack: [{ ...HISTORY_SLACK, apiUrl: slack.apiUrl, agents: ['history-slack'] }],
    },
  });
  try {
    await tollgate.startWorker();
    await mkdir(dirname(fixtureFileOf('x')), { recursive: true });
    for (const scenario of scenarios) {
      const recordings = await playScenario(scenario, tollgate);
      const names = recordings.map((r) => r.name);
      if (JSON.stringify(names) !== JSON.stringify(scenario.fixtures))
        throw new Error(
          `Scenario recorded ${names.join(', ')}, not ${scenario.fixtures.join(', ')}.`,
        );
      for (const recording of recordings)
        console.log(`recorded ${await write(tollgate, recording)}`);
    }
  } finally {
    await following.tollgate.shutdown();
    await tollgate.shutdown();
    await server.stop();
    await slack.close();
    await rm(dbDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
