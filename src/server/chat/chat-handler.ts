import type { UIMessage, UIMessageChunk } from 'ai';
import { createUIMessageStreamResponse } from 'ai';
import type { Hono } from 'hono';
import { z } from 'zod';
import { API_PREFIX } from '../../common/http-api.js';
import { idProblem } from '../../common/limits.js';
import type { Tollgate } from '../../runtime.js';
import type { ServerEnv } from '../auth.js';
import { shown } from './approval-id.js';
import { answeringErrors, consoleErrorLogger, HttpError, type ErrorLogger } from '../errors.js';
import { callerOf, type ChatCaller } from './chat-caller.js';
import { ChatSession } from './chat-session.js';
import { endingWithError, readableOf } from '../response-stream.js';

/**
 * Under `/api/agents/:agentId`. POST: `useChat`'s requests. GET `/chat/:chatId`: the chat's
 * messages. GET `/chat/:chatId/stream`: the working run replayed and followed (`resume: true`).
 */
export const CHAT_ROUTE = '/chat';

/** The JSON answer of GET `/api/agents/:agentId/chat/:chatId`. */
export interface ChatMessagesResponse {
  messages: UIMessage[];
}

/** Options of `chatHandler`. */
export interface ChatHandlerOptions {
  /** The agent the chat talks to. */
  agentId: string;
  /**
   * Who sends the request, from your own auth (session cookie, bearer token...), never from the
   * body: its `identity` decides, its `scope` limits what it may do, its `resource` (default
   * `identity.id`) keys its chats. `undefined`: the request is answered 401.
   */
  identify(request: Request): ChatCaller | undefined | Promise<ChatCaller | undefined>;
  /** Where errors hidden from callers (answered as `INTERNAL`) are reported. Default `console.error`. */
  logError?: ErrorLogger;
}

const messageSchema = z.looseObject({
  id: z.string(),
  role: z.enum(['user', 'assistant', 'system']),
  parts: z.array(z.looseObject({ type: z.string() })),
});
const postSchema = z.looseObject({
  id: z.string().min(1),
  messages: z.array(messageSchema).min(1),
});

/**
 * A `Request → Response` handler speaking the AI SDK UI message stream protocol for one agent,
 * for Next.js route handlers and any fetch-style server. POST takes `useChat`'s requests (a user
 * message starts a run; approval responses and tool outputs become decisions); GET with
 * `?chatId=` answers the chat's messages as `{ messages }` for `useChat({ messages })`; GET
 * `<path>/<chatId>/stream` replays and follows a run that is working (204 when none is): the
 * URL `useChat({ resume: true })` asks.
 */
export function chatHandler(
  tollgate: Tollgate,
  options: ChatHandlerOptions,
): (request: Request) => Promise<Response> {
  const log = options.logError ?? consoleErrorLogger;
  return (request) =>
    answeringErrors(log, `${request.method} chat`, async () => {
      const caller = await options.identify(request);
      if (!caller) throw new HttpError(401, 'UNAUTHORIZED', 'This chat needs a signed-in caller.');
      if (request.method === 'POST') {
        return await postChat(tollgate, options.agentId, caller, await request.text(), log);
      }
      if (request.method === 'GET') {
        const url = new URL(request.url);
        const resume = RESUME_PATH.exec(url.pathname);
        const chatId = resume ? pathSegment(resume[1]!) : url.searchParams.get('chatId');
        if (!chatId) throw new HttpError(400, 'BAD_REQUEST', 'Name the chat: GET ?chatId=<id>.');
        const session = new ChatSession(tollgate, options.agentId, chatId, caller);
        if (resume) return resumeResponse(await session.resume(), log);
        const body: ChatMessagesResponse = { messages: await session.messages() };
        return Response.json(body);
      }
      throw new HttpError(
        405,
        'BAD_REQUEST',
        `The chat answers GET and POST, not ${request.method}.`,
      );
    });
}

/** The chat routes of the Tollgate server, in the name of the token's identity and scope. */
export function registerChatRoutes(
  app: Hono<ServerEnv>,
  tollgate: Tollgate,
  log: ErrorLogger,
): void {
  const base = `${API_PREFIX}/agents/:agentId${CHAT_ROUTE}`;
  app.post(base, async (c) =>
    postChat(tollgate, c.req.param('agentId')!, callerOf(c), await c.req.text(), log),
  );
  app.get(`${base}/:chatId`, async (c) => {
    const session = new ChatSession(
      tollgate,
      c.req.param('agentId')!,
      c.req.param('chatId')!,
      callerOf(c),
    );
    const body: ChatMessagesResponse = { messages: await session.messages() };
    return c.json(body);
  });
  app.get(`${base}/:chatId/stream`, async (c) => {
    const session = new ChatSession(
      tollgate,
      c.req.param('agentId')!,
      c.req.param('chatId')!,
      callerOf(c),
    );
    return resumeResponse(await session.resume(), log);
  });
}

/** useChat's `resume: true` asks `<api>/<chatId>/stream`; 204 when no run is working. */
const RESUME_PATH = /\/([^/]+)\/stream$/;

function resumeResponse(
  chunks: AsyncIterable<UIMessageChunk> | undefined,
  log: ErrorLogger,
): Response {
  if (!chunks) return new Response(null, { status: 204 });
  return createUIMessageStreamResponse({ stream: readableOf(safely(chunks, log)) });
}

async function postChat(
  tollgate: Tollgate,
  agentId: string,
  caller: ChatCaller,
  text: string,
  log: ErrorLogger,
): Promise<Response> {
  const { id, messages } = parsePost(text);
  const session = new ChatSession(tollgate, agentId, id, caller);
  const last = messages.at(-1) as UIMessage;
  const chunks =
    last.role === 'user'
      ? await session.send(textOf(last), idOf(last))
      : await session.answer(last);
  return createUIMessageStreamResponse({ stream: readableOf(safely(chunks, log)) });
}

function parsePost(text: string): z.infer<typeof postSchema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'The chat request body must be a JSON object.');
  }
  const parsed = postSchema.safeParse(value);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => i.path.join('.'));
    throw new HttpError(
      400,
      'BAD_REQUEST',
      `The chat request needs { id, messages: UIMessage[] } as useChat sends it; bad field ${fields[0]}.`,
      fields,
    );
  }
  return parsed.data;
}

function idOf(message: UIMessage): string {
  const problem = idProblem(message.id, `The user message id ${shown(message.id)}`);
  if (problem) throw new HttpError(400, 'BAD_REQUEST', problem, ['messages.id']);
  return message.id;
}

function pathSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new HttpError(
      400,
      'BAD_REQUEST',
      `The chat id ${shown(text)} in the path is not valid URL encoding; percent-encode it.`,
    );
  }
}

function textOf(message: UIMessage): string {
  const text = message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  if (text.trim() === '')
    throw new HttpError(400, 'BAD_REQUEST', 'The user message holds no text; send a text part.');
  return text;
}

/** A failure after the response began becomes the stream's `error` chunk, with its code. */
function safely(
  chunks: AsyncIterable<UIMessageChunk>,
  log: ErrorLogger,
): AsyncIterable<UIMessageChunk> {
  return endingWithError(chunks, log, 'chat stream', (error) => ({
    type: 'error',
    errorText: `${error.code}: ${error.message}`,
  }));
}
