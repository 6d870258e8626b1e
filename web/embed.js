// <analyst-chat> for any page: <script type="module" src="https://ANALYST-HOST/embed.js"></script>
// Everything it needs (the element, its styles, Chart.js) loads from the same service.
export { AnalystChatElement } from './app/element.js';
