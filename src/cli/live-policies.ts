/** `tollgate live-policy` and `tollgate live-policies` (docs/live-policies.md). */
import { stringOption, UsageError, type CommandHandler } from './command-input.js';
import { decidedByFrom, openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';
import { formatTable } from './output.js';

const APPROVAL = { required: true, 'not-required': false, 'as-coded': null } as const;

export const livePolicy: CommandHandler = async (input) => {
  const { output } = input;
  const [agentId, toolName] = input.args as [string, string];
  const approval = stringOption(input, 'approval');
  if (approval === undefined || !(approval in APPROVAL)) {
    throw new UsageError('live-policy needs --approval required, not-required or as-coded.');
  }
  const requireApproval = APPROVAL[approval as keyof typeof APPROVAL];
  const reason = stringOption(input, 'reason');
  const identity = decidedByFrom(stringOption(input, 'as'), stringOption(input, 'roles'));
  const tollgate = openTollgate(input.global);
  try {
    const result = await tollgate.livePolicies.set(
      { agentId, toolName, requireApproval, ...(reason !== undefined ? { reason } : {}) },
      { identity },
    );
    output.document(result);
    output.line(
      `${toolName} of ${agentId}: ${approval}. Released ${result.released.length} waiting call(s).`,
    );
    for (const call of result.released) output.line(`  released ${call.runId} ${call.toolCallId}`);
    for (const run of result.refused) {
      output.line(`  not told ${run.runId}: ${run.error.code} ${run.error.message}`);
    }
    if (result.skipped > 0) output.line(`  ${result.skipped} more open run(s): send it again.`);
    return result.refused.length > 0 ? EXIT.refused : EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
};

export const livePoliciesList: CommandHandler = async (input) => {
  const { output } = input;
  const agentId = stringOption(input, 'agent');
  const tollgate = openTollgate(input.global);
  try {
    const rules = await tollgate.livePolicies.list(agentId !== undefined ? { agentId } : {});
    output.document({ rules });
    if (rules.length === 0) output.line('No live rule: every tool follows its coded rules.');
    else {
      output.line(
        formatTable(
          ['AGENT', 'TOOL', 'APPROVAL', 'BY', 'SINCE', 'REASON'],
          rules.map((r) => [
            r.agentId,
            r.toolName,
            r.requireApproval ? 'required' : 'not-required',
            r.changedBy?.id ?? '',
            r.changedAt,
            r.reason ?? '',
          ]),
        ),
      );
    }
    return EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
};
