/**
 * `tollgate watch <runId>`: follows a run stretch by stretch. When a stretch ends with the run
 * waiting, it shows the waiting calls and (unless `--once`) observes on from where it stopped,
 * so a decision made anywhere else continues the output here.
 */
import type { Tollgate } from '../runtime.js';
import type { AgentClient } from '../temporal-client/agent-client.js';
import type { AgentStream } from '../stream/agent-stream.js';
import { integerOption, type CommandHandler } from './command-input.js';
import { agentIdOfRun, openTollgate } from './connect.js';
import { EXIT, exitCodeOfFinish, type ExitCode } from './exit-codes.js';
import { printStream, printWaiting } from './follow.js';
import type { Output } from './output.js';

export const watch: CommandHandler = async (input) => {
  const { output } = input;
  const runId = input.args[0]!;
  const offset = integerOption(input, 'from', 0, { min: 0, max: Number.MAX_SAFE_INTEGER });
  const tollgate = openTollgate(input.global);
  try {
    output.progress(`Looking up run ${runId}…`);
    const agent = tollgate.getAgent(await agentIdOfRun(tollgate, runId));
    return await followRun(
      tollgate,
      agent,
      { runId, offset, once: input.options.once === true },
      output,
    );
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
};

/**
 * Follows a run from `offset`, stretch by stretch, printing it; when it waits, shows the waiting
 * calls and (unless `once`) goes on once a decision made anywhere continues it.
 */
export async function followRun(
  tollgate: Tollgate,
  agent: AgentClient,
  from: { runId: string; offset: number; once: boolean },
  output: Output,
  /** The run's stream from `offset`, already open (a run just started); observed otherwise. */
  first?: AgentStream,
): Promise<ExitCode> {
  const { runId, once } = from;
  let offset = from.offset;
  let opened = first;
  for (;;) {
    const stream = opened ?? (await agent.observe({ runId, offset }));
    opened = undefined;
    const stretch = await printStream(stream, output);
    offset = stretch.nextOffset;
    if (stretch.chunks === 0) return await closedRunExit(tollgate, runId, offset, output);
    if (stretch.finishReason !== 'suspended') return exitCodeOfFinish(stretch.finishReason);
    const pending = await agent.pendingToolCalls(runId);
    // A stretch replayed from history may have waited on calls decided long ago: only calls
    // still pending make the run "waiting" here (all of them, when the stretch began mid-way).
    const current = stretch.asked.size
      ? pending.filter((call) => stretch.asked.has(call.toolCallId))
      : pending;
    if (current.length === 0) continue;
    printWaiting(runId, pending, output);
    if (once) return EXIT.waiting;
    output.progress('Waiting for a decision (Ctrl-C stops watching; the run goes on)…');
  }
}

/** Nothing followed `offset` because the run had closed: its Temporal status says how. */
async function closedRunExit(
  tollgate: Tollgate,
  runId: string,
  offset: number,
  output: Output,
): Promise<ExitCode> {
  const client = await tollgate.client();
  const status = (await client.workflow.getHandle(runId).describe()).status.name;
  output.document({ type: 'closed', from: 'CLI', runId, payload: { status, offset } });
  output.line(
    `Run ${runId} has closed (${status.toLowerCase()}); nothing follows offset ${offset}.`,
  );
  return status === 'COMPLETED' ? EXIT.ok : EXIT.runFailed;
}
