/**
 * Loads the catalog YAML, validates it with zod and checks it against the database,
 * reporting every problem with the file, the line and the path inside the document.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, isNode, type Document } from 'yaml';
import { ConfigurationError } from '../errors/index.ts';
import { cachedYaml, rememberYaml } from '../shared/yamlCache.ts';
import { buildCatalog, type Catalog } from './catalog.ts';
import { resolveConnections } from './catalogConnections.ts';
import { catalogSchema, type CatalogDocument } from './schema.ts';

type Problem = { path: (string | number)[]; message: string };

export interface LoadCatalogOptions {
  /**
   * Columns of a table on a connection; undefined when the table does not exist, 'unavailable'
   * when the connection could not be reached (its sources are then not checked: they answer
   * `source_unavailable` until it is back).
   */
  columnsOf?: (table: string, connection: string) => string[] | undefined | 'unavailable';
  /** Where `${VARIABLE}`s in connection URLs are read (default: process.env). */
  environment?: NodeJS.ProcessEnv;
}

/**
 * Reads and validates the catalog file.
 * @throws ConfigurationError listing each problem as `file:line path: message`.
 */
export function loadCatalog(filePath: string, options: LoadCatalogOptions = {}): Catalog {
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch (error) {
    throw new ConfigurationError(`Catalog file ${filePath} cannot be read: ${(error as Error).message}. Set CATALOG to the catalog YAML file.`);
  }
  // A text that parsed before is read back from the cache (a tenth of a start); the YAML
  // document, with its line numbers, is only needed to report problems.
  const cached = cachedYaml(text);
  let parsedDocument: ParsedDocument | undefined;
  const document = () => (parsedDocument ??= parseYaml(text, filePath));
  const value = cached ? cached.value : document().yaml.toJS();
  const parsed = catalogSchema.safeParse(value);
  const connections = parsed.success ? resolveConnections(parsed.data.connections, filePath, options.environment ?? process.env) : { specs: [], problems: [] };
  const problems: Problem[] = parsed.success
    ? [...connections.problems, ...crossCheck(parsed.data, options)]
    : parsed.error.issues.map((issue) => ({ path: issue.path as (string | number)[], message: issue.message }));
  if (problems.length > 0) {
    const { yaml, lineCounter } = document();
    const lines = problems.map((p) => `  ${filePath}:${lineOf(yaml, lineCounter, p.path)} ${p.path.join('.') || '(root)'}: ${p.message}`);
    throw new ConfigurationError(`Catalog ${filePath} is invalid:\n${lines.join('\n')}`);
  }
  if (!cached) rememberYaml(text, value);
  return buildCatalog(parsed.data as CatalogDocument, filePath, connections.specs);
}

interface ParsedDocument {
  yaml: Document;
  lineCounter: LineCounter;
}

/** The catalog text as a YAML document with line numbers; @throws ConfigurationError when it is not valid YAML. */
function parseYaml(text: string, filePath: string): ParsedDocument {
  const lineCounter = new LineCounter();
  const yaml = parseDocument(text, { lineCounter, prettyErrors: true });
  if (yaml.errors.length > 0) {
    const lines = yaml.errors.map((e) => `  ${filePath}:${e.linePos?.[0]?.line ?? '?'}: ${e.message.split('\n')[0]}`);
    throw new ConfigurationError(`Catalog ${filePath} is not valid YAML:\n${lines.join('\n')}`);
  }
  return { yaml, lineCounter };
}

/** References inside the catalog, and tables/columns in the database, must exist. */
function crossCheck(document: CatalogDocument, options: LoadCatalogOptions): Problem[] {
  const problems: Problem[] = [];
  for (const [name, source] of Object.entries(document.sources)) {
    const at = (...rest: (string | number)[]) => ['sources', name, ...rest];
    const dimensions = Object.keys(source.dimensions);
    const measures = Object.keys(source.measures);
    for (const [measureName, measure] of Object.entries(source.measures)) {
      if (measure.currency_dimension && !source.dimensions[measure.currency_dimension]) {
        problems.push({
          path: at('measures', measureName, 'currency_dimension'),
          message: `'${measure.currency_dimension}' is not a dimension of this source (dimensions: ${dimensions.join(', ')})`,
        });
      }
    }
    problems.push(...periodFormatProblems(name, source, at));
    (source.defaults.measures ?? []).forEach((measureName, index) => {
      if (!source.measures[measureName]) {
        problems.push({ path: at('defaults', 'measures', index), message: `'${measureName}' is not a measure of this source (measures: ${measures.join(', ')})` });
      }
    });
    for (const dimensionName of Object.keys(source.defaults.filters ?? {})) {
      if (!source.dimensions[dimensionName]) {
        problems.push({ path: at('defaults', 'filters', dimensionName), message: `'${dimensionName}' is not a dimension of this source (dimensions: ${dimensions.join(', ')})` });
      }
    }
    if (source.connection !== 'default' && !document.connections[source.connection]) {
      problems.push({ path: at('connection'), message: `'${source.connection}' is not a connection of the catalog (connections: ${['default', ...Object.keys(document.connections)].join(', ')})` });
      continue;
    }
    if (options.columnsOf) {
      const columns = options.columnsOf(source.table, source.connection);
      if (columns === 'unavailable') continue;
      if (!columns) {
        problems.push({ path: at('table'), message: `table '${source.table}' does not exist on connection '${source.connection}'` });
        continue;
      }
      const known = new Set(columns);
      const checkColumn = (column: string | undefined, path: (string | number)[]) => {
        if (column && !known.has(column)) {
          problems.push({ path, message: `column '${column}' does not exist in table '${source.table}' (columns: ${columns.join(', ')})` });
        }
      };
      for (const [dimensionName, dimension] of Object.entries(source.dimensions)) {
        checkColumn(dimension.column, at('dimensions', dimensionName, 'column'));
        checkColumn(dimension.year_column, at('dimensions', dimensionName, 'year_column'));
      }
      for (const [measureName, measure] of Object.entries(source.measures)) checkColumn(measure.column, at('measures', measureName, 'column'));
    }
  }
  return problems;
}

/**
 * A period dimension's declared `format` goes with type: period, and year_period with the
 * column holding the year: the workers read every format through a computed YYYYPPP column
 * (src/data/periodColumns.ts), which needs both.
 */
function periodFormatProblems(name: string, source: CatalogDocument['sources'][string], at: (...rest: (string | number)[]) => (string | number)[]): Problem[] {
  const problems: Problem[] = [];
  for (const [dimensionName, dimension] of Object.entries(source.dimensions)) {
    const here = (key: string) => at('dimensions', dimensionName, key);
    if (dimension.format !== undefined && dimension.type !== 'period') problems.push({ path: here('format'), message: 'format is for period dimensions only (type: period)' });
    if (dimension.year_column !== undefined && dimension.format !== 'year_period') problems.push({ path: here('year_column'), message: 'year_column goes with format: year_period only' });
    if (dimension.format === 'year_period' && dimension.year_column === undefined) problems.push({ path: here('format'), message: 'format year_period needs year_column (the column holding the fiscal year)' });
  }
  return problems;
}

/** Line of the deepest node of `path` that exists in the YAML document. */
function lineOf(document: Document, lineCounter: LineCounter, path: (string | number)[]): number | string {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node = depth === 0 ? document.contents : document.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return '?';
}
