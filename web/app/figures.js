/**
 * The figures of a rendered answer made openable: each amount or percent the answer states
 * becomes a button (keyboard focusable) whose receipt (receipts.js) shows in a small popover on
 * hover, focus or click, and is its accessible description (aria-describedby), so a screen reader
 * reads where the number came from. An unverified figure is marked plainly: a class, a ⚠ drawn
 * by the stylesheet and the title "No tool result backs this figure".
 *
 * The popovers live beside the answer, not in it, so the answer's text stays the answer (copying
 * it, or reading its textContent, gives no receipt text). Model text only ever becomes text
 * nodes: the figures are cut out of the rendered text nodes, never parsed as HTML.
 */
import { h, uniqueId } from './dom.js';
import { renderAnswer } from './markdown.js';
import { describeReceipt, hasReceipt, placeFigures } from './receipts.js';

/** Shown on an unverified figure and read by screen readers. */
export const UNVERIFIED_TITLE = 'No tool result backs this figure';

/** The text nodes under `root`, in document order. */
function textNodes(root) {
  const walker = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
  return nodes;
}

function popoverFor(figure, calls, locale) {
  const { status, title, lines } = describeReceipt(figure, calls, { locale });
  return h(
    'div',
    { class: `ac-receipt ac-receipt-${status}`, role: 'tooltip', id: uniqueId('ac-receipt'), hidden: true },
    h('strong', { class: 'ac-receipt-title' }, title),
    h('dl', {}, lines.map((line) => [h('dt', {}, line.label), h('dd', {}, line.text)])),
  );
}

/**
 * Wraps the figures of `answer` (already rendered by markdown.js) in buttons and puts their
 * receipts in `holder`, which must sit beside the answer in a positioned ancestor.
 * @param {HTMLElement} answer the rendered answer
 * @param {HTMLElement} holder where the popovers go (its offsetParent positions them)
 * @param {Array<object>} figures the body's `figures` (absent on older stored turns: nothing happens)
 * @param {Array<object>} calls the body's `tool_calls`
 * @param {{locale?: string}} [options]
 * @returns {{verified: number, unverified: number}} the figures that got a receipt, by status
 * @example
 * answer.replaceChildren(renderAnswer(body.answer));
 * const counts = decorateFigures(answer, receiptsHolder, body.figures, body.tool_calls, { locale: 'en-US' });
 */
export function decorateFigures(answer, holder, figures, calls, { locale = 'en-US' } = {}) {
  const counts = { verified: 0, unverified: 0 };
  holder.replaceChildren();
  if (!Array.isArray(figures) || figures.length === 0) return counts;
  const nodes = textNodes(answer);
  const places = placeFigures(
    nodes.map((node) => node.data),
    figures,
  ).filter((place) => hasReceipt(figures[place.figure]));
  const popovers = [];
  let open = null;

  const position = (button, popover) => {
    const box = holder.offsetParent?.getBoundingClientRect?.();
    const rect = button.getBoundingClientRect();
    if (!box) return;
    popover.style.top = `${rect.bottom - box.top + 6}px`;
    const left = Math.max(0, Math.min(rect.left - box.left, box.width - popover.offsetWidth));
    popover.style.left = `${left}px`;
  };
  const show = (entry, pinned = false) => {
    if (open && open !== entry) hide(open);
    open = entry;
    entry.popover.hidden = false;
    if (pinned) entry.pinned = true;
    entry.button.setAttribute('aria-expanded', String(entry.pinned));
    position(entry.button, entry.popover);
  };
  function hide(entry) {
    entry.popover.hidden = true;
    entry.pinned = false;
    entry.button.setAttribute('aria-expanded', 'false');
    if (open === entry) open = null;
  }

  // Right to left within a node, so earlier offsets stay valid while later figures are cut out.
  for (const place of [...places].reverse()) {
    const figure = figures[place.figure];
    const node = nodes[place.node];
    const popover = popoverFor(figure, calls, locale);
    const unverified = figure.receipt?.kind === 'unverified';
    counts[unverified ? 'unverified' : 'verified'] += 1;
    const button = h('button', {
      type: 'button',
      class: unverified ? 'ac-figure ac-figure-unverified' : 'ac-figure',
      'aria-describedby': popover.id,
      'aria-expanded': 'false',
      title: unverified ? UNVERIFIED_TITLE : null,
      data: { receipt: figure.receipt?.kind ?? 'unverified' },
    });
    const figureNode = node.splitText(place.start);
    figureNode.splitText(place.end - place.start);
    figureNode.replaceWith(button);
    button.append(figureNode);
    const entry = { button, popover, pinned: false, leaving: undefined };
    // The pointer may move from the figure onto its receipt (to read or select it) without losing it.
    const stay = () => clearTimeout(entry.leaving);
    const leave = () => {
      stay();
      entry.leaving = setTimeout(() => !entry.pinned && button !== button.getRootNode().activeElement && hide(entry), 150);
    };
    button.addEventListener('mouseenter', () => (stay(), show(entry)));
    button.addEventListener('mouseleave', leave);
    popover.addEventListener('mouseenter', stay);
    popover.addEventListener('mouseleave', leave);
    button.addEventListener('focus', () => show(entry));
    button.addEventListener('blur', () => !entry.pinned && hide(entry));
    button.addEventListener('click', () => (entry.pinned ? hide(entry) : show(entry, true)));
    button.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape' || entry.popover.hidden) return;
      // Closes the receipt only; Escape elsewhere still stops a running answer.
      event.stopPropagation();
      hide(entry);
    });
    popovers.unshift(popover);
  }
  holder.append(...popovers);
  return counts;
}

/**
 * The first answer a repair turn replaced (POST /chat's `replaced`, or the `answer_replaced`
 * event while streaming), shown closed above the corrected one: what it said, with the figures
 * no tool result backs marked as unverified ones are. A reader sees that it happened and why.
 * @param {{answer: string, unverified?: string[]}} replaced
 * @param {{locale?: string}} [options]
 * @returns {HTMLElement} a `<details class="ac-replaced">`
 * @example
 * reply.prepend(replacedAnswer({ answer: 'BPC shows 512,345.67 EUR.', unverified: ['512,345.67'] }));
 */
export function replacedAnswer({ answer, unverified = [] }, { locale = 'en-US' } = {}) {
  const text = h('div', { class: 'ac-replaced-text' }, renderAnswer(answer ?? ''));
  const holder = h('div', { class: 'ac-receipts' });
  const figures = (Array.isArray(unverified) ? unverified : []).map((figure) => ({ text: String(figure), kind: 'amount', receipt: { kind: 'unverified' } }));
  decorateFigures(text, holder, figures, [], { locale });
  const named = figures.map((figure) => figure.text).join(', ');
  return h(
    'details',
    { class: 'ac-replaced' },
    h('summary', {}, `Replaced answer: it stated ${named ? `${named}, which no tool result backs` : 'figures no tool result backs'}; the answer below is the corrected one`),
    text,
    holder,
  );
}
