/**
 * The test MCP server's URL-mode elicitations (MCP 2025-11), see `mcp-test-server.ts`:
 * `connect_account` refuses the call with `UrlElicitationRequiredError` until
 * `<stateDir>/authorized` exists (what the server's OAuth callback would leave); `pay` asks for
 * the checkout page during the call, then reports whether `<stateDir>/paid` exists;
 * `subscribe` refuses the call until `<stateDir>/subscribed` exists, and its own checkout
 * callback handler, once `<stateDir>/checkout-complete` appears (the page was paid), leaves that
 * flag and POSTs the `_meta["tollgate/callbackUrl"]` of the refused request.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import type { CallLine } from './mcp-test-server.js';

export const SIGN_IN_MESSAGE = 'Sign in to Example so the account can be connected.';
export const PAY_MESSAGE = 'Pay 12 EUR on the checkout page.';
export const SUBSCRIBE_MESSAGE = 'Pay for the subscription on the checkout page.';

type Record = (line: Omit<CallLine, 'pid'>) => void;

export function urlElicitations(server: McpServer, stateDir: string, record: Record): void {
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  server.registerTool(
    'connect_account',
    { description: 'Connects the account', inputSchema: {}, annotations: { readOnlyHint: true } },
    async () => {
      record({ tool: 'connect_account', event: 'started' });
      if (!existsSync(join(stateDir, 'authorized'))) {
        throw new UrlElicitationRequiredError([
          {
            mode: 'url',
            message: SIGN_IN_MESSAGE,
            url: `https://auth.example/authorize?state=${randomUUID()}`,
            elicitationId: randomUUID(),
          },
        ]);
      }
      record({ tool: 'connect_account', event: 'done' });
      return text('connected as alice');
    },
  );
  server.registerTool(
    'pay',
    { description: 'Takes a payment', inputSchema: {}, annotations: { readOnlyHint: true } },
    async (_args, extra) => {
      record({ tool: 'pay', event: 'started' });
      const answer = await server.server.elicitInput({
        mode: 'url',
        message: PAY_MESSAGE,
        url: `https://pay.example/checkout/${randomUUID()}`,
        elicitationId: randomUUID(),
      });
      if (extra.signal.aborted) return text('parked');
      record({
        tool: 'pay',
        event: answer.action === 'accept' ? 'elicited' : 'refused',
        answer: answer.action,
      });
      if (answer.action !== 'accept')
        return text(
          `payment ${answer.action === 'decline' ? 'declined' : 'cancelled'} by the user`,
        );
      return text(existsSync(join(stateDir, 'paid')) ? 'paid' : 'payment not completed');
    },
  );
  server.registerTool(
    'subscribe',
    { description: 'Starts a subscription', inputSchema: {}, annotations: { readOnlyHint: true } },
    async (_args, extra) => {
      const callbackUrl = extra._meta?.['tollgate/callbackUrl'];
      const given = typeof callbackUrl === 'string' ? { callbackUrl } : {};
      record({ tool: 'subscribe', event: 'started', ...given });
      if (existsSync(join(stateDir, 'subscribed'))) {
        record({ tool: 'subscribe', event: 'done' });
        return text('subscribed');
      }
      if (typeof callbackUrl === 'string') onCheckout(stateDir, callbackUrl, record);
      throw new UrlElicitationRequiredError([
        {
          mode: 'url',
          message: SUBSCRIBE_MESSAGE,
          url: `https://billing.example/checkout/${randomUUID()}`,
          elicitationId: randomUUID(),
        },
      ]);
    },
  );
}

/**
 * The server's checkout callback handler: when the page was paid, it stores the subscription,
 * then tells Tollgate at the call's callback URL, so the parked call goes on with no one in the loop.
 */
function onCheckout(stateDir: string, callbackUrl: string, record: Record): void {
  const watch = setInterval(() => {
    if (!existsSync(join(stateDir, 'checkout-complete'))) return;
    clearInterval(watch);
    writeFileSync(join(stateDir, 'subscribed'), '');
    void fetch(callbackUrl, { method: 'POST' }).then(
      async (response) => {
        const answer = { status: response.status, body: await response.json() };
        record({ tool: 'subscribe', event: 'callback', answer });
      },
      (error: unknown) =>
        record({ tool: 'subscribe', event: 'callback', answer: { error: String(error) } }),
    );
  }, 20);
}
