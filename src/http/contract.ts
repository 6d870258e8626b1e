/**
 * openapi.yaml as the one source of truth for requests: every JSON body and query string is
 * validated against the schema the spec declares for its operation before a route sees it.
 * A request the spec rejects gets a 400 problem listing each issue with its path. Routes do
 * not validate again: each limit (message length, locale, session_id, page sizes) lives in the
 * spec only. Two extensions sharpen it: `x-error-messages` on a schema (keyword → message) words
 * a failure for people, and `x-strict-query: true` on an operation refuses unknown parameters.
 */
import type { RequestHandler } from 'express';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import { readYamlFile } from '../shared/yamlCache.ts';
import { once } from '../shared/once.ts';
import { sendProblem } from './problem.ts';

type Json = Record<string, any>;

interface Operation {
  method: string;
  pattern: RegExp;
  /** The operation's validators, compiled on its first request (see validateAgainstSpec). */
  validators: () => Promise<{ body: ValidateFunction | undefined; query: ValidateFunction | undefined }>;
}

/**
 * An Ajv holding the spec (as `openapi#`), coercing query-string text to the schema's types when
 * `coerceTypes`. Ajv is imported here, on the first request with a body or query to check: its
 * 300 KB of code were parsed at every start, and most processes never validate a request.
 */
async function specAjv(spec: Json, coerceTypes: boolean): Promise<Ajv2020> {
  // Both are CommonJS: `default` is their module.exports under Node and in the build alike (named exports are Node's alone).
  const [{ default: ajvExports }, { default: formats }] = await Promise.all([import('ajv/dist/2020.js'), import('ajv-formats')]);
  const Ajv = ajvExports.Ajv2020;
  const addFormats = formats as unknown as FormatsPlugin;
  // verbose: errors carry their schema, so a schema's `x-error-messages` can word them.
  // maxLength counts characters (code points), not UTF-16 units: an emoji is one character.
  const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes, verbose: true });
  addFormats(ajv);
  ajv.addSchema({ ...spec, $id: 'openapi' });
  return ajv;
}

/** What a failed check is about: the JSON body, or the query string (whose members are parameters). */
type Part = 'body' | 'query';

/**
 * The validating middleware for the spec's request schemas. Each operation's schemas are compiled
 * once, on its first request: compiling all of them took a fifth of the service's start, and most
 * processes (a test, an MCP stdio server) see a few operations at most.
 */
export function validateAgainstSpec(specPath: string): RequestHandler {
  // Parsed once per content of the file: the parse was a fifth of the service's start.
  const spec = readYamlFile(specPath) as Json;
  // Made on the first request that needs one: adding the spec (checked against JSON Schema's
  // meta-schema) was another sixth of the start.
  const ajv = once(() => specAjv(spec, false));
  // Query strings arrive as text: their validator coerces "20" to 20 as the schema asks.
  const queryAjv = once(() => specAjv(spec, true));

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(spec.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const pointer = `openapi#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`;
      const validators = once(async () => {
        const body = (operation as Json).requestBody?.content?.['application/json'] ? (await ajv()).compile({ $ref: `${pointer}/requestBody/content/application~1json/schema` }) : undefined;
        const parameters = [...((item as Json).parameters ?? []), ...((operation as Json).parameters ?? [])]
          .map((p: Json) => (p.$ref ? resolve(spec, p.$ref) : p))
          .filter((p: Json) => p.in === 'query');
        const query = parameters.length
          ? (await queryAjv()).compile({
              type: 'object',
              properties: Object.fromEntries(parameters.map((p: Json) => [p.name, p.schema ?? {}])),
              required: parameters.filter((p: Json) => p.required).map((p: Json) => p.name),
              ...((operation as Json)['x-strict-query'] === true ? { additionalProperties: false } : {}),
            })
          : undefined;
        return { body, query };
      });
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      operations.push({ method: method.toUpperCase(), pattern, validators });
    }
  }

  return async (request, response, next) => {
    const operation = operations.find((op) => op.method === request.method && op.pattern.test(request.path));
    if (!operation) return next();
    const validate = await operation.validators();
    const errors: { path: string; message: string }[] = [];
    if (validate.query) {
      const query = { ...(request.query as Json) };
      if (!validate.query(query)) errors.push(...describe(validate.query.errors, 'query', request.query as Json));
    }
    if (validate.body && request.body !== undefined && request.is('application/json')) {
      if (!validate.body(request.body)) errors.push(...describe(validate.body.errors, 'body', request.body));
    }
    if (errors.length === 0) return next();
    sendProblem(response, 'invalidRequest', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
  };
}

function resolve(spec: Json, ref: string): Json {
  return ref.replace(/^#\//, '').split('/').reduce((node: Json, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
}

/**
 * Ajv errors as {path, message}: the schema's `x-error-messages` wording when it has one, else
 * Ajv's. An unknown query parameter is named as the path; a repeated one "must be given once".
 */
function describe(errors: ErrorObject[] | null | undefined, part: Part, data: unknown): { path: string; message: string }[] {
  const root = `(${part})`;
  const seen = new Set<string>();
  const described: { path: string; message: string }[] = [];
  for (const error of errors ?? []) {
    const base = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const worded = (error.parentSchema as Json | undefined)?.['x-error-messages']?.[error.keyword] as string | undefined;
    let entry: { path: string; message: string };
    if (error.keyword === 'required') entry = { path: [base, (error.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.'), message: 'is required' };
    else if (error.keyword === 'additionalProperties') {
      const name = (error.params as { additionalProperty: string }).additionalProperty;
      entry = part === 'query' && !base ? { path: name, message: 'is not a parameter of this operation' } : { path: base || root, message: `unknown property '${name}'` };
    } else if (['if', 'anyOf', 'oneOf', 'allOf'].includes(error.keyword)) continue;
    else if (part === 'query' && base && Array.isArray((data as Json | undefined)?.[base])) entry = { path: base, message: 'must be given once' };
    else entry = { path: base || root, message: worded ?? error.message ?? 'is invalid' };
    const key = `${entry.path}|${entry.message}`;
    if (!seen.has(key)) described.push(entry), seen.add(key);
  }
  return described;
}
