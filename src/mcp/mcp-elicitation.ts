import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { canonicalJson, toJsonValue, type JsonObject, type JsonValue } from '../common/json.js';
import {
  elicitationResumeSchema,
  replyActionOf,
  urlElicitationResumeSchema,
  type McpElicitationAction,
} from '../common/mcp-elicitation-reply.js';
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
  /** The server's requested schema (form mode); `{}` in URL mode. */
  requestedSchema: JsonObject;
  /**
   * Hex SHA-256 of the canonical JSON of `{ message, requestedSchema }`; in URL mode of
   * `{ message, requestedSchema: { mode: 'url' } }` (a URL carries per-request state).
   */
  fingerprint: string;
  answered: ElicitationAnswer[];
  /** `'url'`: the user must go through the page at `url` (an OAuth or payment page). */
  mode?: 'url';
  /** URL mode: the page to open. */
  url?: string;
  /** URL mode: the server's id of this elicitation. */
  elicitationId?: string;
  /**
   * URL mode, when the worker's channels can sign it: the Tollgate URL that answers this wait
   * with `accept` when hit (GET from a browser, POST from a server); see docs/mcp.md "URL mode".
   */
  callbackUrl?: string;
}

/** What a call parks on: the question as its payload tells it, and the resume data it takes. */
export interface ParkedQuestion {
  payload: Omit<McpElicitationPayload, 'answered' | 'server' | 'tool' | 'kind'>;
  resumeSchema: JsonObject;
}

/** The server's elicitation, in form or URL mode, as a call parks on it. */
export function questionOf(params: ElicitRequest['params']): ParkedQuestion {
  if (params.mode === 'url') {
    const { message, url, elicitationId } = params;
    const fingerprint = elicitationFingerprint(message, { mode: 'url' });
    return {
      payload: { message, requestedSchema: {}, fingerprint, mode: 'url', url, elicitationId },
      resumeSchema: urlElicitationResumeSchema(),
    };
  }
  const requestedSchema = toJsonValue(params.requestedSchema) as JsonObject;
  const fingerprint = elicitationFingerprint(params.message, requestedSchema);
  return {
    payload: { message: params.message, requestedSchema, fingerprint },
    resumeSchema: elicitationResumeSchema(requestedSchema),
  };
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
