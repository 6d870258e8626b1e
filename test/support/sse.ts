/**
 * Reads a Server-Sent Events response into a list of {event, data} (data parsed as JSON).
 */
import { createParser } from 'eventsource-parser';

export interface ReceivedEvent {
  event: string;
  data: any;
}

/** POSTs JSON and collects every event until the stream ends. */
export async function postForEvents(url: string, body: unknown, init: { signal?: AbortSignal; headers?: Record<string, string>; onEvent?: (event: ReceivedEvent) => void } = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify(body),
    signal: init.signal,
  });
  const events: ReceivedEvent[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const event = { event: message.event ?? 'message', data: JSON.parse(message.data) };
      events.push(event);
      init.onEvent?.(event);
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  return { response, events };
}
