/**
 * The inbox's grants panel in a real browser (chromium via playwright-core), against the real
 * `inbox/` directory, a real server with a scoped token and real Temporal runs.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { launchChromium, REPO_ROOT } from './support/browser.js';
import {
  deleteByPrompt,
  eventually,
  hostAgents,
  recordingTool,
  testAgent,
  uniqueId,
} from './support/harness.js';

const TOKEN = 'grants-inbox-token-0123456789';
const UI_WAIT_MS = 30_000;
const AGENT = 'grants-inbox-agent';

describe('the inbox grants panel in a browser', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const { agent } = testAgent(AGENT, [deleteRecord.tool], deleteByPrompt);
  const pageErrors: string[] = [];
  let tollgate: Tollgate;
  let server: ListeningServer;
  let browser: Browser;

  beforeAll(async () => {
    tollgate = await hostAgents([agent], 'grants-inbox');
    server = await createTollgateServer({
      tollgate,
      auth: { tokens: [{ token: TOKEN, id: 'dana', scopes: { resources: ['dana-tenant'] } }] },
      inbox: { root: join(REPO_ROOT, 'inbox') },
    }).listen({ port: 0 });
    browser = await launchChromium();
  }, 20 * 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await tollgate?.shutdown();
  });

  async function openInbox(): Promise<Page> {
    const page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${server.url}/inbox?token=${TOKEN}`);
    return page;
  }

  it("lists the token's grants only, and revokes one with its button: calls wait again", async () => {
    const thread = uniqueId('thread');
    const memory = { resource: 'dana-tenant', thread };
    const grant = (resourceId: string) =>
      tollgate.grants.create(
        { agentId: AGENT, toolName: 'delete-record', resourceId, threadId: thread, for: '1h' },
        { identity: { id: 'erin' } },
      );
    const own = await grant('dana-tenant');
    const theirs = await grant('other-tenant');
    expect((await tollgate.getAgent(AGENT).generate('delete b1', { memory })).finishReason).toBe(
      'stop',
    );

    const page = await openInbox();
    const item = page.locator(`li.grant[data-grant-id="${own.grantId}"]`);
    await item.waitFor({ timeout: UI_WAIT_MS });
    expect(await item.textContent()).toContain('Given by erin');
    expect(await page.locator(`li.grant[data-grant-id="${theirs.grantId}"]`).count()).toBe(0);

    await item.getByRole('button', { name: 'Revoke' }).click();
    await item.waitFor({ state: 'detached', timeout: UI_WAIT_MS });
    const left = (await tollgate.grants.list()).map((g) => g.grantId);
    expect(left).not.toContain(own.grantId);
    expect(left).toContain(theirs.grantId);
    expect((await tollgate.getAgent(AGENT).generate('delete b2', { memory })).finishReason).toBe(
      'suspended',
    );
    await page.locator('#grants-empty').waitFor({ state: 'visible', timeout: UI_WAIT_MS });

    // A grant given elsewhere shows up within a poll.
    const later = await grant('dana-tenant');
    await page
      .locator(`li.grant[data-grant-id="${later.grantId}"]`)
      .waitFor({ timeout: UI_WAIT_MS });
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('releases the calls a grant covers with its button, and says how many ran', async () => {
    const thread = uniqueId('thread');
    const memory = { resource: 'dana-tenant', thread };
    const agentClient = tollgate.getAgent(AGENT);
    const parked = [
      await agentClient.generate('delete r1', { memory }),
      await agentClient.generate('delete r2', { memory }),
    ];
    expect(parked.map((o) => o.finishReason)).toEqual(['suspended', 'suspended']);
    await eventually(async () => {
      const { runs } = await agentClient.listSuspendedRuns({ threadId: thread });
      expect(runs).toHaveLength(2);
    }, 20_000);
    const given = await tollgate.grants.create(
      {
        agentId: AGENT,
        toolName: 'delete-record',
        resourceId: 'dana-tenant',
        threadId: thread,
        for: '1h',
      },
      { identity: { id: 'erin' } },
    );
    const page = await openInbox();
    const item = page.locator(`li.grant[data-grant-id="${given.grantId}"]`);
    await item.waitFor({ timeout: UI_WAIT_MS });
    await item.getByRole('button', { name: 'Release waiting calls' }).click();
    await item.getByText('Released 2 waiting call(s).').waitFor({ timeout: UI_WAIT_MS });
    const ran = (id: string) =>
      deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id).length;
    await eventually(async () => expect([ran('r1'), ran('r2')]).toEqual([1, 1]), 20_000);
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
