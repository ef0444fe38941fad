/**
 * The HTTP API and inbox as `serve` and `dev` run them: tokens, the inbox directory, listening.
 */
import { randomBytes } from 'node:crypto';
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tollgate } from '../runtime.js';
import { createTollgateServer, loadAuthConfig, type AuthConfig } from '../server/index.js';
import { UsageError } from './command-input.js';

export interface HttpHostOptions {
  port: number;
  /** Undefined: the server's default (127.0.0.1). */
  hostname?: string;
  /** `--tokens-file`; undefined: `TOLLGATE_TOKENS_FILE` or `TOLLGATE_TOKENS`. */
  tokensFile?: string;
  /** `--inbox`; undefined: the package's own inbox, when it has one. */
  inboxDir?: string;
  /** Identity of the one-off token made when no tokens are configured (dev only). */
  devIdentity?: string;
}

export interface HttpHost {
  /** Base URL of the API, e.g. `http://127.0.0.1:8787/api`. */
  apiUrl: string;
  /** The inbox page, or undefined when no inbox directory was found. */
  inboxUrl: string | undefined;
  /** The token made up for this dev session, when no tokens were configured. */
  devToken: string | undefined;
  close(): Promise<void>;
}

export async function startHttpHost(
  tollgate: Tollgate,
  options: HttpHostOptions,
): Promise<HttpHost> {
  const { auth, devToken } = authOf(options);
  const inboxRoot = await findInbox(options.inboxDir);
  const server = createTollgateServer({
    tollgate,
    auth,
    ...(inboxRoot ? { inbox: { root: inboxRoot } } : {}),
  });
  const listening = await server.listen({
    port: options.port,
    ...(options.hostname !== undefined ? { hostname: options.hostname } : {}),
  });
  return {
    apiUrl: `${listening.url}/api`,
    inboxUrl: inboxRoot ? `${listening.url}/inbox` : undefined,
    devToken,
    close: () => listening.close(),
  };
}

function authOf(options: HttpHostOptions): { auth: AuthConfig; devToken: string | undefined } {
  const configured =
    options.tokensFile !== undefined ||
    Boolean(process.env.TOLLGATE_TOKENS_FILE) ||
    Boolean(process.env.TOLLGATE_TOKENS);
  if (!configured && options.devIdentity !== undefined) {
    const token = `dev-${randomBytes(16).toString('hex')}`;
    return {
      auth: { tokens: [{ token, id: options.devIdentity, roles: ['dev'] }] },
      devToken: token,
    };
  }
  return {
    auth: loadAuthConfig(options.tokensFile !== undefined ? { file: options.tokensFile } : {}),
    devToken: undefined,
  };
}

/** Directories that may hold the inbox page, relative to this file (dist/src/cli). */
const PACKAGED_INBOX_DIRS = ['../inbox', '../../inbox', '../../../inbox'];

/** The inbox directory: `explicit` (which must hold index.html), else the package's, if any. */
async function findInbox(explicit: string | undefined): Promise<string | undefined> {
  if (explicit !== undefined) {
    const root = resolve(explicit);
    if (!(await exists(join(root, 'index.html')))) {
      throw new UsageError(`--inbox ${explicit}: no index.html in ${root}.`);
    }
    return root;
  }
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const dir of PACKAGED_INBOX_DIRS) {
    const root = resolve(here, dir);
    if (await exists(join(root, 'index.html'))) return root;
  }
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
