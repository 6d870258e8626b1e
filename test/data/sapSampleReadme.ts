/**
 * Reads data/sap-sample/README.md's tables and recomputes every figure in them with SQL written
 * here, independently of the generator, on any engine (SQLite, DuckDB over Parquet or CSV,
 * PostgreSQL). The SQL is the portable subset the four share; values from the README are
 * validated before they go into it.
 */
export interface Engine {
  name: string;
  all(sql: string): Promise<Record<string, unknown>[]>;
}

/** One README cell and what SQL made of it. */
export interface Check {
  where: string;
  readme: string;
  sql: string;
}

type Row = Record<string, string>;

/**
 * `### heading` → the rows of the first table under it, as header → cell.
 * @example
 * readmeTables('### Rows\n\n| table | rows |\n| --- | --- |\n| t001 | 4 |\n').get('Rows'); // [{ table: 't001', rows: '4' }]
 */
export function readmeTables(markdown: string): Map<string, Row[]> {
  const tables = new Map<string, Row[]>();
  let heading = '';
  let header: string[] | undefined;
  let state: 'before' | 'in' | 'done' = 'before';
  for (const line of markdown.split('\n')) {
    if (line.startsWith('#')) {
      heading = line.replace(/^#+\s*/, '');
      state = 'before';
    } else if (line.startsWith('|') && state !== 'done') {
      const cells = line.slice(1, -1).split('|').map((cell) => cell.trim());
      if (state === 'before') {
        header = cells;
        state = 'in';
        tables.set(heading, []);
      } else if (!cells.every((cell) => /^-+$/.test(cell))) {
        tables.get(heading)!.push(Object.fromEntries(header!.map((name, i) => [name, cells[i] ?? ''])));
      }
    } else if (state === 'in') {
      state = 'done';
    }
  }
  return tables;
}

const DECIMALS: Record<string, number> = { JPY: 0 }; // ISO 4217 minor units; the others have 2
const decimalsOf = (currency: string) => DECIMALS[currency] ?? 2;
const rounded = (value: unknown, currency: string) => Math.round(Number(value ?? 0) * 10 ** decimalsOf(currency)) / 10 ** decimalsOf(currency);
/**
 * An amount as the README writes it, rounded to the currency's minor unit.
 * @example
 * money(-87900, 'INR'); // '-87,900.00'
 */
export const money = (value: unknown, currency: string) =>
  rounded(value, currency).toLocaleString('en-US', { minimumFractionDigits: decimalsOf(currency), maximumFractionDigits: decimalsOf(currency) });
const percent = (part: number, whole: number) => ((part / Math.abs(whole)) * 100).toFixed(2);

const safe = (value: string, pattern: RegExp) => {
  if (!pattern.test(value)) throw new Error(`unexpected README value ${JSON.stringify(value)}`);
  return value;
};
const company = (value: string | undefined) => `bukrs = '${safe(value ?? '', /^[A-Z]{2}\d{2}$/)}'`;
const account = (value: string | undefined) => `CAST(hkont AS VARCHAR) = '${safe(value ?? '', /^\d{6}$/)}'`;
const month = (value: string | undefined) => Number(safe(value ?? '', /^\d{6}$/));
const REVENUE = "CAST(hkont AS VARCHAR) IN ('400000', '410000')";
const DISTINCT_PLAN = '(SELECT DISTINCT bukrs, gjahr_monat, hkont, plan_wert, waers FROM gl_plan) d';

/**
 * First and last month of a fiscal year (April–March, named by the year it starts in) or of one of its quarters.
 * @example
 * fiscalRange('FY2024'); // [202404, 202503]
 * fiscalRange('Q4 FY2024'); // [202501, 202503]
 */
export function fiscalRange(label: string): [number, number] {
  const match = /^(?:Q([1-4]) )?FY(\d{4})$/.exec(label);
  if (!match) throw new Error(`not a fiscal year or quarter: ${label}`);
  const fy = Number(match[2]);
  if (!match[1]) return [fy * 100 + 4, (fy + 1) * 100 + 3];
  const start = [fy * 100 + 4, fy * 100 + 7, fy * 100 + 10, (fy + 1) * 100 + 1][Number(match[1]) - 1]!;
  return [start, start + 2];
}

/**
 * Every figure of the README's tables, recomputed on `engine`.
 * @example
 * const checks = await checkReadme(sqliteEngine, readmeTables(readme));
 * checks.filter((check) => check.readme !== check.sql); // []
 */
export async function checkReadme(engine: Engine, tables: Map<string, Row[]>): Promise<Check[]> {
  const checks: Check[] = [];
  const one = async (sql: string) => Object.values((await engine.all(sql))[0] ?? {})[0];
  const check = (where: string, readme: string | undefined, sql: unknown) => checks.push({ where, readme: readme ?? '(missing)', sql: String(sql) });
  const table = (heading: string) => {
    const rows = tables.get(heading);
    if (!rows || rows.length === 0) throw new Error(`data/sap-sample/README.md has no table under "${heading}"`);
    return rows;
  };
  const currencyOf = async (bukrs: string) => String(await one(`SELECT waers FROM t001 WHERE ${company(bukrs)}`));
  const cell = async (r: Row) => {
    const where = `${company(r.company)} AND gjahr_monat = ${month(r.month)} AND ${account(r.account)}`;
    const [actual] = await engine.all(`SELECT COUNT(*) AS n, SUM(hsl) AS actual FROM gl_extract WHERE ${where}`);
    return { lines: Number(actual!.n), actual: Number(actual!.actual ?? 0), budget: Number(await one(`SELECT SUM(plan_wert) FROM ${DISTINCT_PLAN} WHERE ${where}`)) };
  };

  for (const r of table('Rows')) check(`rows of ${r.table}`, r.rows, await one(`SELECT COUNT(*) FROM ${safe(r.table ?? '', /^\w+$/)}`));

  for (const r of table('Totals per company and fiscal year')) {
    const [from, to] = fiscalRange(r['fiscal year'] ?? '');
    const cur = await currencyOf(r.company!);
    const where = `${company(r.company)} AND gjahr_monat BETWEEN ${from} AND ${to}`;
    const at = `${r.company} ${r['fiscal year']}`;
    const [gl] = await engine.all(`SELECT COUNT(*) AS n, SUM(CASE WHEN ${REVENUE} THEN hsl ELSE 0 END) AS revenue, SUM(CASE WHEN ${REVENUE} THEN 0 ELSE hsl END) AS expenses, SUM(hsl) AS result FROM gl_extract WHERE ${where}`);
    check(`${at} currency`, r.currency, cur);
    check(`${at} months`, r.months, `${from}–${to}`);
    check(`${at} GL lines`, r['GL lines'], Number(gl!.n));
    for (const measure of ['revenue', 'expenses', 'result']) check(`${at} ${measure}`, r[measure], money(gl![measure], cur));
    check(`${at} budget`, r.budget, money(await one(`SELECT SUM(plan_wert) FROM gl_plan WHERE ${where}`), cur));
    check(`${at} budget without duplicates`, r['budget without duplicates'], money(await one(`SELECT SUM(plan_wert) FROM ${DISTINCT_PLAN} WHERE ${where}`), cur));
  }

  for (const r of table('Actual vs budget per company and fiscal quarter')) {
    const [from, to] = fiscalRange(r.quarter ?? '');
    const cur = await currencyOf(r.company!);
    const where = `${company(r.company)} AND gjahr_monat BETWEEN ${from} AND ${to}`;
    const actual = rounded(await one(`SELECT SUM(hsl) FROM gl_extract WHERE ${where}`), cur);
    const budget = rounded(await one(`SELECT SUM(plan_wert) FROM gl_plan WHERE ${where}`), cur);
    const at = `${r.company} ${r.quarter}`;
    check(`${at} currency`, r.currency, cur);
    check(`${at} months`, r.months, `${from}–${to}`);
    check(`${at} actual`, r.actual, money(actual, cur));
    check(`${at} budget`, r.budget, money(budget, cur));
    check(`${at} variance`, r.variance, money(actual - budget, cur));
    check(`${at} variance %`, r['variance %'], percent(actual - budget, budget));
  }

  for (const r of table('Revenue per company and fiscal quarter, FY2024')) {
    const [from, to] = fiscalRange(r.quarter ?? '');
    const cur = await currencyOf(r.company!);
    const where = `${company(r.company)} AND gjahr_monat BETWEEN ${from} AND ${to} AND ${REVENUE}`;
    const at = `${r.company} ${r.quarter}`;
    check(`${at} currency`, r.currency, cur);
    check(`${at} months`, r.months, `${from}–${to}`);
    check(`${at} revenue`, r.revenue, money(await one(`SELECT SUM(hsl) FROM gl_extract WHERE ${where}`), cur));
    check(`${at} budget revenue`, r['budget revenue'], money(await one(`SELECT SUM(plan_wert) FROM gl_plan WHERE ${where}`), cur));
  }

  const [fyFrom, fyTo] = fiscalRange('FY2025');
  for (const r of table('Actual and budget per company and account, FY2025')) {
    const cur = await currencyOf(r.company!);
    const where = `${company(r.company)} AND ${account(r.account)} AND gjahr_monat BETWEEN ${fyFrom} AND ${fyTo}`;
    const at = `${r.company} ${r.account} FY2025`;
    check(`${at} text`, r.txt50, await one(`SELECT txt50 FROM skat WHERE CAST(saknr AS VARCHAR) = '${safe(r.account ?? '', /^\d{6}$/)}'`));
    check(`${at} actual`, r.actual, money(await one(`SELECT SUM(hsl) FROM gl_extract WHERE ${where}`), cur));
    check(`${at} budget`, r.budget, money(await one(`SELECT SUM(plan_wert) FROM gl_plan WHERE ${where}`), cur));
  }

  const centres = table('Result per profit centre, FY2025');
  check('profit centres', centres.map((r) => `${r.company} ${r['profit centre']}`).sort().join(', '), (await engine.all('SELECT DISTINCT bukrs, prctr FROM gl_extract')).map((r) => `${r.bukrs} ${r.prctr}`).sort().join(', '));
  for (const r of centres) {
    const cur = await currencyOf(r.company!);
    const where = `${company(r.company)} AND prctr = '${safe(r['profit centre'] ?? '', /^[A-Z]{2}-P\d{3}$/)}' AND gjahr_monat BETWEEN ${fyFrom} AND ${fyTo}`;
    const [row] = await engine.all(`SELECT COUNT(*) AS n, SUM(hsl) AS result FROM gl_extract WHERE ${where}`);
    check(`${r.company} ${r['profit centre']} GL lines`, r['GL lines'], Number(row!.n));
    check(`${r.company} ${r['profit centre']} result`, r.result, money(row!.result, cur));
  }

  const duplicates = await engine.all('SELECT bukrs, gjahr_monat, hkont, plan_wert, waers, COUNT(*) AS n FROM gl_plan GROUP BY bukrs, gjahr_monat, hkont, plan_wert, waers HAVING COUNT(*) > 1');
  const shown = table('Duplicate lines in gl_plan').map((r) => [r.bukrs, r.gjahr_monat, r.hkont, r.plan_wert, r.waers, r.rows].join(' '));
  const found = duplicates.map((d) => [d.bukrs, d.gjahr_monat, d.hkont, money(d.plan_wert, String(d.waers)), d.waers, d.n].map(String).join(' ')).sort();
  check('duplicate lines in gl_plan', [...shown].sort().join('; '), found.join('; '));
  for (const line of shown) checks.push({ where: 'duplicate line', readme: line, sql: found.includes(line) ? line : '(not a duplicate)' });

  const planted = new Set<string>();
  for (const r of table('Strong deviations from budget')) {
    const cur = await currencyOf(r.company!);
    const { actual, budget } = await cell(r);
    const at = `${r.company} ${r.month} ${r.account}`;
    planted.add(at);
    check(`${at} actual`, r.actual, money(actual, cur));
    check(`${at} budget`, r.budget, money(budget, cur));
    check(`${at} variance`, r.variance, money(actual - budget, cur));
    check(`${at} % of budget`, r['% of budget'], percent(rounded(actual, cur) - rounded(budget, cur), rounded(budget, cur)));
  }

  let previous: number | undefined;
  for (const r of table('Declining export revenue')) {
    const cur = await currencyOf(r.company!);
    const { actual, budget } = await cell(r);
    const at = `${r.company} ${r.month} ${r.account}`;
    check(`${at} actual`, r.actual, money(actual, cur));
    check(`${at} budget`, r.budget, money(budget, cur));
    if (previous !== undefined) {
      planted.add(at);
      check(`${at} change`, r['change vs previous month'], money(actual - previous, cur));
      check(`${at} change %`, r['change %'], percent(rounded(actual, cur) - rounded(previous, cur), rounded(previous, cur)));
    }
    previous = actual;
  }

  for (const r of table('Missing postings')) {
    const cur = await currencyOf(r.company!);
    const { lines, actual, budget } = await cell(r);
    const at = `${r.company} ${r.month} ${r.account}`;
    planted.add(at);
    check(`${at} GL lines`, r['GL lines'], lines);
    check(`${at} actual`, r.actual, money(actual, cur));
    check(`${at} budget`, r.budget, money(budget, cur));
  }

  // "Every other cell is within 3 % of its budget": the cells off by more are exactly the planted ones.
  const off = await engine.all(`SELECT p.bukrs, p.gjahr_monat, p.hkont FROM ${DISTINCT_PLAN.replace(/ d$/, ' p')}
    LEFT JOIN (SELECT bukrs, gjahr_monat, hkont, SUM(hsl) AS actual FROM gl_extract GROUP BY bukrs, gjahr_monat, hkont) a
      ON a.bukrs = p.bukrs AND a.gjahr_monat = p.gjahr_monat AND a.hkont = p.hkont
    WHERE ABS(COALESCE(a.actual, 0) - p.plan_wert) > 0.03 * ABS(p.plan_wert)`);
  check('cells more than 3 % off budget', [...planted].sort().join(', '), off.map((o) => `${o.bukrs} ${o.gjahr_monat} ${o.hkont}`).sort().join(', '));
  return checks;
}
