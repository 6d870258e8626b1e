/**
 * Getting a result out of the chat: copy text to the clipboard, or download it as a file. Both
 * work where the modern APIs are missing or blocked (plain http on a LAN host, sandboxed
 * iframes), with a brief off-screen helper element in the chat's own tree (its shadow root too).
 */
import { h } from './dom.js';

/**
 * Copies text; falls back to execCommand where the clipboard API is missing or blocked.
 * @param {string} text
 * @param {HTMLElement} host an element of the chat that may briefly hold an off-screen textarea
 * @returns {Promise<boolean>} whether the text was copied
 * @example
 * const ok = await copyText('a,b\n1,2\n', root);
 */
export async function copyText(text, host) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (plain http on a LAN host, or blocked in an iframe): the old way.
  }
  const area = h('textarea', { class: 'ac-offscreen', readonly: true, 'aria-hidden': 'true', tabindex: '-1' });
  area.value = text;
  host.append(area);
  const focused = host.getRootNode().activeElement;
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  if (focused instanceof HTMLElement) focused.focus();
  return ok;
}

/**
 * Downloads text as a CSV file (UTF-8 with a byte-order mark).
 * @param {string} name the file name
 * @param {string} text the CSV
 * @param {HTMLElement} host an element of the chat that may briefly hold an off-screen link
 * @example
 * download('amount-by-period.csv', 'period,amount\n2024-12,10\n', root);
 */
export function download(name, text, host) {
  // A byte-order mark so spreadsheet programs read UTF-8.
  const url = URL.createObjectURL(new Blob(['\ufeff', text], { type: 'text/csv;charset=utf-8' }));
  const link = h('a', { href: url, download: name, class: 'ac-offscreen', tabindex: '-1' });
  host.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
