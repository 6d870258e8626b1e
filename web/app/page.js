/**
 * The chat page (GET /) and its compact twin for iframes (GET /embed). The API is the service
 * that served the page. /embed reads options from its fragment, which never reaches the server:
 * /embed#api-key=…&heading=Ask%20finance&locale=de-DE
 */
import { mountChat } from './chat.js';

const container = document.getElementById('analyst-chat');
const compact = container.dataset.mode === 'compact';
const params = new URLSearchParams(location.hash.slice(1));
const suggestions = (params.get('suggestions') ?? '').split('|').map((s) => s.trim()).filter(Boolean);

const chat = mountChat(container, {
  apiUrl: new URL('./', location.href).href,
  apiKey: params.get('api-key') ?? undefined,
  compact,
  title: params.get('heading') ?? undefined,
  locale: params.get('locale') ?? undefined,
  headingLevel: 1,
  // The page is the chat: focus the question box. In an iframe, only when asked to.
  autofocus: !compact || params.has('autofocus'),
  suggestions,
});

// For the browser tests and the console.
window.analystChat = chat;
