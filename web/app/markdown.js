/**
 * The answer text as elements: paragraphs, `- ` bullet lists, `**bold**` and `code`.
 * Only these; everything else stays plain text (no HTML is ever interpreted).
 */
import { h } from './dom.js';

function inline(text) {
  const nodes = [];
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) nodes.push(text.slice(last, match.index));
    nodes.push(match[1] !== undefined ? h('strong', {}, match[1]) : h('code', {}, match[2]));
    last = match.index + match[0].length;
  }
  if (last < text.length) nodes.push(text.slice(last));
  return nodes;
}

/** A fragment with the rendered text. */
export function renderAnswer(text) {
  const fragment = document.createDocumentFragment();
  let list;
  for (const raw of String(text).split('\n')) {
    const line = raw.trimEnd();
    const item = /^\s*[-*•]\s+(.*)$/.exec(line);
    if (item) {
      list ??= fragment.appendChild(h('ul'));
      list.append(h('li', {}, inline(item[1])));
      continue;
    }
    list = undefined;
    if (line.trim() === '') continue;
    const heading = /^#{1,4}\s+(.*)$/.exec(line);
    fragment.append(heading ? h('p', { class: 'ac-answer-heading' }, h('strong', {}, inline(heading[1]))) : h('p', {}, inline(line)));
  }
  return fragment;
}
