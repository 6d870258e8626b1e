/**
 * A small element builder: no innerHTML anywhere, text always as text, events with
 * addEventListener (the pages run under a CSP without inline scripts).
 */

/**
 * `h('button', {class: 'x', type: 'button', onClick: fn, aria: {label: 'Close'}}, 'text', child)`.
 * Keys starting with `on` add listeners; `aria`/`data` objects set aria-* / data-* attributes;
 * booleans set or omit an attribute; everything else is an attribute.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === 'aria' || key === 'data') for (const [name, v] of Object.entries(value)) element.setAttribute(`${key}-${name}`, String(v));
    else if (key === 'text') element.textContent = String(value);
    else element.setAttribute(key, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

let counter = 0;
/** An id unique in the document (several chats may share one page). */
export const uniqueId = (prefix) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 7)}`;
