/**
 * <analyst-chat>: the chat as a custom element, in a shadow root so the host page's CSS cannot
 * reach it. Load it with one module script from the service:
 *
 *   <script type="module" src="https://analyst.example.com/embed.js"></script>
 *   <analyst-chat api-url="https://analyst.example.com" api-key="…"></analyst-chat>
 *
 * Attributes: api-url (default: where embed.js came from), api-key (sent as
 * `Authorization: Bearer …`), compact, heading (the title), locale (numbers and periods in
 * tables, charts and answers; default en-US, and sent to the service only when set),
 * suggestions (example questions separated by `|`), autofocus.
 * Methods: ask(question), newChat(). Theme it with CSS custom properties on the element
 * (--ac-accent, --ac-bg, --ac-fg, --ac-font …; see chat.css).
 */
import { mountChat } from './chat.js';

/** The service that served this module: the default API. */
const serviceUrl = new URL('../', import.meta.url).href;
const stylesheetUrl = new URL('chat.css', import.meta.url).href;

export class AnalystChatElement extends HTMLElement {
  static observedAttributes = ['api-url', 'api-key', 'compact', 'heading', 'locale', 'suggestions'];

  #chat = null;
  #shadow = null;
  #container = null;

  connectedCallback() {
    if (!this.#shadow) {
      this.#shadow = this.attachShadow({ mode: 'open' });
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = stylesheetUrl;
      this.#container = document.createElement('div');
      this.#container.className = 'ac-host';
      // Hidden until the styles are in, so the host page never sees an unstyled flash.
      this.#container.hidden = true;
      const show = () => {
        this.#container.hidden = false;
      };
      link.addEventListener('load', show);
      link.addEventListener('error', show);
      this.#shadow.append(link, this.#container);
    }
    if (!this.#chat) this.#mount();
  }

  disconnectedCallback() {
    // Moving the element around the page reconnects it at once: only tear down when it stays out.
    queueMicrotask(() => {
      if (!this.isConnected) this.#unmount();
    });
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (!this.#chat || oldValue === newValue) return;
    if (name === 'api-key') this.#chat.setApiKey(newValue ?? '');
    else {
      this.#unmount();
      this.#mount();
    }
  }

  #mount() {
    const suggestions = (this.getAttribute('suggestions') ?? '')
      .split('|')
      .map((text) => text.trim())
      .filter(Boolean);
    this.#chat = mountChat(this.#container, {
      apiUrl: this.getAttribute('api-url') || serviceUrl,
      apiKey: this.getAttribute('api-key') ?? undefined,
      compact: this.hasAttribute('compact'),
      title: this.getAttribute('heading') ?? undefined,
      locale: this.getAttribute('locale') ?? undefined,
      headingLevel: 2,
      autofocus: this.hasAttribute('autofocus'),
      suggestions,
    });
  }

  #unmount() {
    this.#chat?.destroy();
    this.#chat = null;
  }

  /** Asks a question as if typed. */
  ask(question) {
    return this.#chat?.ask(question);
  }

  /** Forgets the conversation and starts a new one. */
  newChat() {
    this.#chat?.newChat();
  }

  focus(options) {
    this.#chat ? this.#chat.focus() : super.focus(options);
  }

  get sessionId() {
    return this.#chat?.sessionId ?? null;
  }
}

if (!customElements.get('analyst-chat')) customElements.define('analyst-chat', AnalystChatElement);
