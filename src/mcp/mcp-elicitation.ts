import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { canonicalJson, type JsonObject, type JsonValue } from '../common/json.js';
import { replyActionOf, type McpElicitationAction } from '../common/mcp-elicitation-reply.js';
import { sha256Hex } from '../common/sha256.js';
import type { ToolExecutionContext } from '../definitions/create-tool.js';

/**
 * The `suspendPayload` of a call parked on an MCP elicitation. `answered` holds the answers given
 * to the call's earlier elicitations: the call runs again from the top after each resume, and the
 * server asks them again.
 */
export interface McpElicitationPayload {
  kind: 'mcp-elicitation';
  server: string;
  tool: string;
  /** The server's question. */
  message: string;
  /** The server's requested schema: the suspension's `resumeSchema`. */
  requestedSchema: JsonObject;
  /** Hex SHA-256 of the canonical JSON of `{ message, requestedSchema }`. */
  fingerprint: string;
  answered: ElicitationAnswer[];
}

/**
 * One answer to an elicitation: its `content`, or, with `action`, a decline or cancel (then
 * `content` is empty).
 */
export interface ElicitationAnswer {
  fingerprint: string;
  content: JsonObject;
  /** Absent: accepted with `content`. */
  action?: McpElicitationAction;
}

/** Identifies an elicitation across runs of the same call: its message and its schema. */
export function elicitationFingerprint(message: string, requestedSchema: unknown): string {
  return sha256Hex(canonicalJson({ message, requestedSchema }));
}

/** The answers a call has for the server's elicitations, each used once, in order. */
export class ElicitationAnswers {
  private readonly used = new Set<number>();

  constructor(readonly all: ReadonlyArray<ElicitationAnswer>) {}

  /** From the suspension this execution resumes (if it was an elicitation) and its resume data. */
  static of(context: ToolExecutionContext): ElicitationAnswers {
    const previous = context.agent.suspendPayload;
    const data = context.agent.resumeData;
    if (!isElicitationPayload(previous) || !isObject(data)) return new ElicitationAnswers([]);
    const { fingerprint } = previous;
    const action = replyActionOf(data);
    const answer: ElicitationAnswer = action
      ? { fingerprint, content: {}, action }
      : { fingerprint, content: data };
    return new ElicitationAnswers([...previous.answered, answer]);
  }

  /** The server's answer from the first unused answer to an elicitation with this fingerprint. */
  take(fingerprint: string): ElicitResult | undefined {
    const index = this.all.findIndex(
      (answer, at) => !this.used.has(at) && answer.fingerprint === fingerprint,
    );
    if (index < 0) return undefined;
    this.used.add(index);
    const answer = this.all[index]!;
    if (answer.action) return { action: answer.action };
    return { action: 'accept', content: answer.content as Record<string, string> };
  }
}

function isElicitationPayload(value: unknown): value is McpElicitationPayload {
  if (!isObject(value)) return false;
  return (
    value.kind === 'mcp-elicitation' &&
    typeof value.fingerprint === 'string' &&
    Array.isArray(value.answered)
  );
}

function isObject(value: unknown): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
