/**
 * The chat UI bridge end to end: a React page using @ai-sdk/react's useChat (bundled here with
 * esbuild) in Debian's chromium, against the Tollgate server's chat route, a real Temporal run.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { join } from 'node:path';
import { Agent, type Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { openRunOf } from '../src/server/chat/chat-runs.js';
import { scriptedModel, type TurnPicker } from '../src/testing/index.js';
import {
  eventually,
  hostAgents,
  lastToolOutputs,
  outputsText,
  recordingTool,
  uniqueId,
} from './support/harness.js';
import { launchChromium, REPO_ROOT } from './support/browser.js';

const TOKEN = 'chat-alice-token-0123456789';
const READER = 'chat-reader-token-0123456789';
const AGENT = 'chat-browser-agent';
const UI_WAIT_MS = 30_000;

/** "delete <id>" calls the gated tool; its result (or decline) is then reported as text. */
const byPrompt: TurnPicker = (prompt) => {
  const outputs = lastToolOutputs(prompt);
  if (outputs) return { text: `Result: ${outputsText(outputs)}` };
  const id = /delete ([\w-]+)/.exec(JSON.stringify(prompt.at(-1)?.content))?.[1];
  if (id) return { text: 'Deleting.', toolCalls: [{ toolName: 'deleteRecord', args: { id } }] };
  const job = /slow ([\w-]+)/.exec(JSON.stringify(prompt.at(-1)?.content))?.[1];
  if (job) return { text: 'Working.', toolCalls: [{ toolName: 'slowJob', args: { id: job } }] };
  return { text: 'Hello there.' };
};

describe('a useChat page on a Tollgate agent, in a browser', () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  // An ungated tool that works until the test lets it finish.
  let finishJob = () => {};
  const jobDone = () => new Promise<void>((done) => (finishJob = done));
  let jobGate = jobDone();
  const slowJob = recordingTool('slow-job', {
    result: (input) => jobGate.then(() => ({ finished: input.id })),
  });
  const agent = new Agent({
    id: AGENT,
    model: scriptedModel(byPrompt),
    tools: { deleteRecord: deleteRecord.tool, slowJob: slowJob.tool },
  });
  const pageErrors: string[] = [];
  let tollgate: Tollgate;
  let server: ListeningServer;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [join(REPO_ROOT, 'test/chat-page/app.jsx')],
      bundle: true,
      format: 'esm',
      jsx: 'automatic',
      write: false,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    const script = bundle.outputFiles[0]!.text;
    tollgate = await hostAgents([agent], 'chat-browser');
    const { app, listen } = createTollgateServer({
      tollgate,
      auth: {
        tokens: [
          { token: TOKEN, id: 'alice' },
          { token: READER, id: 'rita', scopes: { actions: ['read'] } },
        ],
      },
    });
    app.get('/chat', (c) =>
      c.html(
        '<!doctype html><div id="root"></div><script type="module" src="/chat/app.js"></script>',
      ),
    );
    app.get('/chat/app.js', (c) => c.body(script, 200, { 'content-type': 'text/javascript' }));
    server = await listen({ port: 0 });
    browser = await launchChromium();
    context = await browser.newContext();
  }, 20 * 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await tollgate?.shutdown();
  });

  const executionsOf = (id: string) =>
    deleteRecord.executions.filter((e) => (e.input as { id: string }).id === id);

  async function openChat(chat: string): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${server.url}/chat?agent=${AGENT}&chat=${chat}&token=${TOKEN}`);
    await page.locator('#status').waitFor({ timeout: UI_WAIT_MS });
    return page;
  }

  async function say(page: Page, text: string): Promise<void> {
    await page.fill('#prompt', text);
    await page.click('button[type=submit]');
  }

  const tool = (page: Page, state: string) => page.locator(`.tool[data-state="${state}"]`).first();

  it('shows the approval request; Approve runs the tool once and shows the final text', async () => {
    const chat = uniqueId('chat');
    const page = await openChat(chat);
    await say(page, 'please delete rec-a');
    await tool(page, 'approval-requested').waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('.message.assistant .text').first().textContent()).toBe('Deleting.');
    expect(executionsOf('rec-a')).toHaveLength(0);

    await page.click('text=Approve');
    await tool(page, 'output-available').waitFor({ timeout: UI_WAIT_MS });
    await page.locator('.text', { hasText: 'Result:' }).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('.output').textContent()).toBe(
      '{"done":"delete-record","id":"rec-a"}',
    );
    expect(executionsOf('rec-a')).toHaveLength(1);
    await page.locator('#status', { hasText: 'ready' }).waitFor({ timeout: UI_WAIT_MS });

    // The decision was made in the token's name.
    const runs = await tollgate
      .getAgent(AGENT)
      .listSuspendedRuns({ threadId: chat, resourceId: 'alice' });
    expect(runs.total).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('a reload while the call waits shows the same request; Approve after the reload runs it once', async () => {
    const chat = uniqueId('chat');
    const page = await openChat(chat);
    await say(page, 'please delete rec-b');
    await tool(page, 'approval-requested').waitFor({ timeout: UI_WAIT_MS });

    await page.reload();
    await tool(page, 'approval-requested').waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('.message.user .text').textContent()).toBe('please delete rec-b');
    // A second tab of the same chat shows the same waiting call.
    const second = await openChat(chat);
    await tool(second, 'approval-requested').waitFor({ timeout: UI_WAIT_MS });
    await second.close();

    await page.click('text=Approve');
    await page.locator('.text', { hasText: 'Result:' }).waitFor({ timeout: UI_WAIT_MS });
    expect(executionsOf('rec-b')).toHaveLength(1);

    // A later visit shows the finished conversation from the thread.
    await page.reload();
    await tool(page, 'output-available').waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('.text', { hasText: 'Result:' }).count()).toBe(1);
    expect(executionsOf('rec-b')).toHaveLength(1);
  });

  it('a reload while the run works replays it and follows it live to the end', async () => {
    const chat = uniqueId('chat');
    const page = await openChat(chat);
    await say(page, 'please slow job-1');
    await tool(page, 'input-available').waitFor({ timeout: UI_WAIT_MS });
    // The reload finds the run through visibility: once that lists it (a moment, longer on a loaded
    // machine), the reload must find it working.
    const client = await tollgate.client();
    await eventually(async () => {
      expect(
        await openRunOf(client, { agentId: AGENT, threadId: chat, resourceId: 'alice' }),
      ).toBeDefined();
    }, 30_000);

    await page.reload();
    await tool(page, 'input-available').waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('.message.user .text').textContent()).toBe('please slow job-1');
    await page.locator('#status', { hasText: 'streaming' }).waitFor({ timeout: UI_WAIT_MS });

    finishJob();
    await page.locator('.text', { hasText: 'Result:' }).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('.output').textContent()).toBe('{"finished":"job-1"}');
    expect(await page.locator('.message.assistant').count()).toBe(1);
    expect(await page.locator('.text', { hasText: 'Working.' }).count()).toBe(1);
    expect(slowJob.executions).toHaveLength(1);
    jobGate = jobDone();
  });

  it('Deny shows tool-output-denied and the tool never runs', async () => {
    const chat = uniqueId('chat');
    const page = await openChat(chat);
    await say(page, 'please delete rec-c');
    await tool(page, 'approval-requested').waitFor({ timeout: UI_WAIT_MS });
    await page.click('text=Deny');
    await page.locator('.denied').waitFor({ timeout: UI_WAIT_MS });
    await page.locator('.text', { hasText: 'Result:' }).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator('.text', { hasText: 'Result:' }).textContent()).toBe(
      'Result: "Not now"',
    );
    expect(executionsOf('rec-c')).toHaveLength(0);
  });
});
