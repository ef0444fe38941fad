/**
 * The approval inbox page in a real browser: Debian's chromium, driven by playwright-core,
 * against the real `inbox/` directory, a real server with a token and a real Temporal run.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { z } from 'zod';
import { Agent, createTool, type RunOptions, type Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import {
  eventually,
  hostAgents,
  recordingTool,
  uniqueId,
  lastToolOutputs,
  outputsText,
} from './support/harness.js';
import { launchChromium, REPO_ROOT } from './support/browser.js';

const TOKEN = 'inbox-alice-token-0123456789';
const SCREENSHOT = '/tmp/tollgate-inbox.png';
/** Visibility is eventually consistent and the page polls every 2 s: allow a generous wait. */
const UI_WAIT_MS = 30_000;

/** "delete <id>" calls the gated tool, "book" the suspending one; a tool result is reported. */
const byPrompt: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Result: ${outputsText(outputs)}` };
  const last = prompt.at(-1);
  const text = JSON.stringify(last?.content);
  const id = /delete ([\w-]+)/.exec(text)?.[1];
  if (id) return { text: 'Deleting.', toolCalls: [{ toolName: 'deleteRecord', args: { id } }] };
  if (text.includes('book')) {
    return { toolCalls: [{ toolName: 'book-trip', args: { traveller: 'Ada' } }] };
  }
  return { text: 'Hello there.' };
};

describe('the approval inbox in a browser', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const bookings: unknown[] = [];
  const bookTrip = createTool({
    id: 'book-trip',
    inputSchema: z.object({ traveller: z.string() }),
    resumeSchema: z.object({
      city: z.string().describe('Where to travel'),
      nights: z.number().int().min(1),
      class: z.enum(['economy', 'business']),
      refundable: z.boolean(),
      note: z.string().optional(),
      tags: z.array(z.string()).optional(),
    }),
    execute: async (input, context) => {
      const data = context.agent.resumeData;
      if (!data) return context.agent.suspend({ question: `Where should ${input.traveller} go?` });
      bookings.push(data);
      return { booked: data.city, nights: data.nights };
    },
  });
  // `deleteRecord` is keyed apart from its id (`delete-record`): cards show both.
  const agent = new Agent({
    id: 'inbox-browser-agent',
    model: scriptedModel(byPrompt),
    tools: { deleteRecord: deleteRecord.tool, 'book-trip': bookTrip },
  });
  // Each model step costs 10 tokens: at its limit of 10 the run asks for a budget approval.
  const budgetSteps: number[] = [];
  const budgeted = new Agent({
    id: 'inbox-budget-agent',
    model: scriptedModel((prompt) => {
      budgetSteps.push(prompt.length);
      const outputs = lastToolOutputs(prompt);
      if (outputs) return { text: `Result: ${outputsText(outputs)}` };
      return { toolCalls: [{ toolName: 'deleteRecord', args: { id: 'rec-budget' } }] };
    }),
    tools: { deleteRecord: recordingTool('delete-record', {}).tool },
    budget: { tokens: { limit: 10 } },
  });
  const pageErrors: string[] = [];
  let tollgate: Tollgate;
  let server: ListeningServer;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    tollgate = await hostAgents([agent, budgeted], 'inbox-browser');
    server = await createTollgateServer({
      tollgate,
      auth: { tokens: [{ token: TOKEN, id: 'alice', roles: ['ops'] }] },
      inbox: { root: join(REPO_ROOT, 'inbox') },
    }).listen({ port: 0 });
    // Playwright gives each launch a fresh, temporary user-data dir.
    browser = await launchChromium([
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ]);
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  }, 20 * 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await tollgate?.shutdown();
  });

  const ops = () => tollgate.getAgent('inbox-browser-agent');
  const executionsOf = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id);

  /** Parks a run in its own thread; the page is opened on that thread only. */
  async function park(prompt: string, thread: string, options: RunOptions = {}) {
    const first = await ops().generate(prompt, {
      memory: { thread, resource: 'inbox-user' },
      ...options,
    });
    expect(first.finishReason).toBe('suspended');
    return first.runId;
  }

  async function openInbox(thread: string, path = '/inbox'): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(`${server.url}${path}?threadId=${thread}&token=${TOKEN}`);
    return page;
  }

  async function rowOf(page: Page, runId: string): Promise<Locator> {
    const row = page.locator(`li.approval[data-run-id="${runId}"]`);
    await row.waitFor({ timeout: UI_WAIT_MS });
    return row;
  }

  async function outcomeOf(row: Locator, words: string): Promise<string> {
    await row.locator('.outcome', { hasText: words }).waitFor({ timeout: UI_WAIT_MS });
    return (await row.locator('.outcome').textContent()) ?? '';
  }

  it("serves the client SDK's browser-safe modules to the page, and no other file of the package", async () => {
    const get = (path: string) => fetch(server.url + path);
    for (const path of [
      '/inbox/lib/http-client/index.js',
      '/inbox/lib/common/http-api.js',
      '/inbox/lib/stream/agent-stream.js',
    ]) {
      const answer = await get(path);
      expect([path, answer.status, answer.headers.get('content-type')]).toEqual([
        path,
        200,
        expect.stringMatching(/^text\/javascript/),
      ]);
    }
    for (const path of [
      '/inbox/lib/temporal-client/agent-client.js',
      '/inbox/lib/server/create-server.js',
      '/inbox/lib/http-client/index.js.map',
      '/inbox/lib/http-client/%2e%2e/server/auth.js',
      '/inbox/lib/../../package.json',
    ]) {
      expect([path, (await get(path)).status]).toEqual([path, 404]);
    }
  });

  it('refuses to be framed by a page of another origin (clickjacking)', async () => {
    // The framing page: another port is another origin.
    const framer: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(`<!doctype html><iframe id="inbox" src="${server.url}/inbox"></iframe>`);
    });
    await new Promise<void>((done) => framer.listen(0, '127.0.0.1', done));
    const page = await context.newPage();
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('frame-ancestors')) refusals.push(message.text());
    });
    try {
      const { port } = framer.address() as AddressInfo;
      await page.goto(`http://127.0.0.1:${port}/`);
      const inbox = page.frames().find((frame) => frame !== page.mainFrame())!;
      await inbox.waitForLoadState();
      expect(inbox.url()).not.toContain('/inbox');
      expect(await inbox.locator('h1', { hasText: 'Tollgate approvals' }).count()).toBe(0);
      expect(refusals).toEqual([expect.stringContaining("frame-ancestors 'none'")]);
    } finally {
      await page.close();
      await new Promise((done) => framer.close(done));
    }
  });

  it('asks for a token, keeps it for the tab, and asks again when the server refuses it', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/inbox`);
    const tokenInput = page.getByLabel('API token');
    await tokenInput.fill('not-a-token');
    await page.getByRole('button', { name: 'Open the inbox' }).click();
    await page.getByText('The server refused this token.').waitFor({ timeout: UI_WAIT_MS });
    expect(await page.evaluate(() => sessionStorage.getItem('tollgate.token'))).toBeNull();

    await tokenInput.fill(TOKEN);
    await page.getByRole('button', { name: 'Open the inbox' }).click();
    await page.locator('#status', { hasText: /wait/ }).waitFor({ timeout: UI_WAIT_MS });
    await page.reload();
    await page.locator('#status', { hasText: /wait/ }).waitFor({ timeout: UI_WAIT_MS });
    expect(await tokenInput.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Forget token' }).click();
    expect(await tokenInput.isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('tollgate.token'))).toBeNull();
    await page.close();
  });

  it('lists a parked call and approves it: the run completes and the tool runs once', async () => {
    const thread = uniqueId('inbox-approve');
    const runId = await park('delete rec-approve', thread);
    const page = await openInbox(thread);
    expect(page.url()).not.toContain('token=');
    expect(await page.evaluate(() => sessionStorage.getItem('tollgate.token'))).toBe(TOKEN);

    const row = await rowOf(page, runId);
    const listed = (await row.textContent()) ?? '';
    expect(await row.locator('code.tool').textContent()).toBe('deleteRecord');
    expect(await row.locator('code.tool-id').textContent()).toBe('id delete-record');
    expect(listed).toContain('needs approval');
    expect(listed).toContain('"id": "rec-approve"');
    expect(listed).toMatch(/waiting \d+ s/);
    expect(executionsOf('rec-approve')).toHaveLength(0);

    await row.getByRole('button', { name: 'Approve' }).click();
    const outcome = await outcomeOf(row, 'The run completed');
    expect(outcome).toContain('Approved. The run completed (stop).');
    expect(outcome).toContain('Result: {"done":"delete-record","id":"rec-approve"}');
    expect(executionsOf('rec-approve')).toHaveLength(1);
    const audit = await ops().getAuditTrail(runId);
    expect(audit).toContainEqual(
      expect.objectContaining({
        type: 'decision',
        decision: 'approved',
        decidedBy: { id: 'alice', roles: ['ops'] },
      }),
    );
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('declines with a reason typed inline: the run completes and the tool never runs', async () => {
    const thread = uniqueId('inbox-decline');
    const runId = await park('delete rec-decline', thread);
    const page = await openInbox(thread, '/');
    const row = await rowOf(page, runId);

    const reason = row.getByLabel('Reason (optional)');
    expect(await reason.isVisible()).toBe(false);
    await row.getByRole('button', { name: 'Decline', exact: true }).click();
    expect(await reason.evaluate((input) => input === document.activeElement)).toBe(true);
    await reason.fill('Not on a Friday');
    await row.getByRole('button', { name: 'Confirm decline' }).click();
    const outcome = await outcomeOf(row, 'The run completed');
    expect(outcome).toContain('Declined (reason: Not on a Friday). The run completed (stop).');
    expect(executionsOf('rec-decline')).toHaveLength(0);
    const audit = await ops().getAuditTrail(runId);
    expect(audit).toContainEqual(
      expect.objectContaining({
        type: 'decision',
        decision: 'declined',
        reason: 'Not on a Friday',
        decidedBy: { id: 'alice', roles: ['ops'] },
      }),
    );
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('resumes a suspended call through the form generated from its resumeSchema', async () => {
    const thread = uniqueId('inbox-resume');
    const runId = await park('book a trip', thread);
    const page = await openInbox(thread);
    const row = await rowOf(page, runId);
    expect(await row.textContent()).toContain('Where should Ada go?');
    expect(await row.getByLabel('city').getAttribute('aria-describedby')).toBeTruthy();
    expect(await row.getByText('Where to travel').count()).toBe(1);

    // The browser refuses the form while a required field is empty: nothing is sent.
    await row.getByRole('button', { name: 'Resume' }).click();
    expect(bookings).toHaveLength(0);

    await row.getByLabel('city').fill('Paris');
    await row.getByLabel('nights').fill('3');
    await row.getByLabel('class').selectOption({ label: 'business' });
    await row.getByLabel('refundable').check();
    // A property the form has no input for (an array) is typed as JSON, and checked before sending.
    await row.getByLabel('tags (JSON)').fill('[window');
    await row.getByRole('button', { name: 'Resume' }).click();
    await row.locator('.error', { hasText: 'tags: not valid JSON' }).waitFor();
    expect(bookings).toHaveLength(0);
    await row.getByLabel('tags (JSON)').fill('["window"]');
    await row.getByRole('button', { name: 'Resume' }).click();
    const outcome = await outcomeOf(row, 'The run completed');
    expect(outcome).toContain('Resumed. The run completed (stop).');
    expect(outcome).toContain('Result: {"booked":"Paris","nights":3}');
    expect(bookings).toEqual([
      { city: 'Paris', nights: 3, class: 'business', refundable: true, tags: ['window'] },
    ]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('shows an approval and a suspension side by side (screenshot), and API errors inline', async () => {
    const thread = uniqueId('inbox-both');
    const gated = await park('delete rec-42', thread, {
      approval: { timeout: '1 hour', quorum: 2 },
    });
    const suspended = await park('book a trip', thread);
    const page = await openInbox(thread);
    await rowOf(page, gated);
    await rowOf(page, suspended);
    const approvalRow = page.locator(`li.approval[data-run-id="${gated}"]`);
    expect(await approvalRow.textContent()).toMatch(/Expires\s*in 5\d min/);
    expect(await approvalRow.textContent()).toContain('0 of 2');
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // One approval of a quorum of two: the call waits again, now with alice's approval listed;
    // alice approving twice is refused, and the refusal shows in the row.
    await approvalRow.getByRole('button', { name: 'Approve' }).click();
    await approvalRow
      .locator('.facts', { hasText: '1 of 2: alice' })
      .waitFor({ timeout: UI_WAIT_MS });
    // The outcome follows once the stream has ended and the next waiting call has been read.
    await approvalRow
      .locator('.outcome', { hasText: 'Approval recorded: the call waits for more approvals.' })
      .waitFor({ timeout: UI_WAIT_MS });
    await approvalRow.getByRole('button', { name: 'Approve' }).click();
    await approvalRow
      .locator('.error', { hasText: 'DUPLICATE_APPROVER' })
      .waitFor({ timeout: UI_WAIT_MS });
    expect(executionsOf('rec-42')).toHaveLength(0);

    // Resume data the schema refuses comes back as the server's error, shown in the row.
    const resumeRow = page.locator(`li.approval[data-run-id="${suspended}"]`);
    await resumeRow.evaluate((row) => {
      const nights = row.querySelector<HTMLInputElement>('input[name="nights"]')!;
      nights.removeAttribute('min');
    });
    await resumeRow.getByLabel('city').fill('Oslo');
    await resumeRow.getByLabel('nights').fill('0');
    await resumeRow.getByLabel('class').selectOption({ label: 'economy' });
    await resumeRow.getByRole('button', { name: 'Resume' }).click();
    await resumeRow
      .locator('.error', { hasText: 'INVALID_RESUME_DATA' })
      .waitFor({ timeout: UI_WAIT_MS });
    expect(bookings).toHaveLength(1);
    expect(await resumeRow.getByRole('button', { name: 'Resume' }).isEnabled()).toBe(true);

    // Decided elsewhere (here: in-process), the rows leave the page.
    const decidedBy = { id: 'cleanup' };
    await ops().declineToolCallGenerate({ runId: gated, decidedBy });
    await ops().resumeGenerate(
      { city: 'Rome', nights: 1, class: 'economy', refundable: false },
      { runId: suspended },
    );
    await approvalRow.waitFor({ state: 'detached', timeout: UI_WAIT_MS });
    expect(executionsOf('rec-42')).toHaveLength(0);
    // The browser logs the refused requests (409, 422) itself; nothing else may fail.
    expect(pageErrors.filter((error) => !/status of 4(09|22)/.test(error))).toEqual([]);
    await page.close();
  });

  it('approves the selected calls in one request: each judged on its own, the refused one keeps its row with the reason', async () => {
    const resource = uniqueId('inbox-batch');
    const parkIn = (prompt: string, options: RunOptions = {}) => {
      const thread = uniqueId('inbox-batch-thread');
      return park(prompt, thread, { memory: { thread, resource }, ...options });
    };
    const allowed = await parkIn('delete rec-batch-1');
    const guarded = await parkIn('delete rec-batch-2', { approval: { approvers: ['bob'] } });
    const unpicked = await parkIn('delete rec-batch-3');
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${server.url}/inbox?resourceId=${resource}&token=${TOKEN}`);
    const rows = await Promise.all([allowed, guarded, unpicked].map((runId) => rowOf(page, runId)));
    const batch = page.locator('#approve-selected');
    expect(await batch.isDisabled()).toBe(true);

    await rows[0]!.getByLabel('Select').check();
    await rows[1]!.getByLabel('Select').check();
    expect(await batch.textContent()).toBe('Approve selected (2)');
    await batch.click();

    await outcomeOf(rows[0]!, 'Approved (with the selection)');
    await rows[1]!
      .locator('.error', { hasText: 'NOT_AN_APPROVER' })
      .waitFor({ timeout: UI_WAIT_MS });
    await page
      .locator('#batch-status', { hasText: '1 of 2 approved.' })
      .waitFor({ timeout: UI_WAIT_MS });
    expect(await rows[1]!.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
    expect(await rows[1]!.getByLabel('Select').isChecked()).toBe(false);
    await eventually(async () => expect(executionsOf('rec-batch-1')).toHaveLength(1));
    expect(executionsOf('rec-batch-2')).toHaveLength(0);
    expect(executionsOf('rec-batch-3')).toHaveLength(0);
    expect(await ops().pendingToolCalls(guarded)).toHaveLength(1);
    expect(await ops().pendingToolCalls(unpicked)).toHaveLength(1);
    const audit = await ops().getAuditTrail(allowed);
    expect(audit).toContainEqual(
      expect.objectContaining({
        type: 'decision',
        decision: 'approved',
        decidedBy: { id: 'alice', roles: ['ops'] },
      }),
    );
    await page.screenshot({ path: '/tmp/tollgate-inbox-batch.png', fullPage: true });
    // Cleared for the other tests, which share the agent.
    await ops().declineToolCallGenerate({ runId: guarded, decidedBy: { id: 'bob' } });
    await ops().declineToolCallGenerate({ runId: unpicked });
    await page.close();
  });
  it('approves a budget approval with the amount typed inline; a bad amount is refused on the page', async () => {
    const thread = uniqueId('inbox-budget');
    const first = await tollgate
      .getAgent('inbox-budget-agent')
      .generate('work', { memory: { thread, resource: 'inbox-user' } });
    expect(first.finishReason).toBe('suspended');
    expect(budgetSteps).toHaveLength(1);
    const page = await openInbox(thread);
    const row = await rowOf(page, first.runId);
    await row.locator('dd', { hasText: 'tokens: 10 used of 10' }).waitFor({ timeout: UI_WAIT_MS });
    // No batch selection for a budget approval: "Approve selected" sends no amount.
    expect(await row.getByLabel('Select').count()).toBe(0);
    await row.getByRole('button', { name: 'Approve…' }).click();
    await row.getByLabel('Raise the tokens limit by').fill('-5');
    await row.getByRole('button', { name: 'Approve and raise' }).click();
    await row.locator('.error', { hasText: 'a number above 0' }).waitFor({ timeout: UI_WAIT_MS });
    expect(budgetSteps).toHaveLength(1);
    await row.getByLabel('Raise the tokens limit by').fill('100');
    await row.getByRole('button', { name: 'Approve and raise' }).click();
    await outcomeOf(row, 'The run completed');
    expect(budgetSteps).toHaveLength(2);
    const audit = await tollgate.getAgent('inbox-budget-agent').getAuditTrail(first.runId);
    expect(audit).toContainEqual(
      expect.objectContaining({ type: 'decision', decidedBy: { id: 'alice', roles: ['ops'] } }),
    );
    expect(JSON.stringify(audit)).toContain('"amount":100');
    await page.close();
  });

  it('hands a call off with a note: the new approver decides it, the one who handed it off no longer may', async () => {
    const thread = uniqueId('inbox-hand-off');
    const runId = await park('delete rec-hand-off', thread);
    // Earlier tests leave the refusals they expect in pageErrors: only this page's count here.
    const errorsBefore = pageErrors.length;
    const page = await openInbox(thread);
    const row = await rowOf(page, runId);
    await row.getByRole('button', { name: 'Hand off', exact: true }).click();
    // Nothing typed: refused on the page, nothing sent.
    await row.getByRole('button', { name: 'Confirm hand-off' }).click();
    await row
      .locator('.error', { hasText: 'Say who to hand the call off to.' })
      .waitFor({ timeout: UI_WAIT_MS });
    expect((await ops().pendingToolCalls(runId))[0]?.reassigned).toBeUndefined();

    await row
      .getByLabel('Hand off to (ids or role:name, comma-separated)')
      .fill('bob, role:finance');
    await row.getByLabel('Note (optional)').fill('Finance owns this record');
    await row.getByRole('button', { name: 'Confirm hand-off' }).click();
    const outcome = await outcomeOf(row, 'Handed off to');
    expect(outcome).toContain('Handed off to bob, role:finance; the call waits for them.');
    const [waiting] = await ops().pendingToolCalls(runId);
    expect(waiting?.approvers).toEqual(['bob', 'role:finance']);
    expect(waiting?.reassigned?.at(-1)).toMatchObject({
      by: { id: 'alice', roles: ['ops'] },
      to: ['bob', 'role:finance'],
      note: 'Finance owns this record',
    });
    // Alice handed it off: she is no approver of it now.
    await expect(
      ops().approveToolCall({ runId, decidedBy: { id: 'alice', roles: ['ops'] } }),
    ).rejects.toMatchObject({ code: 'NOT_AN_APPROVER' });
    expect(executionsOf('rec-hand-off')).toHaveLength(0);
    const approved = await ops().approveToolCallGenerate({ runId, decidedBy: { id: 'bob' } });
    expect(approved.finishReason).toBe('stop');
    expect(executionsOf('rec-hand-off')).toHaveLength(1);
    expect(pageErrors.slice(errorsBefore)).toEqual([]);
    await page.close();
  });
});
