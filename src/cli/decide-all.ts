/**
 * `tollgate approve | decline --all --agent <id> [--tool <name>] [--run <id>]`: decides every
 * matching call that waits for approval, in batches, each judged by its run on its own
 * (approvers, fingerprint, expiry). Prints one line per call; exit 5 when any was refused.
 */
import { listSuspendedRuns, type SuspendedRun } from '../temporal-client/list-suspended-runs.js';
import {
  MAX_BATCH_DECISIONS,
  type BatchDecision,
  type BatchDecisionResult,
} from '../common/batch-decisions.js';
import { toolLabel } from '../common/chunks.js';
import { stringOption, UsageError, type CommandInput } from './command-input.js';
import { decidedByFrom, openTollgate } from './connect.js';
import { EXIT, exitCodeOfError, type ExitCode } from './exit-codes.js';
import { formatTable } from './output.js';

const PAGE_SIZE = 1000;

export async function decideAll(
  input: CommandInput,
  action: 'approve' | 'decline',
): Promise<ExitCode> {
  const { output } = input;
  const agentId = stringOption(input, 'agent');
  if (agentId === undefined) {
    throw new UsageError(
      `${action} --all needs --agent <id>: the agent whose waiting calls to ${action}.`,
    );
  }
  if (input.args.length > 0) {
    throw new UsageError(`${action} --all takes no run id; narrow it with --run <id> instead.`);
  }
  const single = ['tool-call', 'fingerprint', 'args'].find(
    (name) => input.options[name] !== undefined,
  );
  if (single !== undefined) {
    throw new UsageError(
      `${action} --all decides each call as listed (its own fingerprint); --${single} is for one call.`,
    );
  }
  const tool = stringOption(input, 'tool');
  const runId = stringOption(input, 'run');
  const reason = stringOption(input, 'reason');
  const decidedBy = decidedByFrom(stringOption(input, 'as'), stringOption(input, 'roles'));
  const tollgate = openTollgate(input.global);
  try {
    output.progress('Listing waiting calls…');
    const runs = await waitingRuns(await tollgate.client(), agentId);
    // The fingerprint listed is the one approved: arguments changed since are refused.
    const targets = runs
      .filter((run) => runId === undefined || run.runId === runId)
      .flatMap((run) =>
        run.toolCalls
          .filter((call) => call.requiresApproval)
          .filter((call) => tool === undefined || call.toolName === tool || call.toolId === tool)
          .map((call) => ({
            label: toolLabel(call),
            decision: {
              agentId,
              runId: run.runId,
              toolCallId: call.toolCallId,
              action,
              ...(action === 'approve' ? { fingerprint: call.fingerprint } : {}),
              ...(reason !== undefined ? { reason } : {}),
            } satisfies BatchDecision,
          })),
      );
    const decisions = targets.map((target) => target.decision);
    if (decisions.length === 0) {
      output.stopProgress();
      output.document({ results: [] });
      output.line('No waiting call matches; nothing was decided.');
      return EXIT.ok;
    }
    const results: BatchDecisionResult[] = [];
    for (let at = 0; at < decisions.length; at += MAX_BATCH_DECISIONS) {
      output.progress(`Deciding ${decisions.length} calls (${at} done)…`);
      const batch = decisions.slice(at, at + MAX_BATCH_DECISIONS);
      results.push(...(await tollgate.decideMany(batch, { decidedBy })));
    }
    output.stopProgress();
    output.document({ results });
    output.line(
      formatTable(
        ['RUN', 'TOOL CALL', 'TOOL', 'RESULT'],
        results.map((result, at) => [
          result.runId,
          result.toolCallId,
          targets[at]?.label ?? '',
          result.ok ? result.decision : `refused: ${result.error.code} (${result.error.message})`,
        ]),
      ),
    );
    const refused = results.filter((result) => !result.ok);
    output.line(
      `${results.length - refused.length} of ${results.length} ${action === 'approve' ? 'approved' : 'declined'} by ${decidedBy.id}.`,
    );
    return refused.length === 0 ? EXIT.ok : worstExit(refused);
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
}

async function waitingRuns(
  client: Awaited<ReturnType<ReturnType<typeof openTollgate>['client']>>,
  agentId: string,
): Promise<SuspendedRun[]> {
  const runs: SuspendedRun[] = [];
  for (let page = 0; ; page++) {
    const found = await listSuspendedRuns(client, agentId, { perPage: PAGE_SIZE, page });
    runs.push(...found.runs);
    if ((page + 1) * PAGE_SIZE >= found.total) return runs;
  }
}

/** Refusals exit 5; when nothing could be applied for want of a worker, 7. */
function worstExit(refused: BatchDecisionResult[]): ExitCode {
  const codes = refused.map((result) => (result.ok ? EXIT.ok : exitCodeOfError(result.error.code)));
  return codes.includes(EXIT.refused) ? EXIT.refused : (codes[0] ?? EXIT.error);
}
