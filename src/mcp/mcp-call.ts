import {
  ErrorCode,
  McpError,
  UrlElicitationRequiredError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { TollgateError } from '../common/errors.js';
import { toJsonValue, type JsonValue } from '../common/json.js';
import { MCP_CALLBACK_META_KEY } from '../common/mcp-callback.js';
import type { SuspendSignal, ToolExecutionContext } from '../definitions/create-tool.js';
import { DefinitionChanged } from '../definitions/definition-change.js';
import { asProtocolError, listAllTools, liveDefinition } from './mcp-definition.js';
import { ElicitationAnswers, questionOf, type ParkedQuestion } from './mcp-elicitation.js';
import { pinOf, type Pinned, type PinnedTool } from './mcp-pin-store.js';
import { authRequired, type McpClientPool } from './mcp-pool.js';

/** What a call needs to know about its tool and server. */
export interface McpCallSetup extends PinnedTool {
  pool: McpClientPool;
  onDrift: 'gate' | 'refuse';
  /** Limit of the call's request, ms; progress notifications do not extend it. */
  timeoutMs: number;
  /** The tool declares `retry`: a call that timed out may be sent again. */
  retriesSafe: boolean;
}

/**
 * The tool as the server lists it now (`liveDefinition`), read over a pooled connection, against
 * the pin that holds (`pinOf`).
 */
export async function currentDefinition(
  setup: McpCallSetup,
): Promise<{ fingerprint: string; drift?: string; pinned: Pinned }> {
  const pinned = await pinOf(setup);
  const lease = await setup.pool.lease();
  let broken = false;
  try {
    const listed = await listAllTools(lease.client, setup.server);
    return { ...liveDefinition(setup.server, pinned, listed), pinned };
  } catch (error) {
    broken = true;
    // Tokens revoked or expired for good while the connection was open: the gate's note and the
    // call's error then say what to do.
    throw error instanceof UnauthorizedError ? authRequired(setup.server, error) : error;
  } finally {
    lease.release(broken);
  }
}

/**
 * Right before the call: the tool must still be what its gate saw (`approvedDefinition`, else the
 * pinned one). With `onDrift: 'refuse'` a changed tool is refused; with `'gate'` a tool that
 * differs from what was approved asks for a new approval, and nothing runs either way.
 */
async function checkDefinition(setup: McpCallSetup, context: ToolExecutionContext): Promise<void> {
  const live = await currentDefinition(setup);
  if (setup.onDrift === 'refuse') {
    if (live.drift === undefined) return;
    throw new TollgateError(
      'MCP_TOOL_DRIFT',
      `${live.drift} The call was refused (onDrift: 'refuse'); review the server and define the agent again.`,
    );
  }
  if (live.fingerprint === (context.approvedDefinition ?? live.pinned.fingerprint)) return;
  const name = setup.pinned.definition.name;
  const what = live.drift ?? 'it is back to its pinned definition.';
  throw new DefinitionChanged(
    `Tool "${name}" of MCP server "${setup.server}" changed after the call's gate, before it ran: ${what} The call waits for a new approval.`,
    live.fingerprint,
  );
}

/**
 * Calls the tool on the server. An elicitation the call has an answer for (from an earlier
 * suspension of the same call) is answered (accepted with its data, or declined or cancelled);
 * a new one ends the attempt and parks the call with the server's schema, or a decline or cancel
 * reply, as its `resumeSchema`; the call runs again, from the top, on resume.
 */
export async function callMcpTool(
  setup: McpCallSetup,
  args: unknown,
  context: ToolExecutionContext,
): Promise<JsonValue | SuspendSignal> {
  const name = setup.pinned.definition.name;
  await checkDefinition(setup, context);
  const answers = ElicitationAnswers.of(context);
  const lease = await setup.pool.lease();
  const controller = new AbortController();
  const cancel = () => controller.abort(context.abortSignal.reason);
  context.abortSignal.addEventListener('abort', cancel, { once: true });
  let asked: ParkedQuestion | undefined;
  lease.onElicitation(async (params) => {
    const question = questionOf(params);
    const answer = answers.take(question.payload.fingerprint);
    if (answer) return answer;
    asked = question;
    // Nobody can answer while this attempt waits: end it; the server sees a cancelled call.
    controller.abort();
    return { action: 'cancel' };
  });
  let broken = false;
  // The wait this attempt may park on is the one after the answers it already has.
  const signed = context.mcpCallbackUrl;
  const callback = (elicitationId?: string) =>
    signed!({
      server: setup.server,
      answered: answers.all.length,
      ...(elicitationId !== undefined ? { elicitationId } : {}),
    });
  try {
    const result = await lease.client.callTool(
      {
        name,
        arguments: (args ?? {}) as Record<string, unknown>,
        _meta: {
          'tollgate/idempotencyKey': context.idempotencyKey,
          ...(signed ? { [MCP_CALLBACK_META_KEY]: callback() } : {}),
        },
      },
      undefined,
      { signal: controller.signal, timeout: setup.timeoutMs },
    );
    return toolOutput(setup.server, name, result as CallToolResult);
  } catch (error) {
    // A server may also refuse the call until the user went through a page (URL mode).
    if (!asked && error instanceof UrlElicitationRequiredError && error.elicitations[0]) {
      asked = questionOf(error.elicitations[0]);
    }
    if (asked) {
      const parked = { kind: 'mcp-elicitation' as const, server: setup.server, tool: name };
      const url = signed && asked.payload.mode === 'url';
      const payload = {
        ...parked,
        ...asked.payload,
        ...(url ? { callbackUrl: callback(asked.payload.elicitationId) } : {}),
        answered: [...answers.all],
      };
      return context.agent.suspend(payload, { resumeSchema: asked.resumeSchema });
    }
    broken = !(error instanceof TollgateError);
    throw callError(error, setup, name);
  } finally {
    context.abortSignal.removeEventListener('abort', cancel);
    lease.release(broken);
  }
}

/**
 * The tool's output: its structured content if it has one, else its text (one string), else
 * its content blocks as JSON. A result marked `isError` becomes the tool's error.
 */
function toolOutput(server: string, name: string, result: CallToolResult): JsonValue {
  const texts = result.content.filter((block) => block.type === 'text').map((block) => block.text);
  if (result.isError) {
    throw new TollgateError(
      'MCP_TOOL_ERROR',
      `Tool "${name}" of MCP server "${server}" reported an error: ${texts.join('\n') || 'no message'}`,
    );
  }
  if (result.structuredContent !== undefined) return toJsonValue(result.structuredContent);
  if (texts.length === result.content.length) return texts.join('\n');
  return toJsonValue(result.content);
}

/**
 * Classifies a failed call. A broken answer, a connection lost mid-call or an answer that did not
 * come in time fails the call without a retry (the server may have acted; a timeout is retried
 * only when the tool declares `retry`); an error the server answered with is the tool's error;
 * anything else is left to the tool's retry policy.
 */
function callError(error: unknown, setup: McpCallSetup, name: string): unknown {
  const { server } = setup;
  if (error instanceof TollgateError) return error;
  if (error instanceof UnauthorizedError) return authRequired(server, error);
  const protocol = asProtocolError(error, server, `tools/call of "${name}"`);
  if (protocol !== error) return protocol;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return new TollgateError(
      'MCP_SERVER_CLOSED',
      `MCP server "${server}" closed the connection during a call of "${name}"; the call is not retried because it may have had effects: check the server's log.`,
      { cause: error },
    );
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout && !setup.retriesSafe) {
    return new TollgateError(
      'MCP_TOOL_TIMEOUT',
      `Tool "${name}" of MCP server "${server}" did not answer within ${setup.timeoutMs} ms; the call is not retried because the server may have acted: raise timeoutMs, or set retry on the tool if calling it again is safe.`,
      { cause: error },
    );
  }
  if (error instanceof McpError && error.code !== ErrorCode.RequestTimeout) {
    return new TollgateError(
      'MCP_TOOL_ERROR',
      `Tool "${name}" of MCP server "${server}" failed: ${error.message}`,
      { cause: error },
    );
  }
  return error;
}
