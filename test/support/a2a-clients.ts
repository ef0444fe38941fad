/** The A2A SDK's own client against a Tollgate server, and what tests read from its answers. */
import type { SendMessageRequest, StreamResponse, Task, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { dataPart, messageOf, textPart } from '../../src/a2a/a2a-parts.js';
import { uniqueId } from './harness.js';

export const PERSON = 'a2a-alice-token-0123456789';
export const BOT = 'a2a-bot-token-0123456789abc';

export async function a2aClient(url: string, token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  return new ClientFactory(options).createFromUrl(`${url}/`);
}

export function request(
  text: string,
  ids: {
    taskId?: string;
    contextId?: string;
    data?: object;
    immediately?: boolean;
    messageId?: string;
  } = {},
): SendMessageRequest {
  const parts = [
    ...(text ? [textPart(text)] : []),
    ...(ids.data ? [dataPart(ids.data as never)] : []),
  ];
  const message = messageOf(
    'user',
    {
      messageId: ids.messageId ?? uniqueId('m'),
      taskId: ids.taskId ?? '',
      contextId: ids.contextId ?? '',
    },
    parts,
  );
  return { tenant: '', message, configuration: configurationOf(ids), metadata: undefined };
}

export function send(client: Client, text: string, ids: Parameters<typeof request>[1] = {}) {
  return client.sendMessage(request(text, ids));
}

/** The events of a streamed send, all of them: the stream ends when the task ends or waits. */
export async function sendStreaming(
  client: Client,
  text: string,
  ids: Parameters<typeof request>[1] = {},
): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of client.sendMessageStream(request(text, ids))) events.push(event);
  return events;
}

function configurationOf(ids: { immediately?: boolean }) {
  return ids.immediately
    ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true }
    : undefined;
}

/** The Tollgate code a refusal carries in its JSON-RPC error's ErrorInfo metadata. */
export function codeOf(error: unknown): string | undefined {
  return (error as { data?: Array<{ metadata?: { code?: string } }> }).data?.[0]?.metadata?.code;
}

/** The states a stream's events carry, in order: the task's, then each status update's. */
export function statesOf(events: StreamResponse[]): Array<TaskState | undefined> {
  return events.flatMap((event) => {
    const payload = event.payload;
    if (payload?.$case === 'task') return [payload.value.status?.state];
    if (payload?.$case === 'statusUpdate') return [payload.value.status?.state];
    return [];
  });
}

export function waiting(task: Task): Array<{ toolCallId: string; toolName: string; kind: string }> {
  const part = task.status?.message?.parts.find((p) => p.content?.$case === 'data');
  return (
    part?.content?.value as {
      waiting: Array<{ toolCallId: string; toolName: string; kind: string }>;
    }
  ).waiting;
}
