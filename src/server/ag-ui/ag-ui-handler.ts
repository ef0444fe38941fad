import { EventType, type Event as AgUiEvent, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import type { Hono } from 'hono';
import { API_PREFIX } from '../../common/http-api.js';
import type { Tollgate } from '../../runtime.js';
import type { ServerEnv } from '../auth.js';
import type { ChatHandlerOptions } from '../chat/chat-handler.js';
import { callerOf, type ChatCaller } from '../chat/chat-caller.js';
import {
  answeringErrors,
  consoleErrorLogger,
  errorAnswer,
  HttpError,
  type ErrorLogger,
} from '../errors.js';
import { AgUiSession } from './ag-ui-session.js';
import { endingWithError, readableOf, withKeepAlive } from '../response-stream.js';
import { parseBody } from '../validation.js';

/** An SSE comment every so often keeps proxies from closing a quiet stream; clients skip it. */
const KEEP_ALIVE_MS = 15_000;
const keepAlive = () => new TextEncoder().encode(': keep-alive\n\n');

/** Under `/api/agents/:agentId`: POST a RunAgentInput, read AG-UI events (SSE). */
export const AG_UI_ROUTE = '/ag-ui';

/**
 * Options of `agUiHandler`: those of `chatHandler`. `identify` names the caller from your own
 * auth, never from the body (its `resource`, default `identity.id`, keys the caller's threads;
 * `undefined` answers 401); `logError` receives what is answered as `INTERNAL`.
 */
export type AgUiHandlerOptions = ChatHandlerOptions;

/**
 * A `Request → Response` handler speaking AG-UI for one agent, for Next.js route handlers (a
 * CopilotKit runtime's `HttpAgent` points at it) and any fetch-style server: POST a
 * RunAgentInput, read the AG-UI run's events as SSE.
 */
export function agUiHandler(
  tollgate: Tollgate,
  options: AgUiHandlerOptions,
): (request: Request) => Promise<Response> {
  const log = options.logError ?? consoleErrorLogger;
  return (request) =>
    answeringErrors(log, `${request.method} ag-ui`, async () => {
      if (request.method !== 'POST') {
        throw new HttpError(405, 'BAD_REQUEST', `AG-UI runs are POSTed, not ${request.method}.`);
      }
      const caller = await options.identify(request);
      if (!caller) throw new HttpError(401, 'UNAUTHORIZED', 'This agent needs a signed-in caller.');
      return agUiResponse(tollgate, options.agentId, caller, await request.text(), log);
    });
}

/** The AG-UI route of the Tollgate server, in the name of the token's identity and scope. */
export function registerAgUiRoutes(
  app: Hono<ServerEnv>,
  tollgate: Tollgate,
  log: ErrorLogger,
): void {
  app.post(`${API_PREFIX}/agents/:agentId${AG_UI_ROUTE}`, async (c) =>
    agUiResponse(tollgate, c.req.param('agentId')!, callerOf(c), await c.req.text(), log),
  );
}

/**
 * A body that is not a RunAgentInput is answered 400 (JSON `ErrorBody`); anything refused after
 * that is the stream's only event, RUN_ERROR with the Tollgate code, so an AG-UI client shows it
 * as the run's error and keeps its pending interrupts.
 */
async function agUiResponse(
  tollgate: Tollgate,
  agentId: string,
  caller: ChatCaller,
  text: string,
  log: ErrorLogger,
): Promise<Response> {
  const input = parseBody(text, RunAgentInputSchema) as RunAgentInput;
  let events: AsyncIterable<AgUiEvent>;
  try {
    events = await new AgUiSession(tollgate, agentId, caller, input).events();
  } catch (error) {
    events = only(runErrorOf(errorAnswer(error, log, WHERE).body.error));
  }
  const encoder = new EventEncoder();
  return new Response(
    readableOf(
      withKeepAlive(
        encoded(endingWithError(events, log, WHERE, runErrorOf), encoder),
        KEEP_ALIVE_MS,
        keepAlive,
      ),
    ),
    {
      headers: {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        // Reverse proxies such as nginx would otherwise hold events back.
        'x-accel-buffering': 'no',
      },
    },
  );
}

/** Where failures of an AG-UI run are logged. */
const WHERE = 'ag-ui run';

const runErrorOf = (error: { code: string; message: string }): AgUiEvent => ({
  type: EventType.RUN_ERROR,
  message: error.message,
  code: error.code,
});

async function* only(event: AgUiEvent): AsyncIterable<AgUiEvent> {
  yield event;
}

async function* encoded(
  events: AsyncIterable<AgUiEvent>,
  encoder: EventEncoder,
): AsyncIterable<Uint8Array> {
  const bytes = new TextEncoder();
  for await (const event of events) yield bytes.encode(encoder.encodeSSE(event));
}
