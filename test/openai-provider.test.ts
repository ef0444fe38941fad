/**
 * The real `@ai-sdk/openai` provider through Tollgate, over HTTP: an agent whose model is the
 * string `'openai/gpt-test'` talks to a local OpenAI-compatible server, and a gated tool call
 * round-trips through approval (or decline) and back to the model as a `tool` message.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, toolCallFingerprint, type Chunk, type Tollgate } from '../src/index.js';
import { chunksOf, hostAgents, recordingTool, typesOf } from './support/harness.js';
import {
  startOpenAICompatibleServer,
  type FakeOpenAIServer,
  type ScriptedReply,
} from './support/openai-compatible-server.js';

const INSTRUCTIONS = 'You are a careful records assistant.';
const FIRST_TEXT = 'I will delete record abc-123 now.';
const FINAL_TEXT = 'Record abc-123 is gone.';
const DECLINE_REASON = 'Tool call was not approved by the user';

type Json = Record<string, unknown>;

/** Reply 1 asks for `delete-record`; reply 2 is the final answer. */
function script(toolCallId: string, finalText: string): ScriptedReply[] {
  return [
    {
      text: FIRST_TEXT,
      toolCalls: [{ id: toolCallId, name: 'delete-record', args: { id: 'abc-123' } }],
    },
    { text: finalText },
  ];
}

/** Types in order, with each run of consecutive text deltas shown once (batching may split them). */
function collapsedTypes(chunks: Chunk[]): string[] {
  return typesOf(chunks).filter(
    (type, i, all) => type !== 'text-delta' || all[i - 1] !== 'text-delta',
  );
}

function textOf(chunks: Chunk[]): string {
  return chunks.flatMap((c) => (c.type === 'text-delta' ? [c.payload.text] : [])).join('');
}

function messagesOf(request: Json | undefined): Json[] {
  return (request?.messages ?? []) as Json[];
}

/** Starts a fake server for the enclosing `describe` and points the OpenAI provider at it. */
function useFakeOpenAI(replies: ScriptedReply[]): () => FakeOpenAIServer {
  let server: FakeOpenAIServer | undefined;
  beforeAll(async () => {
    server = await startOpenAICompatibleServer(replies);
    process.env.OPENAI_BASE_URL = server.baseURL;
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => server!;
}

describe("an agent on the 'openai/<model>' provider over HTTP", () => {
  const deleteRecord = recordingTool('delete-record', { requireApproval: true });
  const agent = new Agent({
    id: 'openai-provider-agent',
    instructions: INSTRUCTIONS,
    model: 'openai/gpt-test',
    tools: { 'delete-record': deleteRecord.tool },
  });
  const savedEnv = {
    OPENAI_BASE_URL: process.env.OPENAI_BASE_URL,
    OPENAI_API_KEY: process.env.OPENAI_API_KEY,
  };
  let tollgate: Tollgate;

  beforeAll(async () => {
    process.env.OPENAI_API_KEY = 'test-key';
    tollgate = await hostAgents([agent], 'openai-provider');
  });
  afterAll(async () => {
    await tollgate.shutdown();
    for (const [key, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  describe('when the gated call is approved', () => {
    const server = useFakeOpenAI(script('call_approve_1', FINAL_TEXT));

    it('streams text and an approval request, then runs the tool once and sends its result back to the model', async () => {
      const a = tollgate.getAgent(agent.id);
      const before = deleteRecord.executions.length;

      const stream = await a.stream('Please delete record abc-123');
      const chunks = await chunksOf(stream);
      expect(collapsedTypes(chunks)).toEqual([
        'start',
        'step-start',
        'text-delta',
        'tool-call',
        'step-finish',
        'tool-call-approval',
        'finish',
      ]);
      expect(textOf(chunks)).toBe(FIRST_TEXT);
      const approval = chunks.find((c) => c.type === 'tool-call-approval');
      expect(approval?.payload).toMatchObject({
        toolCallId: 'call_approve_1',
        toolName: 'delete-record',
        args: { id: 'abc-123' },
        fingerprint: toolCallFingerprint('delete-record', { id: 'abc-123' }),
      });
      expect(await stream.finishReason).toBe('suspended');
      expect(await stream.text).toBe(FIRST_TEXT);
      expect(deleteRecord.executions.length).toBe(before);
      expect(server().requests).toHaveLength(1);

      const approved = await a.approveToolCall({ runId: stream.runId });
      const after = await chunksOf(approved);
      expect(collapsedTypes(after)).toEqual([
        'tool-result',
        'step-start',
        'text-delta',
        'step-finish',
        'finish',
      ]);
      expect(await approved.text).toBe(FINAL_TEXT);
      expect(await approved.finishReason).toBe('stop');
      // The fake server reports usage when asked (stream_options.include_usage); both steps count.
      expect((await approved.usage).totalTokens).toBeGreaterThan(0);

      expect(deleteRecord.executions.length).toBe(before + 1);
      expect(deleteRecord.executions.at(-1)).toMatchObject({
        input: { id: 'abc-123' },
        idempotencyKey: `${stream.runId}:call_approve_1`,
      });

      const [first, second] = server().requests;
      expect(server().requests).toHaveLength(2);
      expect(server().remaining()).toBe(0);
      expect(first).toMatchObject({ model: 'gpt-test', stream: true });
      expect(messagesOf(first)[0]).toEqual({ role: 'system', content: INSTRUCTIONS });
      expect(messagesOf(first).at(-1)).toMatchObject({ role: 'user' });
      expect(first?.tools).toEqual([
        {
          type: 'function',
          function: expect.objectContaining({
            name: 'delete-record',
            description: 'Test tool delete-record',
            parameters: expect.objectContaining({
              type: 'object',
              properties: { id: { type: 'string' } },
              required: ['id'],
            }),
          }),
        },
      ]);

      const secondMessages = messagesOf(second);
      expect(secondMessages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
      expect(secondMessages[0]).toEqual({ role: 'system', content: INSTRUCTIONS });
      expect(secondMessages).toContainEqual(
        expect.objectContaining({
          role: 'assistant',
          content: FIRST_TEXT,
          tool_calls: [
            expect.objectContaining({
              id: 'call_approve_1',
              function: { name: 'delete-record', arguments: JSON.stringify({ id: 'abc-123' }) },
            }),
          ],
        }),
      );
      const toolMessage = secondMessages.at(-1);
      expect(toolMessage).toMatchObject({ role: 'tool', tool_call_id: 'call_approve_1' });
      expect(JSON.parse(String(toolMessage?.content))).toEqual({
        done: 'delete-record',
        id: 'abc-123',
      });
    });
  });

  describe('when the gated call is declined', () => {
    const server = useFakeOpenAI(script('call_decline_1', 'Understood, I left it alone.'));

    it('never runs the tool and sends the decline reason to the model as the tool result', async () => {
      const a = tollgate.getAgent(agent.id);
      const before = deleteRecord.executions.length;

      const stream = await a.stream('Please delete record abc-123');
      const chunks = await chunksOf(stream);
      expect(chunks.find((c) => c.type === 'tool-call-approval')?.payload).toMatchObject({
        toolCallId: 'call_decline_1',
        toolName: 'delete-record',
        args: { id: 'abc-123' },
      });
      expect(await stream.finishReason).toBe('suspended');

      const declined = await a.declineToolCall({ runId: stream.runId });
      const after = await chunksOf(declined);
      expect(after.find((c) => c.type === 'tool-result')?.payload).toMatchObject({
        toolCallId: 'call_decline_1',
        result: DECLINE_REASON,
      });
      expect(await declined.text).toBe('Understood, I left it alone.');
      expect(await declined.finishReason).toBe('stop');

      expect(deleteRecord.executions.length).toBe(before);
      expect(server().requests).toHaveLength(2);
      expect(messagesOf(server().requests[1]).map((m) => m.role)).toEqual([
        'system',
        'user',
        'assistant',
        'tool',
      ]);
      expect(messagesOf(server().requests[1]).at(-1)).toEqual({
        role: 'tool',
        tool_call_id: 'call_decline_1',
        content: DECLINE_REASON,
      });
    });
  });
});
