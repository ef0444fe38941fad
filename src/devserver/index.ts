/** Local Temporal dev server bootstrap: used by the demo, the tests and the CLI. */
export {
  findTemporalCli,
  TEMPORAL_CLI_PACKAGE,
  type FindTemporalCliOptions,
} from './temporal-cli.js';
export {
  startDevServer,
  TUNED_DYNAMIC_CONFIG,
  type DevServer,
  type DevServerOptions,
} from './dev-server.js';
export { freePorts } from './free-ports.js';
