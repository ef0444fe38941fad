/** `tollgate runs move`: moves a parked run to another build, as an operator (no scope). */
import { stringOption, type CommandHandler } from './command-input.js';
import { decidedByFrom, openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';

export const runsMove: CommandHandler = async (input) => {
  const { output } = input;
  const runId = input.args[0]!;
  const to = stringOption(input, 'to');
  const reason = stringOption(input, 'reason');
  const tollgate = openTollgate(input.global);
  try {
    output.progress(`Checking that the new build replays run ${runId}…`);
    const moved = await tollgate.deployments.move(runId, {
      ...(to !== undefined ? { to } : {}),
      ...(reason !== undefined ? { reason } : {}),
      identity: decidedByFrom(stringOption(input, 'as'), undefined),
    });
    output.document(moved);
    output.line(
      `Moved run ${runId} from build ${moved.from.buildId} to build ${moved.to.buildId} of deployment ${moved.to.deployment}: its next step runs there.`,
    );
    return EXIT.ok;
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
};
