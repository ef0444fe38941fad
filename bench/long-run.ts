/**
 * Long runs (issue 13, finding 3): one run of `--steps` model steps (a scripted model calling a
 * tool at every step but the last) on a fresh dev server with Temporal's default limits, which
 * terminate a run at 51,200 events (≈4,260 steps before runs continued as new). Prints the time,
 * the executions the run took, the events and bytes of each, and checks that the stream read
 * back from offset 0 holds every step once, with continuous offsets.
 * Run with `npm run bench:long-run -- --steps 6000`. `--keep 200` gives the agent
 * `conversation: { compact: keepRecentMessages(200) }` (the default threshold, or
 * `--compact-above` bytes), so the
 * conversation stays bounded and the run is no longer limited by `history.carryMaxBytes`; it also
 * prints the compactions and the worker's peak RSS.
 */
import './quiet-runtime.js';
import { loadavg } from 'node:os';
import proto from '@temporalio/proto';
import { z } from 'zod';
import {
  Agent,
  AgentClient,
  createTool,
  keepRecentMessages,
  type CompactionAuditEntry,
} from '../src/index.js';
import type { RunInput } from '../src/common/run-types.js';
import { DEFAULT_COMPACT_ABOVE_BYTES } from '../src/common/compaction-types.js';
import { scriptedModel, type TurnPicker } from '../src/testing/scripted-model.js';
import { loopPrompt } from './bench-model.js';
import { environmentFacts, startEnvironment } from './environment.js';
import { parseIntOptions } from './support/args.js';
import { expectThat, progress } from './stats.js';

const AGENT_ID = 'bench-long-run';

const options = parseIntOptions('long-run', process.argv.slice(2), {
  steps: { default: 6000, min: 2, max: 1_000_000, help: 'model steps of the run' },
  'events-limit': {
    default: 0,
    min: 0,
    max: 51_200,
    help: "the server's limit.historyCount.error (0: Temporal's default, 51,200); it suggests continue-as-new at a quarter of it",
  },
  keep: {
    default: 0,
    min: 0,
    max: 100_000,
    help: 'compact the conversation with keepRecentMessages(keep) (0: no compaction)',
  },
  'read-back': {
    default: 1,
    min: 0,
    max: 1,
    help: 'read the whole stream back from offset 0 and check it (1) or not (0)',
  },
  'compact-above': {
    default: DEFAULT_COMPACT_ABOVE_BYTES,
    min: 1,
    max: 1_899_999,
    help: 'conversation.compactAboveBytes with --keep',
  },
});
const eventsLimit = options['events-limit'];

function longAgent(): Agent {
  const tick = createTool({
    id: 'tick',
    description: 'Counts a step.',
    inputSchema: z.object({ step: z.number() }),
    execute: (input: { step: number }) => input.step,
  });
  return new Agent({
    id: AGENT_ID,
    // Thousands of steps: the model must not keep every prompt (each holds the conversation).
    model: scriptedModel(tickPicker, AGENT_ID, { recordPrompts: false }),
    tools: { tick },
    ...(options.keep > 0
      ? {
          conversation: {
            compact: keepRecentMessages(options.keep),
            compactAboveBytes: options['compact-above'],
          },
        }
      : {}),
  });
}

/**
 * Calls `tick` at steps 1..N-1 and answers at step N. The step is the last tick's result plus
 * one, read from the prompt's end: a compacted prompt no longer holds every earlier step.
 */
const tickPicker: TurnPicker = (prompt) => {
  const request = prompt.find((message) => message.role === 'user');
  const target = Number(/Work for (\d+) steps/.exec(JSON.stringify(request))?.[1]);
  const last = prompt.filter((message) => message.role === 'tool').at(-1);
  const done = last ? Number(/"value":(\d+)/.exec(JSON.stringify(last))?.[1]) : 0;
  const step = done + 1;
  if (!Number.isInteger(target) || !Number.isInteger(done)) {
    throw new Error(`Bench model: cannot tell the step from the prompt's end (${step}/${target}).`);
  }
  if (step >= target) return { text: `Step ${step}. Finished after ${step} steps.` };
  return { text: `Step ${step}.`, toolCalls: [{ toolName: 'tick', args: { step } }] };
};

interface ExecutionFacts {
  runId: string;
  events: number;
  bytes: number;
  firstStep: number;
}

async function main(): Promise<void> {
  progress('starting the Temporal dev server and a Tollgate worker');
  const env = await startEnvironment(
    [longAgent()],
    eventsLimit > 0
      ? {
          dynamicConfig: {
            'limit.historyCount.error': eventsLimit,
            'limit.historyCount.warn': Math.floor(eventsLimit / 2),
            'limit.historyCount.suggestContinueAsNew': Math.floor(eventsLimit / 4),
          },
        }
      : {},
  );
  try {
    const facts = await environmentFacts(env.cliPath);
    const agent = env.tollgate.getAgent(AGENT_ID);
    progress(`one run of ${options.steps} steps`);
    const started = Date.now();
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 1000);
    const output = await agent
      .generate(loopPrompt(options.steps), { maxSteps: options.steps })
      .finally(() => clearInterval(sampler));
    const seconds = (Date.now() - started) / 1000;
    const compactions = (await agent.getAuditTrail(output.runId)).filter(
      (entry): entry is CompactionAuditEntry => entry.type === 'compaction',
    );
    console.log(
      `run ${output.runId}: ${output.finishReason} after ${output.steps.length} steps in ${seconds.toFixed(1)} s; ${compactions.length} compactions; worker peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
    );
    expectThat(
      output.finishReason === 'stop',
      `run ${output.runId} finished with ${output.finishReason} ${output.error ?? ''}`,
    );
    expectThat(output.steps.length === options.steps, `run had ${output.steps.length} steps`);

    progress('reading every execution of the run, newest first');
    const client = await env.tollgate.client();
    const executions: ExecutionFacts[] = [];
    let runId: string | undefined = (await client.workflow.getHandle(output.runId).describe())
      .runId;
    while (runId) {
      const history: proto.temporal.api.history.v1.IHistory = await client.workflow
        .getHandle(output.runId, runId)
        .fetchHistory();
      const first: proto.temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes =
        history.events![0]!.workflowExecutionStartedEventAttributes!;
      const input = JSON.parse(
        new TextDecoder().decode(first.input!.payloads![0]!.data!),
      ) as RunInput;
      executions.unshift({
        runId,
        events: history.events!.length,
        bytes: historyBytes(history),
        firstStep: (input.continued?.step ?? 0) + 1,
      });
      runId = first.continuedExecutionRunId || undefined;
    }

    const readBack = options['read-back'] === 1 ? await readStreamBack(agent, output.runId) : '';

    const events = executions.map((e) => e.events);
    console.log(
      [
        'Tollgate: one long run, continuing as new',
        ...facts.map((fact) => `environment: ${fact}`),
        `server: limit.historyCount.error ${eventsLimit || '51,200 (default)'}; load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
        `run of ${options.steps} steps completed in ${seconds.toFixed(1)} s (${((seconds * 1000) / options.steps).toFixed(1)} ms/step), ${executions.length} executions`,
        `events per execution: min ${Math.min(...events)}, max ${Math.max(...events)}, total ${events.reduce((a, b) => a + b, 0)} (one execution may hold ${eventsLimit || 51_200})`,
        `bytes per execution: max ${Math.max(...executions.map((e) => e.bytes))}`,
        `steps per execution: ${executions
          .map((e, i) => (executions[i + 1]?.firstStep ?? options.steps + 1) - e.firstStep)
          .join(', ')}`,
        readBack || 'stream not read back (--read-back 0)',
        `compaction: ${options.keep > 0 ? `keepRecentMessages(${options.keep}) above ${options['compact-above']} bytes` : 'none'}; ${compactions.length} compactions${compactions
          .slice(0, 3)
          .map(
            (c) =>
              `; after step ${c.step}: ${c.bytesBefore} → ${c.bytesAfter} bytes, ${c.messagesDropped} messages dropped`,
          )
          .join('')}`,
        `worker (this process, with the clients) peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
      ].join('\n'),
    );
  } finally {
    progress('shutting down');
    await env.close();
  }
}

/**
 * Reads the run's stream from offset 0 across every execution and checks every step is there
 * once, offsets continuous. Slow for long runs: each slice of an old execution replays it.
 */
async function readStreamBack(agent: AgentClient, runId: string): Promise<string> {
  progress('reading the stream back from offset 0 across every execution');
  const observed = await agent.observe({ runId, offset: 0 });
  let offset = 0;
  let steps = 0;
  for await (const chunk of observed.fullStream) {
    offset++;
    if (chunk.type === 'step-start') {
      steps++;
      expectThat(
        chunk.payload.step === steps,
        `step ${chunk.payload.step} came after ${steps - 1}`,
      );
    }
  }
  expectThat(steps === options.steps, `the stream read back holds ${steps} steps`);
  expectThat((await observed.nextOffset) === offset, 'the read-back offsets are not continuous');
  return `stream read back from offset 0: ${offset} chunks, ${steps} steps, each once, offsets continuous`;
}

/** Bytes of the execution's history as the server stores it (protobuf). */
function historyBytes(history: proto.temporal.api.history.v1.IHistory): number {
  return proto.temporal.api.history.v1.History.encode(history).finish().length;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
