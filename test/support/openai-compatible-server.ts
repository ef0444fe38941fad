/**
 * A tiny OpenAI-compatible HTTP server for tests: it answers `POST /v1/chat/completions`
 * from a script, so the real `@ai-sdk/openai` chat model (`createOpenAI({ baseURL }).chat(id)`)
 * is exercised over loopback HTTP, streaming (SSE) and non-streaming alike.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted assistant turn, consumed by one chat-completions request. */
export interface ScriptedReply {
  /** Assistant text; streamed word by word. */
  text?: string;
  /** Tool calls; `args` is JSON-encoded and streamed in several `arguments` fragments. */
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  /** Defaults to `'tool_calls'` when `toolCalls` is non-empty, else `'stop'`. */
  finishReason?: 'stop' | 'tool_calls' | 'length';
  /** Answer with this HTTP error instead (OpenAI's error shape), e.g. 401, 429 or 503. */
  error?: { status: number; message: string; headers?: Record<string, string> };
}

/** Handle on a running fake server. */
export interface FakeOpenAIServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:PORT/v1`; pass it to `createOpenAI({ baseURL })`. */
  baseURL: string;
  /** Parsed JSON bodies of every chat-completions request, in arrival order (unexpected ones included). */
  requests: Array<Record<string, unknown>>;
  /** `Date.now()` at the arrival of each request, aligned with `requests`. */
  arrivals: number[];
  /** Number of scripted replies not yet consumed. */
  remaining(): number;
  /** Stops the server, dropping any open keep-alive connections. */
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Sends an error in OpenAI's shape, which `@ai-sdk/openai` turns into an `APICallError` message. */
function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code: string,
  headers: Record<string, string> = {},
): void {
  const type = status >= 500 ? 'server_error' : 'invalid_request_error';
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type, param: null, code } }));
}

/** Splits text into word-sized pieces (each word with its trailing whitespace); joining them gives the text back. */
function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** One-line description of a chat message, for "unexpected request" errors. */
function summarise(message: unknown): string {
  const m = (message ?? {}) as Json;
  type Call = { function: { name: string; arguments: string } };
  const parts = Array.isArray(m.content)
    ? (m.content as Json[]).map((p) => p.text ?? `[${String(p.type)}]`)
    : [m.content];
  const calls = ((m.tool_calls ?? []) as Call[]).map(
    (c) => `${c.function.name}(${c.function.arguments})`,
  );
  const text = [...parts, ...calls].filter((x) => typeof x === 'string' && x !== '').join(' ');
  const who = m.role === 'tool' ? `tool[${String(m.tool_call_id)}]` : String(m.role ?? 'none');
  return `${who}: ${JSON.stringify(text.length > 160 ? `${text.slice(0, 157)}...` : text)}`;
}

function usageFor(body: Json, reply: ScriptedReply): Json {
  const prompt_tokens = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
  const completion_tokens = words(reply.text ?? '').length + (reply.toolCalls?.length ?? 0) * 10;
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

/** One scripted turn being answered; `head` holds the fields shared by every chunk/response. */
interface Turn {
  body: Json;
  reply: ScriptedReply;
  head: { id: string; created: number; model: unknown };
  finishReason: string;
}

function writeStream(res: ServerResponse, { body, reply, head, finishReason }: Turn): void {
  const includeUsage = (body.stream_options as Json | undefined)?.include_usage === true;
  const base = { ...head, object: 'chat.completion.chunk', system_fingerprint: null };
  const send = (choices: Json[], extra: Json = {}): void => {
    res.write(
      `data: ${JSON.stringify({ ...base, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`,
    );
  };
  const delta = (d: Json): void =>
    send([{ index: 0, delta: d, logprobs: null, finish_reason: null }]);

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  delta({ role: 'assistant', content: reply.text ? '' : null, refusal: null });
  for (const word of words(reply.text ?? '')) delta({ content: word });
  (reply.toolCalls ?? []).forEach((call, index) => {
    delta({
      tool_calls: [
        { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
      ],
    });
    // OpenAI streams `arguments` in small fragments; clients must concatenate them.
    for (const part of JSON.stringify(call.args).match(/.{1,6}/gs) ?? [])
      delta({ tool_calls: [{ index, function: { arguments: part } }] });
  });
  send([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]);
  if (includeUsage) send([], { usage: usageFor(body, reply) });
  res.end('data: [DONE]\n\n');
}

function completion({ body, reply, head, finishReason }: Turn): Json {
  const toolCalls = (reply.toolCalls ?? []).map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  const message = {
    role: 'assistant',
    content: reply.text ?? null,
    refusal: null,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
  };
  return {
    ...head,
    object: 'chat.completion',
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage: usageFor(body, reply),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts a fake OpenAI chat-completions server on `127.0.0.1` (random port).
 * Each request consumes the next reply of `script`; once it is exhausted the server answers
 * HTTP 500 with an OpenAI-style error naming the unexpected request number and its last message.
 * Note that the AI SDK retries 5xx responses unless `maxRetries: 0` is passed.
 */
export async function startOpenAICompatibleServer(
  script: ScriptedReply[],
): Promise<FakeOpenAIServer> {
  const requests: Json[] = [];
  const arrivals: number[] = [];
  let next = 0;

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || path !== '/v1/chat/completions') {
        return sendError(res, 404, `No route for ${req.method} ${req.url}`, 'not_found');
      }
      let body: Json;
      try {
        body = JSON.parse(await readBody(req)) as Json;
      } catch (err) {
        return sendError(res, 400, `Request body is not JSON: ${String(err)}`, 'bad_json');
      }
      requests.push(body);
      arrivals.push(Date.now());
      const n = requests.length;
      const reply = script[next];
      if (reply === undefined) {
        const messages = Array.isArray(body.messages) ? body.messages : [];
        const message =
          `Fake OpenAI server: unexpected request #${n} (the script has only ${script.length} replies). ` +
          `Last message: ${summarise(messages[messages.length - 1])}`;
        return sendError(res, 500, message, 'script_exhausted');
      }
      next++;
      if (reply.error) {
        const { status, message, headers } = reply.error;
        return sendError(res, status, message, `http_${status}`, headers);
      }
      const finishReason = reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
      const head = {
        id: `chatcmpl-fake-${n}`,
        created: Math.floor(Date.now() / 1000),
        model: body.model,
      };
      const turn: Turn = { body, reply, head, finishReason };
      if (body.stream === true) writeStream(res, turn);
      else sendJson(res, 200, completion(turn));
    })().catch((err: unknown) => {
      if (res.headersSent) res.destroy();
      else sendError(res, 500, `Fake OpenAI server crashed: ${String(err)}`, 'crash');
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    arrivals,
    remaining: () => script.length - next,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
