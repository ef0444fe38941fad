/**
 * `npm run demo`: one agent run, end to end, on a local Temporal dev server. The ops agent looks
 * a record up, asks to delete it, and waits for a human; the run's history is in the Web UI.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { LanguageModel } from 'ai';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  startDevServer,
  Tollgate,
  type AgentClient,
  type AgentStream,
  type DevServer,
  type FinishReason,
} from '../src/index.js';
import { demoModel } from '../src/demo-agent/demo-model.js';
import {
  createOpsAgent,
  createRecordTable,
  type RecordTable,
} from '../src/demo-agent/ops-agent.js';
import { decideApproval, type ApprovalMode } from './prompt.js';

const USAGE = `Usage: npm run demo -- [options]

Runs the ops agent on a local Temporal dev server; its delete-record tool waits for your approval.

Options:
  -p, --prompt <text>     What to ask the agent (default: "Delete the stale record rec-42")
      --approve           Approve every request without asking
      --decline           Decline every request without asking
      --task-queue <name> Task queue of the worker (default: tollgate)
      --keep-server       Keep the dev server (and its Web UI) running until Ctrl-C
  -h, --help              Show this help

Model: OPENAI_API_KEY or OPENAI_BASE_URL selects 'openai/' + (OPENAI_MODEL ?? 'gpt-4o-mini');
otherwise a built-in scripted model plays the agent. State persists in .tollgate/demo.db.`;

const RECORD_ID = 'rec-42';
const DECLINE_REASON = 'Declined in the demo';

interface DemoOptions {
  prompt: string;
  mode: ApprovalMode;
  taskQueue: string;
  keepServer: boolean;
}

/** What is running, so that Ctrl-C and the normal end stop the same things. */
let server: DevServer | undefined;
let tollgate: Tollgate | undefined;
let stopping: Promise<void> | undefined;
/** Set once the run is over and only the kept server waits for Ctrl-C: the run's exit code. */
let keptServerExitCode: number | undefined;

function parseOptions(argv: string[]): DemoOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      prompt: { type: 'string', short: 'p' },
      approve: { type: 'boolean' },
      decline: { type: 'boolean' },
      'task-queue': { type: 'string' },
      'keep-server': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  if (values.approve && values.decline) throw new Error('Pass --approve or --decline, not both.');
  return {
    prompt: values.prompt ?? `Delete the stale record ${RECORD_ID}`,
    mode: values.approve ? 'approve' : values.decline ? 'decline' : 'ask',
    taskQueue: values['task-queue'] ?? 'tollgate',
    keepServer: values['keep-server'] ?? false,
  };
}

function chooseModel(): LanguageModel {
  const { OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL } = process.env;
  if (OPENAI_API_KEY || OPENAI_BASE_URL) {
    const model = `openai/${OPENAI_MODEL ?? 'gpt-4o-mini'}`;
    console.log(`Model: ${model} at ${OPENAI_BASE_URL ?? 'https://api.openai.com/v1'}`);
    return model;
  }
  console.log('No OPENAI_API_KEY: using the built-in scripted demo model.');
  console.log(
    '  (Set OPENAI_API_KEY, or OPENAI_BASE_URL for a compatible server, to use a real model.)',
  );
  return demoModel();
}

async function runDemo(options: DemoOptions): Promise<number> {
  const table = createRecordTable();
  const model = chooseModel();
  console.log('Starting the Temporal dev server...');
  server = await startDevServer({ dbFile: join(process.cwd(), '.tollgate', 'demo.db') });
  console.log(`Temporal dev server at ${server.address}, state in ${server.dbFile}`);
  console.log(`Temporal Web UI: ${server.uiUrl}`);

  tollgate = new Tollgate({
    agents: { ops: createOpsAgent(model, table) },
    temporal: {
      address: server.address,
      namespace: server.namespace,
      taskQueue: options.taskQueue,
    },
  });
  await tollgate.startWorker();
  console.log(`Worker polling task queue '${tollgate.taskQueue}'.\n`);

  console.log(`You: ${options.prompt}`);
  const outcome = await runWithApprovals(tollgate.getAgent('ops-agent'), options);
  printOutcome(
    outcome,
    table,
    `${server.uiUrl}/namespaces/${tollgate.namespace}/workflows/${outcome.runId}`,
  );
  return outcome.finishReason === 'error' || outcome.finishReason === 'suspended' ? 1 : 0;
}

interface Outcome {
  runId: string;
  finishReason: FinishReason;
  text: string;
}

/** Streams the run, and each continuation after a decision, until it stops waiting on a human. */
async function runWithApprovals(agent: AgentClient, options: DemoOptions): Promise<Outcome> {
  let stream = await agent.stream(options.prompt, {
    runId: `ops-demo-${randomUUID().slice(0, 8)}`,
  });
  const { runId } = stream;
  for (;;) {
    await printStream(stream);
    const finishReason = await stream.finishReason;
    if (finishReason !== 'suspended') return { runId, finishReason, text: await stream.text };
    const request = await stream.suspendPayload;
    if (!request?.requiresApproval) {
      throw new Error(
        `Run ${runId} waits on a suspended ${request?.toolName ?? 'tool'} call; this demo only handles approvals.`,
      );
    }
    const { toolCallId, fingerprint } = request;
    stream = (await decideApproval(request, options.mode))
      ? await agent.approveToolCall({ runId, toolCallId, fingerprint })
      : await agent.declineToolCall({ runId, toolCallId, reason: DECLINE_REASON });
  }
}

/** Text deltas inline as they arrive; tool activity as short lines of their own. */
async function printStream(stream: AgentStream): Promise<void> {
  let midLine = false;
  const line = (text: string) => {
    process.stdout.write(`${midLine ? '\n' : ''}${text}\n`);
    midLine = false;
  };
  for await (const chunk of stream.fullStream) {
    if (chunk.type === 'text-delta') {
      process.stdout.write(`${midLine ? '' : 'Agent: '}${chunk.payload.text}`);
      midLine = true;
    } else if (chunk.type === 'tool-call') {
      line(`  → ${chunk.payload.toolName} ${JSON.stringify(chunk.payload.args)}`);
    } else if (chunk.type === 'tool-result') {
      line(`  ← ${chunk.payload.toolName} ${JSON.stringify(chunk.payload.result)}`);
    } else if (chunk.type === 'tool-error') {
      line(`  ✗ ${chunk.payload.toolName} failed: ${chunk.payload.error}`);
    } else if (chunk.type === 'tool-call-approval') {
      line(`  ⏸ ${chunk.payload.toolName} waits for approval`);
    } else if (chunk.type === 'error') {
      line(`  ✗ run error: ${chunk.payload.error}`);
    }
  }
  if (midLine) process.stdout.write('\n');
}

function printOutcome(outcome: Outcome, table: RecordTable, uiLink: string): void {
  const stillThere = table.records.has(RECORD_ID);
  console.log('\n── Outcome ─────────────────────────────');
  console.log(`finish reason:  ${outcome.finishReason}`);
  console.log(`final text:     ${outcome.text.trim() || '(none)'}`);
  console.log(
    `${RECORD_ID}:         ${stillThere ? 'still in the table' : 'deleted from the table'}`,
  );
  console.log(
    `delete-record:  executed ${table.deleteExecutions} time(s), deleted ${table.deletions} record(s)`,
  );
  console.log(`run in the UI:  ${uiLink}`);
}

/** Shuts the worker down before the server it polls; safe to call twice. */
function stopAll(): Promise<void> {
  stopping ??= (async () => {
    await tollgate?.shutdown();
    await server?.stop();
  })();
  return stopping;
}

function onInterrupt(): void {
  if (stopping) process.exit(130); // a second Ctrl-C: stop waiting for a clean shutdown
  console.log(
    keptServerExitCode === undefined
      ? '\nInterrupted: shutting down...'
      : '\nStopping the dev server...',
  );
  void stopAll().finally(() => process.exit(keptServerExitCode ?? 130));
}

async function main(): Promise<void> {
  let options: DemoOptions | undefined;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(1);
  }
  if (!options) {
    console.log(USAGE);
    return;
  }
  // Worker state changes are INFO logs: noise in a demo.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);

  const code = await runDemo(options).catch((error: unknown) => {
    // After Ctrl-C the shutdown itself cuts the stream off: not a failure worth reporting.
    if (!stopping) {
      console.error(`\nThe demo failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return 1;
  });
  if (stopping) return; // onInterrupt finishes the shutdown and exits
  if (options.keepServer && server) {
    await tollgate?.shutdown();
    keptServerExitCode = code;
    console.log(`\nThe dev server keeps running (pid ${server.pid}): Web UI ${server.uiUrl}`);
    console.log('Press Ctrl-C to stop it.');
    setInterval(() => undefined, 60_000); // the server child does not keep Node alive by itself
    return;
  }
  await stopAll();
  process.exit(code);
}

await main();
