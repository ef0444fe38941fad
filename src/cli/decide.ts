/**
 * `tollgate approve | decline | resume <runId>`: applies one decision through the run's update
 * (refused before anything reaches history), then follows the continued run.
 */
import type { AgentClient } from '../temporal-client/agent-client.js';
import type { AgentStream } from '../stream/agent-stream.js';
import type { GrantWithDecision, RunGrantWithDecision } from '../common/grant-types.js';
import type { JsonValue } from '../common/json.js';
import { elicitationReply } from '../common/mcp-elicitation-reply.js';
import type { DecidedBy } from '../common/run-types.js';
import {
  stringOption,
  UsageError,
  type CommandHandler,
  type CommandInput,
} from './command-input.js';
import { agentIdOfRun, decidedByFrom, openTollgate } from './connect.js';
import { decideAll } from './decide-all.js';
import { exitCodeOfFinish, type ExitCode } from './exit-codes.js';
import { printStream, printWaiting } from './follow.js';
import { printRelease } from './grants.js';

type Kind = 'approve' | 'decline' | 'resume';

const DONE: Record<Kind, string> = { approve: 'Approved', decline: 'Declined', resume: 'Resumed' };

export const approve: CommandHandler = (input) =>
  input.options.all === true ? decideAll(input, 'approve') : decideAndFollow(input, 'approve');
export const decline: CommandHandler = (input) =>
  input.options.all === true ? decideAll(input, 'decline') : decideAndFollow(input, 'decline');
export const resume: CommandHandler = (input) => decideAndFollow(input, 'resume');

async function decideAndFollow(input: CommandInput, kind: Kind): Promise<ExitCode> {
  const { output } = input;
  const batchOnly = ['agent', 'tool', 'run'].find((name) => input.options[name] !== undefined);
  if (batchOnly !== undefined) {
    throw new UsageError(`--${batchOnly} goes with --all; to decide one call, name its run.`);
  }
  const runId = input.args[0]!;
  const toolCallId = stringOption(input, 'tool-call');
  const decidedBy = decidedByFrom(stringOption(input, 'as'), stringOption(input, 'roles'));
  const resumeData = kind === 'resume' ? parseData(input) : undefined;
  const tollgate = openTollgate(input.global);
  try {
    output.progress(`Looking up run ${runId}…`);
    const agent = tollgate.getAgent(await agentIdOfRun(tollgate, runId));
    output.progress(`Sending the decision to run ${runId}…`);
    const stream = await send(agent, kind, { runId, toolCallId, decidedBy, input, resumeData });
    output.document({
      type: 'decision',
      from: 'CLI',
      runId,
      payload: { decision: kind, ...(toolCallId !== undefined ? { toolCallId } : {}), decidedBy },
    });
    output.line(`${DONE[kind]} by ${decidedBy.id}. The run goes on:`);
    if (stream.grantRelease) printRelease(stream.grantRelease, output);
    output.progress('Following the run…');
    const stretch = await printStream(stream, output);
    if (stretch.finishReason === 'suspended') {
      printWaiting(runId, await agent.pendingToolCalls(runId), output);
    }
    return exitCodeOfFinish(stretch.finishReason);
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
}

interface Decision {
  runId: string;
  toolCallId: string | undefined;
  decidedBy: DecidedBy;
  input: CommandInput;
  resumeData: JsonValue | undefined;
}

function send(agent: AgentClient, kind: Kind, decision: Decision): Promise<AgentStream> {
  const { runId, toolCallId, decidedBy, input } = decision;
  const reason = stringOption(input, 'reason');
  const waitText = stringOption(input, 'wait');
  const wait =
    waitText === undefined ? {} : { wait: /^\d+$/.test(waitText) ? Number(waitText) : waitText };
  switch (kind) {
    case 'approve':
      return agent.approveToolCall({
        runId,
        toolCallId,
        fingerprint: stringOption(input, 'fingerprint'),
        reason,
        decidedBy,
        ...wait,
        ...editedArgs(stringOption(input, 'args')),
        ...amountOption(stringOption(input, 'amount')),
        ...grantOption(input),
      });
    case 'decline':
      return agent.declineToolCall({ runId, toolCallId, reason, decidedBy, ...wait });
    case 'resume':
      return agent.resumeStream(decision.resumeData ?? null, {
        runId,
        toolCallId,
        decidedBy,
        ...wait,
      });
  }
}

/** `--grant <duration> [--grant-scope thread|resource] [--grant-args]`, or `--grant-scope run`. */
function grantOption(input: CommandInput): { grant?: GrantWithDecision | RunGrantWithDecision } {
  const duration = stringOption(input, 'grant');
  const scope = stringOption(input, 'grant-scope') ?? 'thread';
  const matchArgs = input.options['grant-args'] === true;
  const noRelease = input.options['no-release'] === true;
  if (scope === 'run') {
    if (duration !== undefined || matchArgs || noRelease)
      throw new UsageError('--grant-scope run stands alone: it lasts as long as the run.');
    return { grant: { scope: 'run' } };
  }
  if (duration === undefined) {
    if (scope !== 'thread' || matchArgs || noRelease)
      throw new UsageError('--grant-* go with --grant <duration>.');
    return {};
  }
  if (scope !== 'thread' && scope !== 'resource') {
    throw new UsageError(`--grant-scope is 'thread' or 'resource', not "${scope}".`);
  }
  const length = /^\d+$/.test(duration) ? Number(duration) : duration;
  const release = noRelease ? { release: false } : {};
  return { grant: { for: length, scope, ...(matchArgs ? { matchArgs } : {}), ...release } };
}

/** `--amount` as a number; the run judges whether it is positive (`INVALID_BUDGET_AMOUNT`). */
function amountOption(raw: string | undefined): { amount?: number } {
  if (raw === undefined) return {};
  const amount = Number(raw);
  if (raw.trim() === '' || Number.isNaN(amount)) {
    throw new UsageError(`--amount must be a number, e.g. --amount 20000, not "${raw}".`);
  }
  return { amount };
}

/** `--data` as JSON. Not JSON at all is a usage error (2); JSON the tool refuses is the run's call (5). */
function editedArgs(raw: string | undefined): { args?: JsonValue } {
  return raw === undefined ? {} : { args: parseJson(raw, '--args', '{"id":"rec-7"}') };
}

/** `--data` as JSON, or `--elicitation decline|cancel` as the reply that declines or cancels. */
function parseData(input: CommandInput): JsonValue {
  const raw = stringOption(input, 'data');
  const action = stringOption(input, 'elicitation');
  if ((raw === undefined) === (action === undefined)) {
    throw new UsageError(
      `resume needs one of --data '<json>' (the data the suspended tool asked for) or --elicitation decline|cancel.`,
    );
  }
  if (action === undefined) return parseJson(raw!, '--data', '{"city":"Paris"}');
  if (action !== 'decline' && action !== 'cancel') {
    throw new UsageError(`--elicitation is 'decline' or 'cancel', not "${action}".`);
  }
  return elicitationReply(action);
}

function parseJson(raw: string, flag: string, example: string): JsonValue {
  try {
    return JSON.parse(raw) as JsonValue;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      `${flag} is not valid JSON (${why}); quote it for the shell, e.g. ${flag} '${example}'.`,
    );
  }
}
