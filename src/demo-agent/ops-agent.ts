/**
 * The demo's ops agent: it looks records up freely, but deleting one waits for a human.
 */
import type { LanguageModel } from 'ai';
import { z } from 'zod';
import { Agent } from '../definitions/agent.js';
import { createTool } from '../definitions/create-tool.js';

/** One row of the demo's fake table. */
export interface OpsRecord {
  id: string;
  owner: string;
  lastUsed: string;
}

/** The fake table and what happened to it, so the demo can show what the tools really did. */
export interface RecordTable {
  records: Map<string, OpsRecord>;
  /** Times `delete-record`'s `execute` ran (retries included). */
  deleteExecutions: number;
  /** Times a record was actually removed: at most once per tool call, however often it retries. */
  deletions: number;
}

/** A fresh table of a few fake records; `rec-42` is the stale one the demo prompt is about. */
export function createRecordTable(): RecordTable {
  const rows: OpsRecord[] = [
    { id: 'rec-7', owner: 'billing', lastUsed: '2025-11-30' },
    { id: 'rec-42', owner: 'legacy-import', lastUsed: '2019-03-02' },
    { id: 'rec-108', owner: 'search', lastUsed: '2026-01-14' },
  ];
  return { records: new Map(rows.map((row) => [row.id, row])), deleteExecutions: 0, deletions: 0 };
}

const byId = z.object({ id: z.string().describe('Record id, e.g. rec-42') });

/** Builds the `ops-agent` over `table`, answering with `model`. */
export function createOpsAgent(model: LanguageModel, table: RecordTable): Agent {
  const findRecord = createTool({
    id: 'find-record',
    description: 'Look up a record by id. Returns the record, or { found: false }.',
    inputSchema: byId,
    execute: ({ id }) => {
      const record = table.records.get(id);
      return record ? { found: true, ...record } : { found: false, id };
    },
  });

  // Results by idempotency key: a retried execution (same key) answers from here instead of
  // deleting again. In a real system this record would live next to the data, in one transaction.
  const done = new Map<string, { deleted: boolean; id: string }>();
  const deleteRecord = createTool({
    id: 'delete-record',
    description: 'Delete a record by id. A human must approve each call.',
    inputSchema: byId,
    requireApproval: true,
    execute: ({ id }, context) => {
      table.deleteExecutions++;
      const earlier = done.get(context.idempotencyKey);
      if (earlier) return earlier;
      const result = { deleted: table.records.delete(id), id };
      if (result.deleted) table.deletions++;
      done.set(context.idempotencyKey, result);
      return result;
    },
  });

  return new Agent({
    id: 'ops-agent',
    name: 'Ops Agent',
    instructions:
      'You are an operations assistant for a records database. Before deleting a record, look it up with ' +
      'findRecord. Delete with deleteRecord; a human approves or declines each deletion. ' +
      'If a deletion is declined, do not retry it. Answer in one or two short sentences.',
    model,
    tools: { findRecord, deleteRecord },
  });
}
