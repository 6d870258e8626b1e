/**
 * The numbers in tool results, each with the call and the JSON path it sits at: the places a
 * figure of an answer can be traced to. A walk over each result collects its numeric leaves
 * (strings of digits are codes such as '1000' or '2024012', never amounts), capped per call
 * so a huge result costs a bounded walk; the leaves keep their field name and the row and
 * array they sit in, which is what the derivation search pairs them by.
 */

/** One tool call's result, as the agent recorded it. */
export interface ToolResult {
  /** The tool call id. */
  id: string;
  name: string;
  /** The parsed JSON result. */
  result: unknown;
}

/** A number in a tool result. */
export interface Leaf {
  call: string;
  /** Where it sits: 'rows[3].amount', 'summary.totals[0].total_a'. */
  path: string;
  value: number;
  /** The key it is stored under ('amount'), or '' for an array element. */
  field: string;
  /** The path of the object holding it (its row). */
  row: string;
  /** For a field of an object in an array: the array's path, and the object's index in it. */
  array?: string;
  index?: number;
}

/** Numeric leaves read per call: enough for any answer, bounded for a result of 100,000 rows. */
export const LEAVES_PER_CALL = 20_000;

/**
 * The numeric leaves of every result, in call order then document order.
 *
 * @example
 * leavesOf([{ id: 'call_1', name: 'query_source', result: { rows: [{ period: '2024012', amount: 443100 }] } }])
 * // [{ call: 'call_1', path: 'rows[0].amount', value: 443100, field: 'amount', row: 'rows[0]', array: 'rows', index: 0 }]
 */
export function leavesOf(results: ToolResult[], perCall = LEAVES_PER_CALL): Leaf[] {
  const leaves: Leaf[] = [];
  for (const { id, result } of results) {
    const own: Leaf[] = [];
    walk(result, '', { own, call: id, limit: perCall });
    leaves.push(...own);
  }
  return leaves;
}

interface Walk {
  own: Leaf[];
  call: string;
  limit: number;
}

function walk(value: unknown, path: string, state: Walk, place: { field: string; row: string; array?: string; index?: number } = { field: '', row: '' }): void {
  if (state.own.length >= state.limit) return;
  // Numbers only: digit strings in results are codes ('1000', '2024012'), never amounts.
  if (typeof value === 'number') {
    if (Number.isFinite(value)) state.own.push({ call: state.call, path, value, ...place });
    return;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length && state.own.length < state.limit; index += 1) {
      const item: unknown = value[index];
      const itemPath = `${path}[${index}]`;
      if (item && typeof item === 'object' && !Array.isArray(item)) walkObject(item as Record<string, unknown>, itemPath, state, { array: path, index });
      else walk(item, itemPath, state, { field: '', row: path });
    }
    return;
  }
  if (value && typeof value === 'object') walkObject(value as Record<string, unknown>, path, state, {});
}

function walkObject(object: Record<string, unknown>, path: string, state: Walk, row: { array?: string; index?: number }): void {
  for (const [key, child] of Object.entries(object)) {
    if (state.own.length >= state.limit) return;
    walk(child, childPath(path, key), state, { field: key, row: path, ...row });
  }
}

/** A text in a tool result: a knowledge passage, a tool's explanation. */
export interface Text {
  call: string;
  path: string;
  text: string;
}

/** Texts read per call, and the longest read whole. */
const TEXTS_PER_CALL = 500;
const TEXT_CHARACTERS = 20_000;

/**
 * The strings of every result that may state a figure (they hold a digit), in call order.
 *
 * @example
 * textsOf([{ id: 'call_1', name: 'search_knowledge', result: { hits: [{ text: 'Adding 100 EUR and 100 USD…' }] } }])
 * // [{ call: 'call_1', path: 'hits[0].text', text: 'Adding 100 EUR and 100 USD…' }]
 */
export function textsOf(results: ToolResult[]): Text[] {
  const texts: Text[] = [];
  for (const { id, result } of results) {
    const own: Text[] = [];
    const visit = (value: unknown, path: string): void => {
      if (own.length >= TEXTS_PER_CALL) return;
      if (typeof value === 'string') {
        if (/\d/.test(value)) own.push({ call: id, path, text: value.slice(0, TEXT_CHARACTERS) });
      } else if (Array.isArray(value)) {
        for (let index = 0; index < value.length && own.length < TEXTS_PER_CALL; index += 1) visit(value[index], `${path}[${index}]`);
      }
      else if (value && typeof value === 'object') for (const [key, child] of Object.entries(value)) visit(child, childPath(path, key));
    };
    visit(result, '');
    texts.push(...own);
  }
  return texts;
}

/** 'rows[3].amount', or rows[3]["net amount"] for a key that is no identifier. */
function childPath(path: string, key: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${path}[${JSON.stringify(key)}]`;
  return path ? `${path}.${key}` : key;
}
