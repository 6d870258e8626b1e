/**
 * The logical names of a catalog draft: snake_case names from physical column and table names
 * (the catalog's logical-name rule), made unique within a source or a catalog. Shared by the
 * column guesses (columnRole.ts) and the source drafts (guess.ts).
 */

/**
 * A snake_case logical name from a column or table name (the catalog's logical-name rule).
 * @example
 * logicalName('CompCode'); // 'comp_code'
 * logicalName('2nd_Value'); // 'c_2nd_value'
 */
export function logicalName(physical: string): string {
  const snake = physical
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (snake === '') return 'column';
  return /^[a-z]/.test(snake) ? snake : `c_${snake}`;
}

/**
 * `name`, or `name_2`, `name_3`… when taken; records the name as taken.
 * @example
 * const used = new Set(['amount']);
 * uniqueName('amount', used); // 'amount_2'
 */
export function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  for (let index = 2; used.has(candidate); index += 1) candidate = `${name}_${index}`;
  used.add(candidate);
  return candidate;
}
