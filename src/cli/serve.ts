/**
 * `tollgate serve`: the HTTP API and the approval inbox, steering runs of any agent through
 * Temporal; no agent code runs here.
 */
import { integerOption, stringOption, type CommandHandler } from './command-input.js';
import { openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';
import { startHttpHost } from './http-host.js';
import { untilStopped } from './until-stopped.js';

export const DEFAULT_HTTP_PORT = 8787;

export const serve: CommandHandler = async (input) => {
  const { output } = input;
  const port = integerOption(input, 'port', DEFAULT_HTTP_PORT, { min: 0, max: 65535 });
  const hostname = stringOption(input, 'host');
  const tokensFile = stringOption(input, 'tokens-file');
  const inboxDir = stringOption(input, 'inbox');
  const slackUsersFile = stringOption(input, 'slack-users');
  const tollgate = openTollgate(input.global);
  try {
    const http = await startHttpHost(tollgate, {
      port,
      ...(hostname !== undefined ? { hostname } : {}),
      ...(tokensFile !== undefined ? { tokensFile } : {}),
      ...(inboxDir !== undefined ? { inboxDir } : {}),
      ...(slackUsersFile !== undefined ? { slackUsersFile } : {}),
    });
    try {
      output.document({
        type: 'ready',
        api: http.apiUrl,
        inbox: http.inboxUrl ?? null,
        temporal: { address: tollgate.address, namespace: tollgate.namespace },
      });
      output.line(`API    ${http.apiUrl}`);
      output.line(`Inbox  ${http.inboxUrl ?? '(none: pass --inbox <dir>)'}`);
      if (http.slackActionsUrl)
        output.line(`Slack  ${http.slackActionsUrl} (the app's Request URL)`);
      output.line(`Runs on Temporal ${tollgate.address} (namespace ${tollgate.namespace}).`);
      output.line('Ctrl-C stops the server; runs go on.');
      const signal = await untilStopped();
      output.line(`${signal}: stopping the server…`);
    } finally {
      await http.close();
    }
  } finally {
    await tollgate.shutdown();
  }
  return EXIT.ok;
};
