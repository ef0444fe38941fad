// The chat page of test/chat-browser.test.ts: a plain useChat page wired to Tollgate's chat
// route, bundled by the test with esbuild. Query: ?agent=&chat=&token=
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(location.search);
const chatId = params.get('chat');
const api = `/api/agents/${encodeURIComponent(params.get('agent'))}/chat`;
const headers = { Authorization: `Bearer ${params.get('token')}` };

function ToolPart({ part, answer }) {
  return (
    <div className="tool" data-state={part.state}>
      <span className="tool-name">{part.type.slice('tool-'.length)}</span>{' '}
      <code>{JSON.stringify(part.input)}</code> <span className="state">{part.state}</span>
      {part.state === 'approval-requested' && (
        <>
          <button onClick={() => answer({ id: part.approval.id, approved: true })}>Approve</button>
          <button
            onClick={() => answer({ id: part.approval.id, approved: false, reason: 'Not now' })}
          >
            Deny
          </button>
        </>
      )}
      {part.state === 'output-available' && (
        <pre className="output">{JSON.stringify(part.output)}</pre>
      )}
      {part.state === 'output-denied' && <span className="denied">Denied</span>}
    </div>
  );
}

function Chat({ initialMessages }) {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: chatId,
    messages: initialMessages,
    // A run that was working when the page loaded is replayed and followed.
    resume: true,
    transport: new DefaultChatTransport({ api, headers }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  return (
    <main>
      <div id="status">{status}</div>
      {error && <div id="error">{error.message}</div>}
      {messages.map((message) => (
        <div key={message.id} className={`message ${message.role}`}>
          {message.parts.map((part, i) => {
            if (part.type === 'text')
              return (
                <p key={i} className="text">
                  {part.text}
                </p>
              );
            if (part.type.startsWith('tool-')) {
              return <ToolPart key={i} part={part} answer={addToolApprovalResponse} />;
            }
            return null;
          })}
        </div>
      ))}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input id="prompt" value={input} onChange={(event) => setInput(event.target.value)} />
        <button type="submit">Send</button>
      </form>
    </main>
  );
}

// The conversation comes from Tollgate: a reload, a second tab or a later visit shows the same run.
fetch(`${api}/${encodeURIComponent(chatId)}`, { headers })
  .then((response) => response.json())
  .then(({ messages }) => {
    createRoot(document.getElementById('root')).render(<Chat initialMessages={messages} />);
  });
