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
export type { A2AServerOptions } from './a2a/a2a-routes.js';
export type { LinkRefusalOptions, LinkRefusalReport, RecentLinkRefusal } from './link-refusals.js';
export {
  chatHandler,
  registerChatRoutes,
  CHAT_ROUTE,
  type ChatHandlerOptions,
  type ChatMessagesResponse,
} from './chat/chat-handler.js';
export type { ChatCaller } from './chat/chat-caller.js';
export { SUSPEND_DATA_PART, type SuspendPartData } from './chat/ui-chunks.js';
export {
  agUiHandler,
  registerAgUiRoutes,
  AG_UI_ROUTE,
  type AgUiHandlerOptions,
} from './ag-ui/ag-ui-handler.js';
export type { AgUiState } from './ag-ui/ag-ui-session.js';
export {
  APPROVAL_REASON,
  SUSPENSION_REASON,
  APPROVAL_RESPONSE_SCHEMA,
  type InterruptDetails,
} from './ag-ui/interrupts.js';
export {
  SLACK_ACTIONS_ROUTE,
  SLACK_SIGNING_SECRET_ENV,
  type SlackActionsOptions,
  type SlackUserMap,
} from './slack-actions.js';
