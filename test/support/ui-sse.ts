/** The AI SDK UI message chunks of a chat response body (`data: {...}` events, `[DONE]` left out). */
export function sseChunks(text: string): Array<{ type: string } & Record<string, unknown>> {
  return text
    .split('\n\n')
    .map((event) => event.replace(/^data: /, '').trim())
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as { type: string });
}
