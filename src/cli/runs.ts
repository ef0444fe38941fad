/**
 * `tollgate runs pending`: every call that waits for a decision, across agents, found from
 * Temporal alone (search attributes, then each run's `pendingToolCalls`).
 */
import {
  listSuspendedRuns,
  type ListSuspendedRunsOptions,
  type SuspendedRun,
} from '../temporal-client/list-suspended-runs.js';
import { stringOption, type CommandHandler } from './command-input.js';
import { openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';
import { formatTable, inlineJson, relativeTime, truncate } from './output.js';
import { toolLabel } from '../common/chunks.js';

/** The largest page `listSuspendedRuns` serves. */
const PAGE_SIZE = 1000;
const ARGS_COLUMN_CHARS = 40;
const FINGERPRINT_CHARS = 12;
/** After this long, the progress line explains what may hold the listing up, ms. */
const SLOW_LISTING_MS = 3000;

export const runsPending: CommandHandler = async (input) => {
  const { output } = input;
  const agentId = stringOption(input, 'agent');
  const threadId = stringOption(input, 'thread');
  const resourceId = stringOption(input, 'resource');
  const filters: ListSuspendedRunsOptions = {
    ...(threadId !== undefined ? { threadId } : {}),
    ...(resourceId !== undefined ? { resourceId } : {}),
  };
  const tollgate = openTollgate(input.global);
  output.progress('Listing waiting runs…');
  // Each listed run answers a query from its worker; a run whose worker is down answers only
  // when the query times out, so say why the wait is long.
  const slow = setTimeout(
    () => output.progress('Listing waiting runs (a run whose worker is down holds this up)…'),
    SLOW_LISTING_MS,
  ).unref();
  try {
    const client = await tollgate.client();
    const runs: SuspendedRun[] = [];
    for (let page = 0; ; page++) {
      const found = await listSuspendedRuns(client, agentId, {
        ...filters,
        perPage: PAGE_SIZE,
        page,
      });
      runs.push(...found.runs);
      if ((page + 1) * PAGE_SIZE >= found.total) break;
    }
    // Longest-waiting first: the oldest request is the one most likely to be forgotten.
    runs.sort((a, b) => a.suspendedAt.localeCompare(b.suspendedAt));
    clearTimeout(slow);
    output.stopProgress();
    output.document({ runs, total: runs.length });
    if (runs.length === 0) {
      output.line('No run waits for a decision.');
      return EXIT.ok;
    }
    const rows = runs.flatMap((run) =>
      run.toolCalls.map((call) => [
        run.runId,
        run.agentId,
        toolLabel(call),
        call.requiresApproval ? 'approval' : 'input',
        truncate(inlineJson(call.args), ARGS_COLUMN_CHARS),
        call.fingerprint.slice(0, FINGERPRINT_CHARS),
        relativeTime(run.suspendedAt),
      ]),
    );
    output.line(
      formatTable(
        ['RUN', 'AGENT', 'TOOL', 'WAITS FOR', 'ARGS', 'FINGERPRINT', 'WAITING SINCE'],
        rows,
      ),
    );
    return EXIT.ok;
  } finally {
    clearTimeout(slow);
    output.stopProgress();
    await tollgate.shutdown();
  }
};
