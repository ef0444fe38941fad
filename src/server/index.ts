/** The HTTP API of Tollgate (`common/http-api.ts`): Hono app, bearer auth, SSE streams. */
export {
  createTollgateServer,
  type TollgateServer,
  type TollgateServerOptions,
  type ListenOptions,
  type ListeningServer,
} from './create-server.js';
export {
  loadAuthConfig,
  checkAuthConfig,
  type AuthConfig,
  type TokenConfig,
  type ServerEnv,
} from './auth.js';
export type { ErrorLogger } from './errors.js';
