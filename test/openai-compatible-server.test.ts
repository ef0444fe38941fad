import { afterAll, describe, expect, it } from '@jest/globals';
import { createOpenAI } from '@ai-sdk/openai';
import {
  generateText,
  streamText,
  tool,
  type ModelMessage,
  type TextStreamPart,
  type ToolSet,
} from 'ai';
import { z } from 'zod';
import {
  startOpenAICompatibleServer,
  type FakeOpenAIServer,
  type ScriptedReply,
} from './support/openai-compatible-server.js';

const servers: FakeOpenAIServer[] = [];

async function start(script: ScriptedReply[]): Promise<FakeOpenAIServer> {
  const server = await startOpenAICompatibleServer(script);
  servers.push(server);
  return server;
}

function modelFor(server: FakeOpenAIServer) {
  return createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' }).chat('gpt-test');
}

const tools = {
  lookupOrder: tool({
    description: 'Look up an order by id',
    inputSchema: z.object({ id: z.string() }),
  }),
};

async function collect<T extends ToolSet>(
  stream: AsyncIterable<TextStreamPart<T>>,
): Promise<Array<TextStreamPart<T>>> {
  const parts: Array<TextStreamPart<T>> = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('OpenAI-compatible fake server with @ai-sdk/openai .chat()', () => {
  it('streams text as several text-delta parts', async () => {
    const server = await start([{ text: 'Hello there, durable world!' }]);
    const result = streamText({ model: modelFor(server), prompt: 'Say hello', maxRetries: 0 });
    const parts = await collect(result.fullStream);

    const deltas = parts.flatMap((p) => (p.type === 'text-delta' && p.text !== '' ? [p.text] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello there, durable world!');
    expect(await result.text).toBe('Hello there, durable world!');
    expect(await result.finishReason).toBe('stop');
    expect(server.remaining()).toBe(0);
    expect(server.requests[0]).toMatchObject({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('parses a streamed tool call into one tool-call part', async () => {
    const server = await start([
      {
        toolCalls: [
          { id: 'call_abc123', name: 'lookupOrder', args: { id: 'order-42-with-a-long-id' } },
        ],
      },
    ]);
    const result = streamText({
      model: modelFor(server),
      tools,
      prompt: 'Where is order 42?',
      maxRetries: 0,
    });
    const parts = await collect(result.fullStream);

    const calls = parts.filter((p) => p.type === 'tool-call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      toolCallId: 'call_abc123',
      toolName: 'lookupOrder',
      input: { id: 'order-42-with-a-long-id' },
    });
    expect(parts.filter((p) => p.type === 'tool-input-delta').length).toBeGreaterThan(1);
    expect(await result.finishReason).toBe('tool-calls');
  });

  it('sends the tool JSON schema, and the tool result on the next turn', async () => {
    const server = await start([
      { toolCalls: [{ id: 'call_1', name: 'lookupOrder', args: { id: 'A7' } }] },
      { text: 'Order A7 has shipped.' },
    ]);
    const model = modelFor(server);
    const first = streamText({ model, tools, prompt: 'Status of A7?', maxRetries: 0 });
    await first.consumeStream();

    const firstBody = server.requests[0] as {
      tools: Array<{ type: string; function: Record<string, unknown> }>;
    };
    expect(firstBody.tools).toHaveLength(1);
    expect(firstBody.tools[0]).toMatchObject({
      type: 'function',
      function: {
        name: 'lookupOrder',
        description: 'Look up an order by id',
        parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      },
    });

    const messages: ModelMessage[] = [
      { role: 'user', content: 'Status of A7?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookupOrder', input: { id: 'A7' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'lookupOrder',
            output: { type: 'json', value: { status: 'shipped', carrier: 'DHL' } },
          },
        ],
      },
    ];
    const second = streamText({ model, tools, messages, maxRetries: 0 });
    expect(await second.text).toBe('Order A7 has shipped.');

    const sent = (server.requests[1] as { messages: Array<Record<string, unknown>> }).messages;
    expect(sent[1]).toMatchObject({
      role: 'assistant',
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'lookupOrder', arguments: '{"id":"A7"}' },
        },
      ],
    });
    expect(sent[2]).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: '{"status":"shipped","carrier":"DHL"}',
    });
    expect(server.remaining()).toBe(0);
  });

  it('serves non-streaming chat completions (generateText)', async () => {
    const server = await start([
      { text: 'Plain answer.' },
      { toolCalls: [{ id: 'call_9', name: 'lookupOrder', args: { id: 'B1' } }] },
    ]);
    const plain = await generateText({ model: modelFor(server), prompt: 'hi', maxRetries: 0 });
    expect(plain.text).toBe('Plain answer.');
    const withTool = await generateText({
      model: modelFor(server),
      tools,
      prompt: 'B1?',
      maxRetries: 0,
    });
    expect(withTool.toolCalls).toMatchObject([
      { toolCallId: 'call_9', toolName: 'lookupOrder', input: { id: 'B1' } },
    ]);
    expect(server.requests[0]).not.toHaveProperty('stream');
  });

  it('names the unexpected request when the script is exhausted', async () => {
    const server = await start([{ text: 'only reply' }]);
    await streamText({ model: modelFor(server), prompt: 'first', maxRetries: 0 }).consumeStream();

    const result = streamText({
      model: modelFor(server),
      prompt: 'second question please',
      maxRetries: 0,
      onError: () => {},
    });
    const errors = (await collect(result.fullStream)).filter((p) => p.type === 'error');
    expect(errors).toHaveLength(1);
    const message = String((errors[0] as { error: Error }).error.message);
    expect(message).toContain('unexpected request #2');
    expect(message).toContain('only 1 replies');
    expect(message).toContain('user: "second question please"');
    expect(server.requests).toHaveLength(2);
  });

  it('answers unknown routes with a 404 JSON error', async () => {
    const server = await start([]);
    const res = await fetch(`${server.baseURL}/responses`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});
