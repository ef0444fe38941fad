/**
 * `tollgate watch <runId>`: follows a run stretch by stretch. When a stretch ends with the run
 * waiting, it shows the waiting calls and (unless `--once`) observes on from where it stopped,
 * so a decision made anywhere else continues the output here.
 */
import type { Tollgate } from '../runtime.js';
import { integerOption, type CommandHandler } from './command-input.js';
import { agentIdOfRun, openTollgate } from './connect.js';
import { EXIT, exitCodeOfFinish, type ExitCode } from './exit-codes.js';
import { printStream, printWaiting } from './follow.js';
import type { Output } from './output.js';

export const watch: CommandHandler = async (input) => {
  const { output } = input;
  const runId = input.args[0]!;
  let offset = integerOption(input, 'from', 0, { min: 0, max: Number.MAX_SAFE_INTEGER });
  const once = input.options.once === true;
  const tollgate = openTollgate(input.global);
  try {
    output.progress(`Looking up run ${runId}…`);
    const agent = tollgate.getAgent(await agentIdOfRun(tollgate, runId));
    for (;;) {
      const stream = await agent.observe({ runId, offset });
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
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
};

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
