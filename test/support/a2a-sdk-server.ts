/**
 * A small A2A agent built with the A2A SDK's own server (DefaultRequestHandler, in-memory task
 * store): it asks "Which environment?" and then deploys to the answer, or fails a message that
 * says "fail". For testing `a2aTool()` against an A2A implementation that is not Tollgate's.
 */
import { AgentCard, TaskState, type Task } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
} from '@a2a-js/sdk/server';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contentOf, messageOf, textPart } from '../../src/a2a/a2a-parts.js';

export interface SdkAgent {
  url: string;
  /** Every message the agent received: its id, task id and text. */
  received: Array<{ messageId: string; taskId: string; text: string }>;
  close(): Promise<void>;
}

export async function startSdkAgent(): Promise<SdkAgent> {
  const received: SdkAgent['received'] = [];
  const executor: AgentExecutor = {
    execute: async (request, bus) => {
      const { taskId, contextId } = request;
      const text = contentOf(request.userMessage.parts).text;
      received.push({
        messageId: request.userMessage.messageId,
        taskId: request.task?.id ?? '',
        text,
      });
      const say = (words: string) =>
        messageOf('agent', { messageId: `${taskId}-${received.length}`, taskId, contextId }, [
          textPart(words),
        ]);
      const task: Task = request.task ?? {
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
        artifacts: [],
        history: [request.userMessage],
        metadata: undefined,
      };
      bus.publish(AgentEvent.task(task));
      const status = (state: TaskState, words: string) =>
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: { state, message: say(words), timestamp: new Date().toISOString() },
            metadata: undefined,
          }),
        );
      if (!request.task && text.includes('fail'))
        status(TaskState.TASK_STATE_FAILED, 'No capacity left.');
      else if (!request.task) status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which environment?');
      else status(TaskState.TASK_STATE_COMPLETED, `Deployed to ${text}.`);
      bus.finished();
    },
    cancelTask: async () => undefined,
  };
  let base = '';
  const card = (): AgentCard => ({
    name: 'deployer',
    description: 'Deploys after asking where.',
    supportedInterfaces: [
      { url: `${base}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    ],
    provider: undefined,
    version: '1',
    capabilities: {
      streaming: false,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  });
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
  const transport = new JsonRpcTransportHandler(handler);
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      void (async () => {
        const answer = req.url?.endsWith('agent-card.json')
          ? AgentCard.toJSON(card())
          : await transport.handle(body, new ServerCallContext());
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
