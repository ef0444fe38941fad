import { describe, expect, it } from '@jest/globals';
import {
  parseSlackClick,
  slackSignature,
  SlackReplays,
  verifySlackRequest,
} from '../../src/server/slack-request.js';
import { buttonValue } from '../../src/channels/slack-buttons.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const NOW = 1_765_000_000_000;
const TS = String(NOW / 1000);

function signed(body: string, secret = SECRET, timestamp = TS) {
  return { body, timestamp, signature: slackSignature(secret, timestamp, body) };
}

describe("Slack's request signature", () => {
  it("matches the example of Slack's documentation", () => {
    // Slack's published example: this secret, timestamp and body sign to this value.
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(slackSignature('8f742231b10e8888abcd99yyyzzz85a5', '1531420618', body)).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });

  it('accepts a request signed now, with the current or an earlier secret', () => {
    expect(verifySlackRequest(signed('payload=x'), [SECRET], NOW)).toEqual({ ok: true });
    expect(verifySlackRequest(signed('payload=x'), ['new-secret', SECRET], NOW).ok).toBe(true);
  });

  it('refuses another secret, an altered body, a missing header and a malformed signature', () => {
    const code = (request: Parameters<typeof verifySlackRequest>[0]) => {
      const check = verifySlackRequest(request, [SECRET], NOW);
      return check.ok ? 'ok' : check.code;
    };
    expect(code(signed('payload=x', 'another-secret'))).toBe('SLACK_SIGNATURE_INVALID');
    expect(code({ ...signed('payload=x'), body: 'payload=y' })).toBe('SLACK_SIGNATURE_INVALID');
    expect(code({ ...signed('payload=x'), timestamp: undefined })).toBe('SLACK_SIGNATURE_INVALID');
    expect(code({ ...signed('payload=x'), signature: 'v1=abc' })).toBe('SLACK_SIGNATURE_INVALID');
    expect(code({ ...signed('payload=x'), signature: undefined })).toBe('SLACK_SIGNATURE_INVALID');
  });

  it('refuses a genuine request signed more than 5 minutes away from the clock, either way', () => {
    const at = (seconds: number) =>
      verifySlackRequest(signed('payload=x', SECRET, String(NOW / 1000 + seconds)), [SECRET], NOW);
    expect(at(-300).ok).toBe(true);
    expect(at(-301)).toMatchObject({ ok: false, code: 'SLACK_REQUEST_STALE' });
    expect(at(301)).toMatchObject({ ok: false, code: 'SLACK_REQUEST_STALE' });
  });
});

describe('SlackReplays', () => {
  it('takes a signed request once within its window, and forgets it after', () => {
    const replays = new SlackReplays();
    expect(replays.firstUse('v0=aa', TS, NOW)).toBe(true);
    expect(replays.firstUse('v0=aa', TS, NOW + 1000)).toBe(false);
    expect(replays.firstUse('v0=bb', TS, NOW + 1000)).toBe(true);
    // Past the window the timestamp check refuses it; the memory is freed.
    expect(replays.firstUse('v0=cc', String(NOW / 1000 + 400), NOW + 400_000)).toBe(true);
    expect(replays.firstUse('v0=aa', TS, NOW + 400_000)).toBe(true);
  });
});

describe('parseSlackClick', () => {
  const call = {
    agentId: 'ops',
    runId: 'run-1',
    toolCallId: 'call-1',
    fingerprint: 'f'.repeat(64),
  };
  const body = (payload: object) =>
    new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const click = {
    type: 'block_actions',
    user: { id: 'U0ALICE', team_id: 'T0' },
    container: { channel_id: 'C0', message_ts: '1.2' },
    message: { blocks: [{ type: 'header' }] },
    actions: [{ action_id: 'tollgate.decline', value: buttonValue(call) }],
  };

  it('reads the action, the call, the user and where the message is', () => {
    expect(parseSlackClick(body(click))).toEqual({
      action: 'decline',
      call,
      userId: 'U0ALICE',
      teamId: 'T0',
      channel: 'C0',
      messageTs: '1.2',
      blocks: [{ type: 'header' }],
    });
  });

  it('refuses what is not a click on a Tollgate button', () => {
    expect(parseSlackClick('payload=not-json')).toBeUndefined();
    expect(parseSlackClick(body({ ...click, type: 'view_submission' }))).toBeUndefined();
    expect(
      parseSlackClick(body({ ...click, actions: [{ action_id: 'other', value: '{}' }] })),
    ).toBeUndefined();
    expect(
      parseSlackClick(
        body({ ...click, actions: [{ action_id: 'tollgate.approve', value: '{"a":"x"}' }] }),
      ),
    ).toBeUndefined();
    expect(parseSlackClick(body({ ...click, user: { id: 'U0<!channel>' } }))).toBeUndefined();
  });
});
