/**
 * `tollgate run <agentId> <prompt>`: starts a run of an agent that workers host and follows it as
 * `watch` does, from its first chunk; when it waits for a decision, shows the waiting calls and
 * (unless `--once`) follows on once someone decides.
 */
import { integerOption, stringOption, UsageError, type CommandHandler } from './command-input.js';
import { openTollgate } from './connect.js';
import { followRun } from './watch.js';

export const run: CommandHandler = async (input) => {
  const { output } = input;
  const [agentId, prompt] = [input.args[0]!, input.args[1]!];
  const thread = stringOption(input, 'thread');
  const resource = stringOption(input, 'resource');
  if ((thread === undefined) !== (resource === undefined)) {
    throw new UsageError(
      '--thread and --resource go together: a memory thread is kept per resource.',
    );
  }
  const maxSteps = integerOption(input, 'max-steps', 0, { min: 1, max: 10_000 });
  const activeTools = listOption(stringOption(input, 'active-tools'));
  const runId = stringOption(input, 'run-id');
  const tollgate = openTollgate(input.global);
  try {
    const agent = tollgate.getAgent(agentId);
    output.progress(`Starting a run of ${agentId}…`);
    const stream = await agent.stream(prompt, {
      ...(thread !== undefined && resource !== undefined ? { memory: { thread, resource } } : {}),
      ...(maxSteps > 0 ? { maxSteps } : {}),
      ...(activeTools !== undefined ? { activeTools } : {}),
      ...(runId !== undefined ? { runId } : {}),
    });
    output.stopProgress();
    output.line(`Run ${stream.runId}:`);
    return await followRun(
      tollgate,
      agent,
      { runId: stream.runId, offset: 0, once: input.options.once === true },
      output,
      stream,
    );
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
};

/** `a,b` as `['a', 'b']`; an empty value is the empty list (the run may use no tools). */
function listOption(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}
