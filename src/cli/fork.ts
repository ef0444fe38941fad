/**
 * `tollgate fork <runId> --step N`: starts a new run from a run's conversation at the end of step
 * N (docs/fork.md) and follows it until it finishes or waits. The original is only read.
 */
import type { ForkChoice, ForkRequest } from '../common/fork-types.js';
import {
  integerOption,
  stringOption,
  UsageError,
  type CommandHandler,
  type CommandInput,
} from './command-input.js';
import { agentIdOfRun, decidedByFrom, openTollgate } from './connect.js';
import { EXIT, exitCodeOfFinish } from './exit-codes.js';
import { printStream, printWaiting } from './follow.js';

export const fork: CommandHandler = async (input) => {
  const { output } = input;
  const runId = input.args[0]!;
  if (stringOption(input, 'step') === undefined) throw new UsageError('fork needs --step <n>.');
  const request = forkRequest(input, runId);
  const tollgate = openTollgate(input.global);
  try {
    output.progress(`Forking run ${runId} at step ${request.step}…`);
    const agentId = await agentIdOfRun(tollgate, runId);
    const identity = decidedByFrom(stringOption(input, 'as'), undefined);
    const agent = tollgate.getAgent(agentId, { identity });
    const stream = await agent.fork(request);
    output.stopProgress();
    output.document({
      type: 'forked',
      from: 'CLI',
      runId: stream.runId,
      payload: { forkedFrom: { runId, step: request.step } },
    });
    output.line(`Fork ${stream.runId} of run ${runId} at step ${request.step}:`);
    const stretch = await printStream(stream, output);
    if (stretch.finishReason !== 'suspended') return exitCodeOfFinish(stretch.finishReason);
    printWaiting(stream.runId, await agent.pendingToolCalls(stream.runId), output);
    return EXIT.waiting;
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
};

function forkRequest(input: CommandInput, runId: string): ForkRequest {
  const step = integerOption(input, 'step', 0, { min: 0, max: 1_000_000 });
  const prompt = stringOption(input, 'prompt');
  const mode = stringOption(input, 'prompt-mode');
  if (mode !== undefined && mode !== 'replace' && mode !== 'append') {
    throw new UsageError(`--prompt-mode must be replace or append, not "${mode}".`);
  }
  const maxSteps = stringOption(input, 'max-steps');
  const reason = stringOption(input, 'reason');
  const calls: NonNullable<ForkRequest['calls']> = {};
  for (const choice of ['keep', 'ask', 'decline'] as ForkChoice[]) {
    for (const id of idsOf(stringOption(input, choice))) {
      calls[id] = choice === 'decline' && reason !== undefined ? { choice, reason } : choice;
    }
  }
  return {
    runId,
    step,
    ...(prompt !== undefined ? { prompt } : {}),
    ...(mode !== undefined ? { promptMode: mode } : {}),
    ...(Object.keys(calls).length > 0 ? { calls } : {}),
    ...(maxSteps !== undefined
      ? { maxSteps: integerOption(input, 'max-steps', 0, { min: 1, max: 100_000 }) }
      : {}),
  };
}

function idsOf(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
}
