/** The Slack options of the worker and of the server, checked when they are built: no server. */
import { describe, expect, it } from '@jest/globals';
import { channelManifest, checkChannels } from '../../src/channels/channel-options.js';
import { Tollgate } from '../../src/index.js';
import { createTollgateServer, type SlackActionsOptions } from '../../src/server/index.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const slack = [{ name: 'approvals', channel: 'C0123', botToken: 'xoxb-1' }];

function codeOf(build: () => unknown): string | undefined {
  try {
    build();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('channels.slack', () => {
  it('needs no webhook and no links secret, and targets the agents it names', () => {
    const checked = checkChannels({ publicUrl: 'https://t.example', slack });
    expect(checked.slack).toEqual([
      { name: 'approvals', channel: 'C0123', botToken: 'xoxb-1', apiUrl: 'https://slack.com/api' },
    ]);
    expect(checked.signingSecret).toBe('');
    const onlyOps = checkChannels({
      publicUrl: 'https://t.example',
      slack: [{ ...slack[0]!, agents: ['ops'] }],
    });
    expect(channelManifest(onlyOps, 'ops')).toEqual({
      channels: { targets: ['approvals'], slack: ['approvals'] },
    });
    expect(channelManifest(onlyOps, 'billing')).toEqual({});
  });

  it('refuses a name a webhook has, a missing bot token and a bad API URL', () => {
    const webhooks = [{ name: 'approvals', url: 'https://hooks.example/x', links: false }];
    expect(codeOf(() => checkChannels({ publicUrl: 'https://t.example', webhooks, slack }))).toBe(
      'INVALID_OPTIONS',
    );
    const noToken = [{ name: 'a', channel: 'C0123' }];
    expect(codeOf(() => checkChannels({ publicUrl: 'https://t.example', slack: noToken }))).toBe(
      'INVALID_OPTIONS',
    );
    const badUrl = [{ ...slack[0]!, apiUrl: 'ftp://slack' }];
    expect(codeOf(() => checkChannels({ publicUrl: 'https://t.example', slack: badUrl }))).toBe(
      'INVALID_OPTIONS',
    );
  });
});

describe("the server's slack option", () => {
  const tollgate = new Tollgate({});
  const server = (options: Partial<SlackActionsOptions>) => () =>
    createTollgateServer({
      tollgate,
      auth: { tokens: [{ token: 'unit-token-0123456789abcdef', id: 'admin' }] },
      slack: { users: {}, signingSecret: SECRET, botToken: 'xoxb-1', ...options },
    });

  it('serves the route with a secret, a token and users', () => {
    expect(codeOf(server({ users: { U0A: { id: 'alice', roles: ['ops'] } } }))).toBeUndefined();
    expect(codeOf(server({ users: () => undefined }))).toBeUndefined();
  });

  it('refuses a short secret, a user entry without an id and roles that are not strings', () => {
    expect(server({ signingSecret: 'short' })).toThrow(
      /set slack\.signingSecret or TOLLGATE_SLACK/,
    );
    const noId = { U0A: { roles: ['ops'] } } as unknown as SlackActionsOptions['users'];
    expect(server({ users: noId })).toThrow(/slack\.users\["U0A"\] must be \{ id/);
    const badRoles = { U0A: { id: 'a', roles: 'ops' } } as unknown as SlackActionsOptions['users'];
    expect(server({ users: badRoles })).toThrow(/slack\.users\["U0A"\]\.roles/);
  });
});
