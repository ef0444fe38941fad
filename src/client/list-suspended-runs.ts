import type { Client } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import { TollgateError } from '../common/errors.js';
import type { PendingToolCall } from '../common/run-types.js';
import { QUERIES, SEARCH_ATTRIBUTES } from '../common/wire.js';

/** Filters and paging of `listSuspendedRuns` (SPEC §9). */
export interface ListSuspendedRunsOptions {
  threadId?: string;
  resourceId?: string;
  /** Runs started at or after this instant. */
  fromDate?: Date;
  /** Runs started at or before this instant. */
  toDate?: Date;
  /** Runs per page, 1-1000. Default 20. */
  perPage?: number;
  /** Page number, from 0. Default 0. */
  page?: number;
}

export interface SuspendedRun {
  runId: string;
  status: 'suspended';
  agentId: string;
  threadId?: string;
  resourceId?: string;
  /** When the run's earliest waiting call started to wait, ISO-8601. */
  suspendedAt: string;
  toolCalls: Array<Omit<PendingToolCall, 'requestedAt'>>;
}

export interface SuspendedRuns {
  runs: SuspendedRun[];
  total: number;
}

const MAX_PER_PAGE = 1000;

/**
 * Finds an agent's waiting runs from Temporal alone: visibility (search attributes) says which
 * runs wait, and each run's `pendingToolCalls` query says on what. Works after any restart.
 */
export async function listSuspendedRuns(
  client: Client,
  agentId: string,
  options: ListSuspendedRunsOptions = {},
): Promise<SuspendedRuns> {
  const { perPage = 20, page = 0 } = options;
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_PER_PAGE) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `perPage must be a whole number from 1 to ${MAX_PER_PAGE}, not ${String(perPage)}.`,
    );
  }
  if (!Number.isInteger(page) || page < 0) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `page must be a whole number from 0, not ${String(page)}.`,
    );
  }
  const query = visibilityQuery(agentId, options);
  const { count: total } = await client.workflow.count(query);
  const runs: SuspendedRun[] = [];
  let index = 0;
  const first = page * perPage;
  for await (const execution of client.workflow.list({
    query,
    pageSize: Math.min(perPage * (page + 1), MAX_PER_PAGE),
  })) {
    if (index++ < first) continue;
    const pending = await pendingOf(client, execution.workflowId);
    if (pending.length > 0) {
      runs.push(
        suspendedRun(agentId, execution.workflowId, execution.typedSearchAttributes, pending),
      );
    }
    if (index >= first + perPage) break;
  }
  return { runs, total };
}

function visibilityQuery(agentId: string, options: ListSuspendedRunsOptions): string {
  const { agentId: agent, status, threadId, resourceId } = SEARCH_ATTRIBUTES;
  const clauses = [
    `${agent.name} = ${quote(agentId)}`,
    `${status.name} IN ('awaiting-approval', 'suspended')`,
    `ExecutionStatus = 'Running'`,
  ];
  if (options.threadId !== undefined) clauses.push(`${threadId.name} = ${quote(options.threadId)}`);
  if (options.resourceId !== undefined)
    clauses.push(`${resourceId.name} = ${quote(options.resourceId)}`);
  if (options.fromDate !== undefined)
    clauses.push(`StartTime >= ${quote(isoOf(options.fromDate, 'fromDate'))}`);
  if (options.toDate !== undefined)
    clauses.push(`StartTime <= ${quote(isoOf(options.toDate, 'toDate'))}`);
  return clauses.join(' AND ');
}

function isoOf(date: Date, name: string): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new TollgateError('INVALID_OPTIONS', `${name} must be a valid Date.`);
  }
  return date.toISOString();
}

/** A visibility-query string literal: single quotes, with quotes and backslashes escaped. */
function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

async function pendingOf(client: Client, runId: string): Promise<PendingToolCall[]> {
  try {
    return await client.workflow
      .getHandle(runId)
      .query<PendingToolCall[]>(QUERIES.pendingToolCalls);
  } catch {
    // The run closed between the listing and the query: it no longer waits.
    return [];
  }
}

function suspendedRun(
  agentId: string,
  runId: string,
  attributes: TypedSearchAttributes,
  pending: PendingToolCall[],
): SuspendedRun {
  const threadId = attributes.get(SA_KEYS.threadId);
  const resourceId = attributes.get(SA_KEYS.resourceId);
  return {
    runId,
    status: 'suspended',
    agentId,
    ...(threadId !== undefined ? { threadId } : {}),
    ...(resourceId !== undefined ? { resourceId } : {}),
    suspendedAt: pending.map((call) => call.requestedAt).sort()[0]!,
    toolCalls: pending.map(({ requestedAt: _requestedAt, ...call }) => call),
  };
}
