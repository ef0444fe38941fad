/**
 * `tollgate grant | grants | revoke-grant` (docs/grants.md): the grants registry of the task
 * queue, through Temporal as an operator (no scope, like the other commands).
 */
import { TollgateError } from '../common/errors.js';
import type { JsonValue } from '../common/json.js';
import {
  stringOption,
  UsageError,
  type CommandHandler,
  type CommandInput,
} from './command-input.js';
import type { GrantRelease } from '../common/grant-types.js';
import { decidedByFrom, openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';
import { formatTable, inlineJson, relativeTime } from './output.js';

export const grant: CommandHandler = async (input) => {
  const { output } = input;
  const [agentId, toolName] = input.args as [string | undefined, string | undefined];
  const mcpServer = stringOption(input, 'mcp-server');
  if (agentId === undefined) throw new UsageError('grant needs <agentId>.');
  if (mcpServer !== undefined && toolName !== undefined) {
    throw new TollgateError(
      'INVALID_GRANT',
      `grant takes <toolName> ("${toolName}") or --mcp-server <name> ("${mcpServer}"), not both: drop one.`,
    );
  }
  const resourceId = stringOption(input, 'resource');
  const duration = stringOption(input, 'for');
  if (resourceId === undefined || duration === undefined) {
    throw new UsageError('grant needs --resource <id> and --for <duration>, e.g. --for 4h.');
  }
  const threadId = stringOption(input, 'thread');
  const reason = stringOption(input, 'reason');
  const args = argsOption(stringOption(input, 'args'));
  const identity = decidedByFrom(stringOption(input, 'as'), stringOption(input, 'roles'));
  const tollgate = openTollgate(input.global);
  try {
    const given = await tollgate.grants.create(
      {
        agentId,
        ...(mcpServer !== undefined ? { mcpServer } : { toolName: toolName! }),
        resourceId,
        for: /^\d+$/.test(duration) ? Number(duration) : duration,
        ...(threadId !== undefined ? { threadId } : {}),
        ...(args !== undefined ? { args } : {}),
        ...(reason !== undefined ? { reason } : {}),
      },
      { identity },
    );
    output.document({ grant: given });
    const where = threadId !== undefined ? `thread ${threadId} of ${resourceId}` : resourceId;
    output.line(
      `Granted ${given.grantId}: ${agentId} may run ${mcpServer !== undefined ? `every tool of MCP server ${mcpServer}` : toolName} on ${where} without waiting until ${given.expiresAt}.`,
    );
    return EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
};

export const grantsList: CommandHandler = async (input) => {
  const { output } = input;
  const filter = {
    ...optional('agentId', stringOption(input, 'agent')),
    ...optional('resourceId', stringOption(input, 'resource')),
    ...optional('threadId', stringOption(input, 'thread')),
    ...optional('toolName', stringOption(input, 'tool')),
  };
  const tollgate = openTollgate(input.global);
  try {
    const grants = await tollgate.grants.list(filter);
    output.document({ taskQueue: tollgate.taskQueue, grants });
    const rows = grants.map((g) => [
      g.grantId,
      g.agentId,
      g.toolName,
      g.threadId !== undefined ? `${g.resourceId} / ${g.threadId}` : g.resourceId,
      g.args !== undefined ? inlineJson(g.args) : 'any',
      g.grantedBy?.id ?? 'unknown',
      relativeTime(g.expiresAt),
    ]);
    output.line(
      rows.length > 0
        ? formatTable(['GRANT', 'AGENT', 'TOOL', 'WHERE', 'ARGS', 'BY', 'EXPIRES'], rows)
        : `No live grant on task queue ${tollgate.taskQueue}.`,
    );
    return EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
};

export const revokeGrant: CommandHandler = async (input) => {
  const { output } = input;
  const grantId = input.args[0]!;
  const identity = decidedByFrom(stringOption(input, 'as'), stringOption(input, 'roles'));
  const tollgate = openTollgate(input.global);
  try {
    const revoked = await tollgate.grants.revoke(grantId, { identity });
    output.document({ revoked });
    output.line(`Revoked ${grantId}: calls of ${revoked.toolName} wait for a decision again.`);
    return EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
};

export const releaseGrant: CommandHandler = async (input) => {
  const { output } = input;
  const tollgate = openTollgate(input.global);
  try {
    const release = await tollgate.grants.release(input.args[0]!);
    output.document({ release });
    printRelease(release, output);
    return release.refused.length > 0 ? EXIT.refused : EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
};

/** What a grant's release did, one line per run it reached (docs/grant-release.md). */
export function printRelease(release: GrantRelease, output: CommandInput['output']): void {
  output.line(
    `${release.grantId} released ${release.released.length} waiting call(s); ${release.refused.length} refused.`,
  );
  for (const call of release.released) {
    output.line(`  released ${call.runId} ${call.toolCallId} (${call.toolName})`);
  }
  for (const call of release.refused) {
    output.line(
      `  refused  ${call.runId} ${call.toolCallId} (${call.toolName}): ${call.error.code} ${call.error.message}`,
    );
  }
  if (release.skipped > 0) output.line(`  ${release.skipped} more run(s): release again.`);
  for (const runId of release.unanswered) output.line(`  ${runId}: no worker answered; not sent.`);
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function argsOption(raw: string | undefined): JsonValue | undefined {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as JsonValue;
  } catch {
    throw new UsageError(
      `--args is not valid JSON; quote it for the shell, e.g. --args '{"id":"rec-7"}'.`,
    );
  }
}
