/**
 * The A2A routes (docs/a2a.md): each exposed agent's card at
 * `/a2a/<agentId>/.well-known/agent-card.json` (the first one's also at
 * `/.well-known/agent-card.json`), public like any agent card, and its JSON-RPC endpoint at
 * `/api/a2a/<agentId>`, behind the API's bearer tokens, body limit and outage bound.
 */
import { AgentCard, A2A_PROTOCOL_VERSION, AGENT_CARD_PATH } from '@a2a-js/sdk';
import { JsonRpcTransportHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { API_PREFIX, type ErrorBody } from '../../common/http-api.js';
import { TollgateError } from '../../common/errors.js';
import type { Tollgate } from '../../runtime.js';
import { AgentDirectory } from '../../temporal-client/agent-directory.js';
import type { ServerEnv } from '../auth.js';
import type { ErrorLogger } from '../errors.js';
import { CALLER_STATE_KEY, TollgateA2AHandler } from './a2a-handler.js';

/** Options of the A2A server (`createTollgateServer({ a2a })`). */
export interface A2AServerOptions {
  /** Ids of the agents exposed over A2A; the first one's card is also served at the root. */
  agents: string[];
  /**
   * The server's public base URL, written into agent cards (e.g. `https://tollgate.example.com`).
   * Default: the origin of the request for the card, right only without a proxy in front.
   */
  publicUrl?: string;
}

export const A2A_ROUTE = '/a2a';

export function registerA2ARoutes(
  app: Hono<ServerEnv>,
  tollgate: Tollgate,
  options: A2AServerOptions,
  log: ErrorLogger,
): void {
  const agents = checkA2AOptions(options);
  // Only entries are read (`description`), so how recently a worker polled does not matter here.
  const directory = new AgentDirectory(() => tollgate.client(), tollgate.taskQueue, 60_000);
  const cardOf = (agentId: string, c: Context) => agentCard(directory, agentId, baseOf(options, c));
  const transports = new Map(
    agents.map((agentId) => {
      const handler = new TollgateA2AHandler(
        tollgate,
        agentId,
        () => Promise.reject(new Error('cards are served by the card route')),
        (error) => log(error, `A2A ${agentId}`),
      );
      return [agentId, new JsonRpcTransportHandler(handler)] as const;
    }),
  );
  const serveCard = async (c: Context, agentId: string) =>
    c.json(AgentCard.toJSON(await cardOf(agentId, c)) as object);
  app.get(`/${AGENT_CARD_PATH}`, (c) => serveCard(c, agents[0]!));
  app.get(`${A2A_ROUTE}/:agentId/${AGENT_CARD_PATH}`, (c) => {
    const agentId = c.req.param('agentId');
    return transports.has(agentId) ? serveCard(c, agentId) : notExposed(c, agentId);
  });
  app.post(`${API_PREFIX}${A2A_ROUTE}/:agentId`, async (c) => {
    const agentId = c.req.param('agentId');
    const transport = transports.get(agentId);
    if (!transport) return notExposed(c, agentId);
    const caller = { identity: c.get('identity'), scope: c.get('scope'), kind: c.get('kind') };
    const context = new ServerCallContext({ state: new Map([[CALLER_STATE_KEY, caller]]) });
    const body = await c.req.text();
    const answer = await transport.handle(body, context);
    if (!(Symbol.asyncIterator in answer)) return c.json(answer);
    return streamAnswer(c, answer, requestIdOf(body));
  });
}

/**
 * A streamed answer as SSE. A refusal before the first event (the task is not found, the caller
 * may not) is a plain JSON-RPC error response; one after it is an `error` event holding one, so
 * the client sees the refusal instead of a stream that just ends.
 */
async function streamAnswer(
  c: Context,
  answer: AsyncGenerator<unknown, void, undefined>,
  id: JsonRpcId,
): Promise<Response> {
  const errorOf = (error: unknown) => ({
    jsonrpc: '2.0',
    id,
    error: JsonRpcTransportHandler.mapToJSONRPCError(error),
  });
  let first: IteratorResult<unknown, void>;
  try {
    first = await answer.next();
  } catch (error) {
    return c.json(errorOf(error));
  }
  return streamSSE(c, async (sse) => {
    try {
      for (let next = first; !next.done; next = await answer.next()) {
        await sse.writeSSE({ data: JSON.stringify(next.value) });
      }
    } catch (error) {
      await sse.writeSSE({ event: 'error', data: JSON.stringify(errorOf(error)) });
    }
  });
}

type JsonRpcId = string | number | null;

/** The JSON-RPC id of a request body the transport already parsed; null when it has none. */
function requestIdOf(body: string): JsonRpcId {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

function checkA2AOptions(options: A2AServerOptions): string[] {
  const agents = options.agents;
  if (
    !Array.isArray(agents) ||
    agents.length === 0 ||
    agents.some((a) => typeof a !== 'string' || a === '')
  ) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `a2a.agents must be a non-empty array of agent ids, not ${JSON.stringify(agents)}.`,
    );
  }
  if (options.publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(options.publicUrl)) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `a2a.publicUrl must be an http(s) URL such as https://tollgate.example.com, not ${JSON.stringify(options.publicUrl)}.`,
    );
  }
  return [...new Set(agents)];
}

function baseOf(options: A2AServerOptions, c: Context): string {
  return (options.publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
}

function notExposed(c: Context, agentId: string) {
  const body: ErrorBody = {
    error: {
      code: 'NOT_FOUND',
      message: `Agent "${agentId}" is not served over A2A; list it in a2a.agents.`,
    },
  };
  return c.json(body, 404);
}

/** The agent's card, from its directory entry: what it is, where to call it, how to sign in. */
async function agentCard(
  directory: AgentDirectory,
  agentId: string,
  base: string,
): Promise<AgentCard> {
  // Read from the entry itself, not the listing, which lags a just-started worker.
  const listing = await directory.description(agentId);
  const description = listing.description ?? `Tollgate agent ${listing.name}.`;
  return {
    name: listing.name,
    description,
    supportedInterfaces: [
      {
        url: `${base}${API_PREFIX}${A2A_ROUTE}/${encodeURIComponent(agentId)}`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ],
    provider: undefined,
    version: '1',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      tollgate: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description: 'A Tollgate bearer token (docs/http-api.md).',
            scheme: 'bearer',
            bearerFormat: '',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { tollgate: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: agentId,
        name: listing.name,
        description,
        tags: ['tollgate'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
