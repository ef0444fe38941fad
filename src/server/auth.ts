import type { MiddlewareHandler } from 'hono';
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { TollgateError } from '../common/errors.js';
import type { ErrorBody } from '../common/http-api.js';
import type { DecidedBy } from '../common/run-types.js';
import { checkScope, type Scope } from '../common/scope.js';

/** One accepted bearer token and the identity it stands for. */
export interface TokenConfig {
  /** The secret the caller sends as `Authorization: Bearer <token>`. */
  token: string;
  /** Who the caller is; recorded as `decidedBy.id` on every decision the token makes. */
  id: string;
  /** Recorded as `decidedBy.roles`. */
  roles?: string[];
  /**
   * `'agent'`: the token belongs to another agent, not a person (docs/a2a.md). An agent may
   * decline and answer suspended calls, but approves only a call whose approval rules name it
   * (by id or `role:`). Default `'person'`.
   */
  kind?: CallerKind;
  /**
   * What the token may do: agents, resources (tenants) and actions, each a list that may use
   * `*` patterns. Without `scopes` the token is an operator: everything, on every run.
   */
  scopes?: Scope;
}

/** Bearer tokens the server accepts. */
export interface AuthConfig {
  tokens: TokenConfig[];
  /**
   * The JSON file the tokens came from (`loadAuthConfig` sets it): the server checks it on every
   * request and reads it again when it changed, so a revoked token or role counts from the next
   * request on (`tokens` is then only the first reading). Default: none; `tokens` is fixed.
   */
  tokensFile?: string;
}

/** Hono environment of the server's routes: the authenticated caller, set by `bearerAuth`. */
export interface ServerEnv {
  Variables: { identity: DecidedBy; scope: Scope | undefined; kind: CallerKind };
}

const tokenList = z
  .array(
    z.object({
      token: z.string().min(1),
      id: z.string().min(1),
      roles: z.array(z.string().min(1)).optional(),
      kind: z.enum(['person', 'agent']).optional(),
      scopes: z.unknown().optional(),
    }),
  )
  .min(1);

/** Checks an auth config, naming the first problem; duplicate tokens are refused. */
export function checkAuthConfig(config: unknown, source = 'auth config'): AuthConfig {
  const list = Array.isArray(config) ? config : (config as { tokens?: unknown } | null)?.tokens;
  const parsed = tokenList.safeParse(list);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = ['tokens', ...issue.path.map(String)].join('.');
    throw new TollgateError(
      'INVALID_OPTIONS',
      `${source} is invalid at ${path}: ${issue.message}; expected a non-empty array of { token, id, roles?, kind?, scopes? }.`,
    );
  }
  const tokens: TokenConfig[] = parsed.data.map(({ scopes, ...token }, at) =>
    scopes === undefined
      ? token
      : { ...token, scopes: checkScope(scopes, `${source}: tokens.${at}.scopes`) },
  );
  const seen = new Set<string>();
  for (const { token, id } of tokens) {
    if (seen.has(token)) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `${source} lists one token twice (the second for id "${id}"); give every identity its own token.`,
      );
    }
    seen.add(token);
  }
  return { tokens };
}

/**
 * Reads the server's tokens from a JSON file (`file`, else `TOLLGATE_TOKENS_FILE`) or from the
 * env var `TOLLGATE_TOKENS`, each a JSON array of `{ token, id, roles?, scopes? }` (a file may also hold
 * `{ tokens: [...] }`). Anything missing or malformed is an `INVALID_OPTIONS` error.
 */
export function loadAuthConfig(
  options: { file?: string; env?: NodeJS.ProcessEnv } = {},
): AuthConfig {
  const env = options.env ?? process.env;
  const file = options.file ?? env.TOLLGATE_TOKENS_FILE;
  if (file !== undefined && file !== '') return { ...readTokensFile(file), tokensFile: file };
  const inline = env.TOLLGATE_TOKENS;
  if (inline === undefined || inline === '') {
    throw new TollgateError(
      'INVALID_OPTIONS',
      'No tokens configured: set TOLLGATE_TOKENS to a JSON array of { token, id, roles?, scopes? } or TOLLGATE_TOKENS_FILE to a JSON file holding one.',
    );
  }
  return checkAuthConfig(parseJson(inline, 'TOLLGATE_TOKENS'), 'TOLLGATE_TOKENS');
}

/** Reads and checks a tokens file (`INVALID_OPTIONS` naming the problem). */
export function readTokensFile(file: string): AuthConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TollgateError('INVALID_OPTIONS', `Cannot read the tokens file ${file}.`, {
      cause: error,
    });
  }
  return checkAuthConfig(parseJson(text, `The tokens file ${file}`), `The tokens file ${file}`);
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new TollgateError('INVALID_OPTIONS', `${source} is not valid JSON.`, { cause: error });
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Finds the identity of a presented token. Tokens are compared as SHA-256 digests, which all
 * have the same length, with `timingSafeEqual`, and every configured token is compared, so the
 * time taken says nothing about how much of a token was right or which one matched.
 */
export function tokenMatcher(config: AuthConfig): (presented: string) => Caller | undefined {
  const known = config.tokens.map(({ token, id, roles, scopes, kind }) => ({
    hash: digest(token),
    caller: {
      identity: { id, ...(roles ? { roles: [...roles] } : {}) },
      scope: scopes,
      kind: kind ?? 'person',
    },
  }));
  return (presented) => {
    const hash = digest(presented);
    let found: Caller | undefined;
    for (const entry of known) {
      if (timingSafeEqual(hash, entry.hash) && !found) found = entry.caller;
    }
    return found;
  };
}

/** Who a token stands for and what it may do (`undefined` scope: an operator). */
export interface Caller {
  identity: DecidedBy;
  scope: Scope | undefined;
  kind: CallerKind;
}

/** Whether a token stands for a person or for another agent (`TokenConfig.kind`). */
export type CallerKind = 'person' | 'agent';

/** Who a presented token stands for now (`TokenSource`); rejects when the tokens cannot be read. */
export interface CallerLookup {
  callerOf(presented: string): Promise<Caller | undefined>;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * Rejects requests without a configured bearer token (401) and records who the caller is, as the
 * tokens are at this request (`TokenSource`); 503 `TOKENS_UNAVAILABLE` while the tokens file
 * cannot be read or is invalid.
 */
export function bearerAuth(tokens: CallerLookup): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const presented = header === undefined ? undefined : BEARER.exec(header)?.[1];
    let caller: Caller | undefined;
    try {
      caller = presented === undefined ? undefined : await tokens.callerOf(presented);
    } catch (error) {
      const message = error instanceof TollgateError ? error.message : String(error);
      const body: ErrorBody = { error: { code: 'TOKENS_UNAVAILABLE', message } };
      return c.json(body, 503);
    }
    if (!caller) {
      const problem = header === undefined ? '' : ', error="invalid_token"';
      c.header('WWW-Authenticate', `Bearer realm="tollgate"${problem}`);
      const message =
        header === undefined
          ? 'Send a bearer token: Authorization: Bearer <token>.'
          : 'The bearer token is not valid.';
      const body: ErrorBody = { error: { code: 'UNAUTHORIZED', message } };
      return c.json(body, 401);
    }
    c.set('identity', caller.identity);
    c.set('scope', caller.scope);
    c.set('kind', caller.kind);
    await next();
  };
}
