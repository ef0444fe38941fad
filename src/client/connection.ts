import { InterceptingCall, Metadata, status as grpcStatus, type Interceptor } from '@grpc/grpc-js';
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

type Call = ConstructorParameters<typeof InterceptingCall>[0];

/** A client connection that can be closed while calls are still being retried. */
export interface ClosableConnection {
  connection: Connection;
  /** Ends retries in flight (their callers get CANCELLED) and closes the channel. */
  close(): Promise<void>;
}

/**
 * Connects a Temporal client whose retries stop when it closes. With the SDK's default retry
 * interceptor, a call waiting out its backoff when the channel closes retries on the closed
 * channel from a timer, and the process dies of an uncaught "Channel has been shut down".
 */
export async function connectClosable(address: string): Promise<ClosableConnection> {
  let closing = false;
  const defaults = defaultGrpcRetryOptions();
  const retry = makeGrpcRetryInterceptor({
    ...defaults,
    retryableDecider: (attempt, status) => !closing && defaults.retryableDecider(attempt, status),
  });
  // Beneath the retries: a call started on the closed channel ends as CANCELLED instead.
  const closedChannelGuard: Interceptor = (options, nextCall) => {
    let call: Call;
    try {
      call = nextCall(options);
    } catch (error) {
      if (!closing) throw error;
      call = cancelledCall();
    }
    return new InterceptingCall(call);
  };
  const connection = await Connection.connect({
    address,
    interceptors: [retry, closedChannelGuard],
  });
  return {
    connection,
    close: async () => {
      closing = true;
      await connection.close();
    },
  };
}

/** A call that ends as soon as it starts, with status CANCELLED. */
function cancelledCall(): Call {
  return {
    start(_metadata, listener) {
      queueMicrotask(() =>
        listener?.onReceiveStatus?.({
          code: grpcStatus.CANCELLED,
          details: 'The Temporal connection was closed.',
          metadata: new Metadata(),
        }),
      );
    },
    cancelWithStatus() {},
    getPeer: () => '',
    sendMessageWithContext() {},
    sendMessage() {},
    startRead() {},
    halfClose() {},
    getAuthContext: () => null,
  };
}
