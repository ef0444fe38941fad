/**
 * Issue 28.1 through the chat bridge (docs/budgets.md "One Approve button"): a budget approval is a
 * tool-approval part like any other; approving it from `useChat`, which sends no amount, raises the
 * limit by the agent's `budget.raiseBy`, and without one is refused whole, deciding nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { UIMessage } from 'ai';
import { Agent, type Tollgate } from '../src/index.js';
import { createTollgateServer, type ListeningServer } from '../src/server/index.js';
import { budgetWork } from './support/budget-work.js';
import { hostAgents, uniqueId } from './support/harness.js';
import { sseChunks } from './support/ui-sse.js';

const TOKEN = 'budget-chat-token-0123456789abc';

describe('budget approvals in the chat bridge', () => {
  // Two tool steps of 10 tokens, then a reply of 15: a limit of 10 parks the run after step 1.
  const raised = budgetWork(2);
  const fixed = budgetWork(2);
  const raising = new Agent({
    id: 'chat-budget-raise',
    model: raised.model,
    tools: { work: raised.work },
    budget: { tokens: { limit: 10 }, raiseBy: { tokens: 100 } },
  });
  const strict = new Agent({
    id: 'chat-budget-strict',
    model: fixed.model,
    tools: { work: fixed.work },
    budget: { tokens: { limit: 10 } },
  });
  let tollgate: Tollgate;
  let server: ListeningServer;

  beforeAll(async () => {
    tollgate = await hostAgents([raising, strict], 'budget-chat');
    server = await createTollgateServer({
      tollgate,
      auth: { tokens: [{ token: TOKEN, id: 'alice' }] },
    }).listen({ port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    await tollgate?.shutdown();
  });

  const post = (agent: string, body: unknown) =>
    fetch(`${server.url}/api/agents/${agent}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const page = async (agent: string, chat: string): Promise<UIMessage[]> => {
    const answer = await fetch(`${server.url}/api/agents/${agent}/chat/${chat}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return ((await answer.json()) as { messages: UIMessage[] }).messages;
  };
  /** Starts a chat and answers its budget approval as `useChat` does: no amount. */
  async function answeredInChat(agent: string, approved: boolean) {
    const chat = uniqueId('chat');
    const user: UIMessage = {
      id: `u-${chat}`,
      role: 'user',
      parts: [{ type: 'text', text: 'go' }],
    };
    const started = sseChunks(await (await post(agent, { id: chat, messages: [user] })).text());
    const request = started.filter((chunk) => chunk.type === 'tool-input-available').at(-1);
    expect(request).toMatchObject({ toolName: 'tollgate:budget' });
    expect(started.some((chunk) => chunk.type === 'tool-approval-request')).toBe(true);
    const messages = (await page(agent, chat)).map((message) => ({
      ...message,
      parts: message.parts.map((part) =>
        'approval' in part && part.state === 'approval-requested'
          ? { ...part, state: 'approval-responded', approval: { id: part.approval.id, approved } }
          : part,
      ),
    }));
    const runId = String(started[0]!.messageId);
    return { runId, request, answer: await post(agent, { id: chat, messages }) };
  }

  it("approving in the chat raises the limit by the agent's raiseBy: the run goes on to its reply", async () => {
    const { request, answer } = await answeredInChat('chat-budget-raise', true);
    expect(request).toMatchObject({
      input: { metric: 'tokens', used: 10, limit: 10, raiseBy: 100 },
    });
    expect(answer.status).toBe(200);
    const rest = sseChunks(await answer.text());
    expect(rest.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(raised.counts).toEqual({ modelSteps: 3, executions: 2 });
  });

  it('without raiseBy, approving in the chat is refused with INVALID_BUDGET_AMOUNT and decides nothing; declining ends the run', async () => {
    const { runId, answer } = await answeredInChat('chat-budget-strict', true);
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({ error: { code: 'INVALID_BUDGET_AMOUNT' } });
    expect(fixed.counts).toEqual({ modelSteps: 1, executions: 1 });
    const pending = await tollgate.getAgent('chat-budget-strict').pendingToolCalls(runId);
    expect(pending.map((call) => call.toolName)).toEqual(['tollgate:budget']);

    const declined = await answeredInChat('chat-budget-strict', false);
    expect(declined.answer.status).toBe(200);
    const rest = sseChunks(await declined.answer.text());
    expect(rest.at(-1)).toEqual({ type: 'finish', finishReason: 'length' });
    // The declined run took no further step: one step each for the two runs.
    expect(fixed.counts).toEqual({ modelSteps: 2, executions: 2 });
  });
});
