/**
 * A fake of Slack for tests: its Web API (`chat.postMessage`, `chat.update`,
 * `chat.postEphemeral`) records every call and answers as Slack does, and `click()` sends a
 * button's `block_actions` payload to a Tollgate server signed as Slack signs it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { slackSignature } from '../../src/server/slack-request.js';

export interface SlackApiCall {
  method: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

export interface FakeSlackBlock {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: Array<{ action_id?: string; value?: string }>;
}

export interface FakeSlack {
  /** Base URL of the Web API: the `apiUrl` option. */
  apiUrl: string;
  calls: SlackApiCall[];
  /** The messages as Slack shows them now, by timestamp. */
  messages: Map<
    string,
    { channel: string; text: string; blocks: FakeSlackBlock[]; thread_ts?: string }
  >;
  close(): Promise<void>;
}

export async function startFakeSlack(token: string): Promise<FakeSlack> {
  const calls: SlackApiCall[] = [];
  const messages: FakeSlack['messages'] = new Map();
  let next = 1;
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (data: Buffer) => (text += data.toString()));
    request.on('end', () => {
      const method = (request.url ?? '').replace(/^\/api\//, '');
      const body = JSON.parse(text || '{}') as Record<string, unknown>;
      calls.push({ method, authorization: request.headers.authorization, body });
      const answer = (value: object) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (request.headers.authorization !== `Bearer ${token}`)
        return answer({ ok: false, error: 'invalid_auth' });
      const channel = String(body.channel);
      if (method === 'chat.postMessage') {
        const ts = `1700000000.${String(next++).padStart(6, '0')}`;
        messages.set(ts, {
          channel,
          text: String(body.text),
          blocks: (body.blocks as FakeSlackBlock[]) ?? [],
          ...(body.thread_ts ? { thread_ts: String(body.thread_ts) } : {}),
        });
        return answer({ ok: true, channel, ts });
      }
      if (method === 'chat.update') {
        const ts = String(body.ts);
        const message = messages.get(ts);
        if (!message || message.channel !== channel)
          return answer({ ok: false, error: 'message_not_found' });
        messages.set(ts, {
          ...message,
          text: String(body.text),
          blocks: (body.blocks as FakeSlackBlock[]) ?? [],
        });
        return answer({ ok: true, channel, ts });
      }
      if (method === 'chat.postEphemeral')
        return answer({ ok: true, message_ts: '1700000000.999999' });
      return answer({ ok: false, error: 'unknown_method' });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api`,
    calls,
    messages,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** What a click sends, before signing. */
export interface ClickOptions {
  /** The clicked message's timestamp (its key in `messages`). */
  ts: string;
  button: 'approve' | 'decline';
  userId: string;
  /** The message's blocks when clicked. Default: as the fake Slack shows it now. */
  blocks?: FakeSlackBlock[];
}

/** The form body Slack posts for a click on one of the message's buttons. */
export function clickBody(slack: FakeSlack, options: ClickOptions): string {
  const message = slack.messages.get(options.ts);
  if (!message) throw new Error(`No message ${options.ts} in the fake Slack`);
  const blocks = options.blocks ?? message.blocks;
  const actions = blocks.find((block) => block.type === 'actions');
  const element = actions?.elements?.find((e) => e.action_id === `tollgate.${options.button}`);
  if (!element) throw new Error(`Message ${options.ts} has no ${options.button} button`);
  const payload = {
    type: 'block_actions',
    user: { id: options.userId, username: options.userId.toLowerCase(), team_id: 'T0TEST' },
    team: { id: 'T0TEST', domain: 'test' },
    api_app_id: 'A0TEST',
    container: {
      type: 'message',
      message_ts: options.ts,
      channel_id: message.channel,
      is_ephemeral: false,
    },
    trigger_id: '1.2.3',
    channel: { id: message.channel, name: 'approvals' },
    message: { type: 'message', ts: options.ts, text: message.text, blocks },
    response_url: 'https://hooks.slack.invalid/actions/T0TEST/1/x',
    actions: [
      {
        type: 'button',
        block_id: actions!.block_id,
        action_id: element.action_id,
        value: element.value,
        action_ts: String(Date.now() / 1000),
      },
    ],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** Sends `body` to the server's `/slack/actions`, signed with `secret` at `timestamp` (s). */
export function sendSigned(
  serverUrl: string,
  body: string,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
  signature = slackSignature(secret, String(timestamp), body),
): Promise<Response> {
  return fetch(`${serverUrl}/slack/actions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': signature,
    },
    body,
  });
}
