/**
 * `tollgate hand-off <runId> --to <ids>`: hands a waiting approval to other approvers through the
 * run's update (refused before anything reaches history). The call keeps waiting, for them.
 */
import { stringOption, UsageError, type CommandHandler } from './command-input.js';
import { agentIdOfRun, decidedByFrom, openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';

export const handOff: CommandHandler = async (input) => {
  const { output } = input;
  const runId = input.args[0]!;
  const to = (stringOption(input, 'to') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (to.length === 0) {
    throw new UsageError('hand-off needs --to <id,role:name>: who decides the call from now on.');
  }
  const toolCallId = stringOption(input, 'tool-call');
  const note = stringOption(input, 'note');
  const waitText = stringOption(input, 'wait');
  const decidedBy = decidedByFrom(stringOption(input, 'as'), stringOption(input, 'roles'));
  const tollgate = openTollgate(input.global);
  try {
    output.progress(`Looking up run ${runId}…`);
    const agent = tollgate.getAgent(await agentIdOfRun(tollgate, runId));
    output.progress(`Handing the call off in run ${runId}…`);
    const handed = await agent.handOffToolCall({
      runId,
      to,
      decidedBy,
      ...(toolCallId !== undefined ? { toolCallId } : {}),
      ...(note !== undefined ? { note } : {}),
      ...(waitText !== undefined
        ? { wait: /^\d+$/.test(waitText) ? Number(waitText) : waitText }
        : {}),
    });
    output.document({ type: 'hand-off', from: 'CLI', runId, payload: { ...handed, decidedBy } });
    output.line(
      `Handed off ${handed.toolName} (${handed.toolCallId}) to ${handed.approvers.join(', ')} by ${decidedBy.id}; it waits for them.`,
    );
    return EXIT.ok;
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
};
