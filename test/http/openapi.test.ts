import { mkdtempSync } from 'node:fs';
import os from 'node:os';
/**
 * Contract test: openapi.yaml against the real app, in-process. Every response below must have
 * a status the spec declares for its route, the declared content type, and a body that
 * validates against the schema the spec gives for that route + status + content type
 * (read from `paths`, following `$ref`s, never restated here). Also checks that the spec and
 * the app list the same routes, that the spec's examples are valid, and that the problem types
 * and tool error codes in the spec are the ones the code uses.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FormatsPlugin } from 'ajv-formats';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config/config.ts';
import { problemTypes } from '../../src/http/problem.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';

type Json = Record<string, unknown>;
type Method = 'get' | 'post' | 'delete';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const specText = readFileSync(path.join(root, 'openapi.yaml'), 'utf8');
const spec = parseYaml(specText) as Json;

// ajv-formats is CommonJS: depending on the loader the default import is the plugin or its module.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;

/** The whole document is registered under this id, so `#/components/...` refs resolve inside it. */
const SPEC_ID = 'https://analyst-agent.test/openapi.yaml';
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec, SPEC_ID);

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Skills and tools are never listed here: they come from the running service. `GET /skills`
 * gives the skills and their tools; the registry adds the built-in `load_skill`, which belongs to
 * no skill. Every tool the service registers, in registration order (skill tools, then built-ins).
 */
function registeredTools(): string[] {
  return service.registry.names();
}

/** The built-in tools (not listed by `GET /skills`) with their input schemas. */
function builtinTools(): { name: string; inputSchema: Record<string, unknown> }[] {
  return service.registry
    .list()
    .filter((tool) => tool.builtin === true)
    .map((tool) => ({ name: tool.tool.name, inputSchema: tool.inputSchema }));
}

interface SkillsBody {
  skills: { name: string; description: string; version: string; tags: string[]; enabled: boolean; tools: { name: string; input_schema: Record<string, unknown>; output_schema: Record<string, unknown> }[] }[];
}

// ---------------------------------------------------------------------------------------------
// Reading the spec

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function pointerOf(...segments: string[]): string {
  return segments.map((s) => `/${escapePointer(s)}`).join('');
}

/** The node at a JSON pointer of the spec (`/paths/~1chat/post`). */
function at(pointer: string): unknown {
  let node: unknown = spec;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node)) throw new Error(`openapi.yaml: ${pointer} does not exist (stopped at '${key}')`);
    node = node[key];
  }
  if (node === undefined) throw new Error(`openapi.yaml: ${pointer} does not exist`);
  return node;
}

/** Follows local `$ref`s; returns the node and the pointer it really lives at. */
function deref(pointer: string): { node: Json; pointer: string } {
  let current = pointer;
  for (let hops = 0; hops < 10; hops += 1) {
    const node = at(current);
    if (!isObject(node)) throw new Error(`openapi.yaml: ${current} is not an object`);
    const ref = node.$ref;
    if (typeof ref !== 'string') return { node, pointer: current };
    if (!ref.startsWith('#/')) throw new Error(`openapi.yaml: only local $refs are supported, got ${ref}`);
    current = ref.slice(1);
  }
  throw new Error(`openapi.yaml: $ref cycle at ${pointer}`);
}

const validators = new Map<string, ValidateFunction>();

/** A validator for the schema at `pointer` in the spec, compiled once. */
function validatorAt(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    at(pointer); // fail clearly when the pointer is wrong
    const fragment = pointer.split('/').map(encodeURIComponent).join('/');
    validate = ajv.compile({ $ref: `${SPEC_ID}#${fragment}` });
    validators.set(pointer, validate);
  }
  return validate;
}

function errorsOf(validate: ValidateFunction): string {
  return ajv.errorsText(validate.errors, { separator: '\n  ' });
}

function expectValid(pointer: string, value: unknown, what: string): void {
  const validate = validatorAt(pointer);
  const valid = validate(value);
  expect(valid, `${what} does not match ${pointer}:\n  ${errorsOf(validate)}\n${JSON.stringify(value, null, 2).slice(0, 2000)}`).toBe(true);
}

const paths = spec.paths as Record<string, Json>;

/** Every operation of the spec: `POST /tools/{name}` … */
const operations: { method: Method; template: string }[] = Object.entries(paths).flatMap(([template, item]) =>
  HTTP_METHODS.filter((method) => isObject(item[method])).map((method) => ({ method: method as Method, template })),
);

function templateRegex(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

/** The spec path template a concrete request path belongs to, if any. */
function templateFor(method: Method, requestPath: string): string | undefined {
  const pathname = requestPath.split('?')[0]!;
  return operations.find((op) => op.method === method && templateRegex(op.template).test(pathname))?.template;
}

// ---------------------------------------------------------------------------------------------
// Checking responses

const exercised = new Set<string>();

/** The raw body: superagent keeps `text` for text and JSON types, a custom parser puts it in `body`. */
function textOf(response: supertest.Response): string {
  return typeof response.text === 'string' ? response.text : typeof response.body === 'string' ? response.body : '';
}

function mediaTypeOf(response: supertest.Response): string {
  return String(response.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Checks a response object of the spec (at `pointer`) against a real response. */
function expectResponseMatches(pointer: string, response: supertest.Response, what: string): void {
  const { node: declared, pointer: real } = deref(pointer);
  const content = (declared.content ?? {}) as Json;
  const mediaType = mediaTypeOf(response);
  if (Object.keys(content).length === 0) {
    // A response the spec declares without content (204) must have none.
    expect(textOf(response), `${what}: ${real} declares no content`).toBe('');
    return;
  }
  expect(Object.keys(content), `${what}: content type '${mediaType}' is not declared at ${real}`).toContain(mediaType);
  const body = mediaType.endsWith('json') ? (response.body as unknown) : textOf(response);
  expectValid(`${real}${pointerOf('content', mediaType, 'schema')}`, body, `${what} body`);
  for (const [name, header] of Object.entries((declared.headers ?? {}) as Json)) {
    const { node: headerObject, pointer: headerPointer } = deref(`${real}${pointerOf('headers', name)}`);
    const value = response.headers[name.toLowerCase()] as string | undefined;
    if (headerObject.required === true) expect(value, `${what}: header ${name} is required`).toBeDefined();
    if (value !== undefined) expectValid(`${headerPointer}/schema`, value, `${what} header ${name} (${JSON.stringify(header)})`);
  }
}

/**
 * Asserts the expected status, then that the spec declares that status for the route and that
 * content type and body match it. Records the operation as exercised.
 */
function expectSpecResponse(response: supertest.Response, method: Method, requestPath: string, status: number): void {
  const what = `${method.toUpperCase()} ${requestPath} → ${response.status}`;
  expect(response.status, `${what}: ${textOf(response).slice(0, 500)}`).toBe(status);
  const template = templateFor(method, requestPath);
  expect(template, `${method.toUpperCase()} ${requestPath} is not a path of openapi.yaml`).toBeDefined();
  exercised.add(`${method.toUpperCase()} ${template}`);
  const responses = at(pointerOf('paths', template!, method, 'responses')) as Json;
  expect(Object.keys(responses), `${what}: status ${status} is not declared for ${method.toUpperCase()} ${template}`).toContain(String(status));
  expectResponseMatches(pointerOf('paths', template!, method, 'responses', String(status)), response, what);
}

/** Expects a problem document of this type (and the matching status). */
function expectProblem(response: supertest.Response, type: string): Json {
  const body = response.body as Json;
  expect(mediaTypeOf(response)).toBe('application/problem+json');
  expect(body.type).toBe(type);
  expect(body.status).toBe(response.status);
  expect(body.request_id).toBe(response.headers['x-request-id']);
  return body;
}

/** The requestBody schema pointer the spec declares for an operation and content type. */
function requestSchemaPointer(method: Method, template: string, mediaType = 'application/json'): string {
  const { pointer } = deref(pointerOf('paths', template, method, 'requestBody'));
  return `${pointer}${pointerOf('content', mediaType, 'schema')}`;
}

function requestIsValid(method: Method, template: string, body: unknown): boolean {
  return validatorAt(requestSchemaPointer(method, template))(body) as boolean;
}

/**
 * Runs a tool through `POST /tools/{name}`, checks the response against the spec (status, and
 * for 200 the per-tool result branch of ToolRunResponse), then checks the same outcome as the
 * model gets it against the ToolCall schema: a success validates through the tool's branch and
 * fails under another tool's name (the branches really select a schema); a failure validates
 * as `{"error": ToolError}`.
 */
async function runTool(tool: string, args: Json, status: 200 | 422, otherTool = 'list_sources'): Promise<Json> {
  const response = await api.post(`/tools/${tool}`).send(args);
  expectSpecResponse(response, 'post', `/tools/${tool}`, status);
  const body = response.body as Json;
  const toolCall = '/components/schemas/ToolCall';
  if (status === 200) {
    expect(body).toMatchObject({ tool, ok: true });
    const call = { id: 'call_contract_0', name: tool, args, ok: true, result: body.result, duration_ms: body.duration_ms };
    expectValid(toolCall, call, `${tool} result as a ToolCall`);
    expect(validatorAt(toolCall)({ ...call, name: otherTool }), `the ${tool} result must not validate as a ${otherTool} result`).toBe(false);
    return body.result as Json;
  }
  const problem = expectProblem(response, '/problems/tool-error');
  expect(problem).toMatchObject({ tool, ok: false });
  expectValid(toolCall, { id: 'call_contract_1', name: tool, args, ok: false, result: { error: problem.error }, duration_ms: problem.duration_ms }, `${tool} error as a ToolCall`);
  return problem.error as Json;
}

// ---------------------------------------------------------------------------------------------

let service: Service;
let api: ReturnType<typeof supertest>;

beforeAll(async () => {
  const config = loadConfig({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(mkdtempSync(path.join(os.tmpdir(), 'openapi-')), 'app.db') } as NodeJS.ProcessEnv);
  service = await createService(config, silentLogger());
  api = supertest(service.app);
});

afterAll(async () => {
  await service?.close();
});

describe('openapi.yaml: the document', () => {
  it('is OpenAPI 3.1.0 with an info block', () => {
    expect(spec.openapi).toBe('3.1.0');
    const info = spec.info as Json;
    expect(info.title).toEqual(expect.any(String));
    expect(info.version).toBe('0.1.0');
    expect(String(info.description).length).toBeGreaterThan(100);
  });

  it('compiles every component schema and resolves every $ref', () => {
    for (const name of Object.keys((spec.components as Json).schemas as Json)) {
      expect(() => validatorAt(pointerOf('components', 'schemas', name)), name).not.toThrow();
    }
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (isObject(node)) {
        if (typeof node.$ref === 'string') refs.push(node.$ref);
        Object.values(node).forEach(walk);
      }
    };
    walk(spec);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      expect(ref.startsWith('#/'), ref).toBe(true);
      expect(() => at(ref.slice(1)), ref).not.toThrow();
    }
  });

  it('documents an x-request-id header and a description on every response', () => {
    for (const { method, template } of operations) {
      const responses = at(pointerOf('paths', template, method, 'responses')) as Json;
      for (const status of Object.keys(responses)) {
        const { node } = deref(pointerOf('paths', template, method, 'responses', status));
        expect(node.description, `${method} ${template} ${status}`).toEqual(expect.any(String));
        expect(Object.keys((node.headers ?? {}) as Json), `${method} ${template} ${status}`).toContain('x-request-id');
      }
    }
  });

  it('lists exactly the problem types of src/http/problem.ts, each in the description of a response that returns it', () => {
    const declared = (at('/components/schemas/ProblemType') as Json).enum as string[];
    const fromCode = Object.values(problemTypes).map((p) => p.type);
    expect([...declared].sort()).toEqual([...fromCode].sort());

    const descriptions: string[] = [];
    for (const { method, template } of operations) {
      for (const status of Object.keys(at(pointerOf('paths', template, method, 'responses')) as Json)) {
        descriptions.push(String(deref(pointerOf('paths', template, method, 'responses', status)).node.description));
      }
    }
    descriptions.push(String(deref('/components/responses/NotFound').node.description));
    for (const problem of Object.values(problemTypes)) {
      expect(descriptions.some((d) => d.includes(`\`${problem.type}\``) && d.includes(String(problem.status))), problem.type).toBe(true);
    }
  });

  it('lists exactly the tool error codes of src/errors/toolError.ts', () => {
    const source = readFileSync(path.join(root, 'src/errors/toolError.ts'), 'utf8');
    const union = /export type ToolErrorCode =([^;]+);/.exec(source)?.[1] ?? '';
    const fromCode = [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
    expect(fromCode.length).toBeGreaterThan(5);
    const declared = (at('/components/schemas/ToolErrorCode') as Json).enum as string[];
    expect([...declared].sort()).toEqual([...fromCode].sort());
  });

  it('documents registered tools only (load_skill and the bundled skills\' tools): description, path examples, result schemas', () => {
    // A skill added as one folder is described by GET /skills (input and output schemas), not by
    // editing the contract; what the contract does document must exist and be complete.
    const registered = registeredTools();
    const operation = at(pointerOf('paths', '/tools/{name}', 'post')) as Json;
    const description = String(operation.description);
    const documented = [...new Set([...description.matchAll(/\*\*`([a-z][a-z0-9_]*)`\*\*/g)].map((m) => m[1]!))];
    expect(documented).toContain('load_skill');
    expect(documented.length).toBeGreaterThanOrEqual(10);
    for (const tool of documented) expect(registered, tool).toContain(tool);
    const tools = registered.filter((tool) => documented.includes(tool));
    const nameParameter = (operation.parameters as Json[]).find((p) => p.name === 'name')!;
    expect(Object.values(nameParameter.examples as Record<string, { value: string }>).map((e) => e.value)).toEqual(tools);
    // Both ToolRunResponse (by `tool`) and ToolCall (by `name`) pick the result schema per tool.
    for (const [schema, member] of [['ToolRunResponse', 'tool'], ['ToolCall', 'name']] as const) {
      const branches = (at(pointerOf('components', 'schemas', schema, 'allOf')) as Json[]).filter((b) => isObject((b.if as Json).properties) && ((b.if as Json).properties as Json)[member]);
      const branchTools = branches.map((b) => (((b.if as Json).properties as Json)[member] as Json).const as string);
      expect(branchTools, schema).toEqual(tools);
      for (const branch of branches) {
        const ref = (((branch.then as Json).properties as Json).result as Json).$ref as string;
        expect(() => validatorAt(ref.slice(1)), ref).not.toThrow();
      }
    }
  });

  it('has examples that validate against their schemas', () => {
    let checked = 0;
    const checkMediaTypes = (pointer: string, what: string) => {
      const content = (deref(pointer).node.content ?? {}) as Json;
      for (const [mediaType, media] of Object.entries(content)) {
        const mediaPointer = `${deref(pointer).pointer}${pointerOf('content', mediaType)}`;
        for (const name of Object.keys(((media as Json).examples ?? {}) as Json)) {
          const example = deref(`${mediaPointer}${pointerOf('examples', name)}`).node;
          expectValid(`${mediaPointer}/schema`, example.value, `${what} example '${name}'`);
          checked += 1;
        }
      }
    };
    for (const { method, template } of operations) {
      const operation = at(pointerOf('paths', template, method)) as Json;
      if (operation.requestBody) checkMediaTypes(pointerOf('paths', template, method, 'requestBody'), `${method} ${template} request`);
      for (const status of Object.keys(operation.responses as Json)) {
        checkMediaTypes(pointerOf('paths', template, method, 'responses', status), `${method} ${template} ${status}`);
      }
    }
    for (const name of Object.keys((spec.components as Json).responses as Json)) {
      checkMediaTypes(pointerOf('components', 'responses', name), `components.responses.${name}`);
    }
    expect(checked).toBeGreaterThan(20);
  });
});

describe('GET /health, /skills, /openapi.yaml', () => {
  it('GET /health lists the enabled skills of GET /skills', async () => {
    const response = await api.get('/health');
    expectSpecResponse(response, 'get', '/health', 200);
    const skills = ((await api.get('/skills')).body as SkillsBody).skills;
    expect(skills.length).toBeGreaterThan(0);
    expect(response.body).toMatchObject({ status: 'ok', model: { provider: 'offline' }, skills: skills.filter((s) => s.enabled).map((s) => s.name) });
    expect((response.body as { skills: string[] }).skills).toEqual(service.registry.skills.map((s) => s.name));
  });

  it('GET /skills lists every skill and the tools the registry runs (all but the built-ins), with their input schemas', async () => {
    const response = await api.get('/skills');
    expectSpecResponse(response, 'get', '/skills', 200);
    const skills = (response.body as SkillsBody).skills;
    // Enabled skills first, then disabled ones (none here), each group in load order.
    const enabled = skills.filter((s) => s.enabled);
    expect(skills.slice(0, enabled.length)).toEqual(enabled);
    expect(enabled.map((s) => s.name)).toEqual([...enabled.map((s) => s.name)].sort());
    expect(skills.map((s) => s.name)).toEqual([...service.registry.skills, ...service.registry.disabledSkills].map((s) => s.name));
    const tools = skills.flatMap((s) => s.tools.map((t) => t.name));
    const builtins = builtinTools().map((t) => t.name);
    expect(builtins).toEqual(['load_skill']);
    expect(tools).toEqual(registeredTools().filter((name) => !builtins.includes(name)));
    for (const skill of skills) {
      for (const tool of skill.tools) {
        expect(tool.input_schema, tool.name).toEqual(service.registry.get(tool.name)!.inputSchema);
        expect(tool.output_schema, tool.name).toEqual(service.registry.get(tool.name)!.outputSchema);
      }
    }
  });

  it('GET /openapi.yaml serves this document', async () => {
    const response = await api.get('/openapi.yaml').buffer(true).parse((res, callback) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => callback(null, text));
    });
    expectSpecResponse(response, 'get', '/openapi.yaml', 200);
    expect(textOf(response)).toBe(specText);
    const served = parseYaml(textOf(response)) as Json;
    expect(served.openapi).toBe('3.1.0');
    expect(served).toEqual(spec);
  });

  it('GET /metrics serves the Prometheus text format (version 0.0.4) with the request latency series', async () => {
    await api.get('/health');
    const response = await api.get('/metrics');
    expectSpecResponse(response, 'get', '/metrics', 200);
    expect(String(response.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(textOf(response)).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/health",status="200"\} [1-9]/m);
  });

  it('echoes a valid x-request-id and replaces an invalid one', async () => {
    const given = await api.get('/health').set('x-request-id', 'dashboard-7f3a');
    expect(given.headers['x-request-id']).toBe('dashboard-7f3a');
    const replaced = await api.get('/health').set('x-request-id', 'not valid!');
    expectSpecResponse(replaced, 'get', '/health', 200);
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('POST /chat', () => {
  const question = 'compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024';
  let sessionId: string;

  it('answers a question (200) with its tool calls', async () => {
    const body = { message: question };
    expect(requestIsValid('post', '/chat', body)).toBe(true);
    const response = await api.post('/chat').send(body);
    expectSpecResponse(response, 'post', '/chat', 200);
    const answer = response.body as { session_id: string; finished: boolean; stop_reason: string; tool_calls: { name: string; ok: boolean }[] };
    expect(answer.finished).toBe(true);
    expect(answer.stop_reason).toBe('completed');
    expect(answer.tool_calls.some((call) => call.name === 'compare_sources' && call.ok)).toBe(true);
    // The offline planner explains the gap it found: that result went through ExplainDifferenceResult.
    expect(answer.tool_calls.some((call) => call.name === 'explain_difference' && call.ok)).toBe(true);
    sessionId = answer.session_id;
  });

  it('answers a data-quality question (200) with a data_quality tool call, valid through its ToolCall branch', async () => {
    const response = await api.post('/chat').send({ message: 'Why is fi_reporting too high for company 1000 in December?' });
    expectSpecResponse(response, 'post', '/chat', 200);
    const calls = (response.body as { tool_calls: { name: string; ok: boolean }[] }).tool_calls;
    const dataQualityTools = ((await api.get('/skills')).body as SkillsBody).skills.find((s) => s.name === 'data_quality')?.tools.map((t) => t.name) ?? [];
    expect(calls.some((call) => dataQualityTools.includes(call.name) && call.ok), JSON.stringify(calls.map((c) => c.name))).toBe(true);
  });

  it('continues the conversation with its session_id (200)', async () => {
    const body = { message: 'and for company 2000?', session_id: sessionId };
    expect(requestIsValid('post', '/chat', body)).toBe(true);
    const response = await api.post('/chat').send(body);
    expectSpecResponse(response, 'post', '/chat', 200);
    expect((response.body as Json).session_id).toBe(sessionId);
  });

  it('refuses an unknown session_id (404 session-not-found)', async () => {
    const body = { message: question, session_id: randomUUID() };
    expect(requestIsValid('post', '/chat', body)).toBe(true);
    const response = await api.post('/chat').set('x-request-id', 'contract-test-404').send(body);
    expectSpecResponse(response, 'post', '/chat', 404);
    expect(expectProblem(response, '/problems/session-not-found').request_id).toBe('contract-test-404');
  });

  it('refuses invalid JSON (400 invalid-json)', async () => {
    const response = await api.post('/chat').set('Content-Type', 'application/json').send('{"message": ');
    expectSpecResponse(response, 'post', '/chat', 400);
    expectProblem(response, '/problems/invalid-json');
  });

  const invalidBodies: [string, unknown, string][] = [
    ['a missing message', {}, 'message'],
    ['an empty message', { message: '' }, 'message'],
    ['a blank message', { message: '   \n\t' }, 'message'],
    ['a message of the wrong type', { message: 42 }, 'message'],
    ['a message over 8000 characters', { message: 'x'.repeat(8001) }, 'message'],
    ['a session_id that is not a UUID', { message: question, session_id: 'abc' }, 'session_id'],
    ['an unknown property', { message: question, foo: 1 }, '(body)'],
    ['a body that is not an object', ['hello'], '(body)'],
  ];
  it.each(invalidBodies)('refuses %s (400 invalid-request with errors)', async (_label, body, errorPath) => {
    expect(requestIsValid('post', '/chat', body), 'the spec must reject this body too').toBe(false);
    const response = await api.post('/chat').send(body as object);
    expectSpecResponse(response, 'post', '/chat', 400);
    const problem = expectProblem(response, '/problems/invalid-request');
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: errorPath })]));
  });

  it('refuses a body over 64 kB (413 payload-too-large)', async () => {
    const response = await api.post('/chat').send({ message: 'x'.repeat(70_000) });
    expectSpecResponse(response, 'post', '/chat', 413);
    expectProblem(response, '/problems/payload-too-large');
  });

  it('refuses a text/plain body (415 unsupported-media-type)', async () => {
    const response = await api.post('/chat').set('Content-Type', 'text/plain').send(question);
    expectSpecResponse(response, 'post', '/chat', 415);
    expectProblem(response, '/problems/unsupported-media-type');
  });

  it('refuses an unsupported charset (415 unsupported-media-type)', async () => {
    const response = await api.post('/chat').set('Content-Type', 'application/json; charset=x-unknown').send(JSON.stringify({ message: question }));
    expectSpecResponse(response, 'post', '/chat', 415);
    expectProblem(response, '/problems/unsupported-media-type');
  });
});

describe('the web chat', () => {
  it('serves the page, the embed page and script, its assets and vendored libraries per the spec', async () => {
    const page = await api.get('/');
    expectSpecResponse(page, 'get', '/', 200);
    const scripts = [...page.text.matchAll(/(?:src|href)="\/?((?:app|vendor)\/[^"]+)"/g)].map((m) => `/${m[1]!}`);
    expect(scripts.length).toBeGreaterThan(0);
    expectSpecResponse(await api.get('/embed'), 'get', '/embed', 200);
    expectSpecResponse(await api.get('/embed.js'), 'get', '/embed.js', 200);
    const asset = scripts.find((s) => s.startsWith('/app/'))!;
    expectSpecResponse(await api.get(asset), 'get', asset, 200);
    expectSpecResponse(await api.get('/vendor/eventsource-parser.js'), 'get', '/vendor/eventsource-parser.js', 200);
    expectSpecResponse(await api.get('/app/nope.js'), 'get', '/app/nope.js', 404);
    expectSpecResponse(await api.get('/vendor/nope.js'), 'get', '/vendor/nope.js', 404);
    // A skill's page (the close board) and its own files.
    const board = await api.get('/app/checks');
    expectSpecResponse(board, 'get', '/app/checks', 200);
    const boardScript = /src="(month_end_close\/[^"]+)"/.exec(board.text)![1]!;
    expectSpecResponse(await api.get(`/app/${boardScript}`), 'get', `/app/${boardScript}`, 200);
    expectSpecResponse(await api.get('/app/month_end_close/nope.js'), 'get', '/app/month_end_close/nope.js', 404);
  });
});

describe('GET/DELETE /sessions', () => {
  it('lists sessions, returns a history with its turns, deletes, and answers 404 and 400 per the spec', async () => {
    const asked = await api.post('/chat').send({ message: 'Which sources are available?' });
    const id = (asked.body as { session_id: string }).session_id;
    const list = await api.get('/sessions?limit=5');
    expectSpecResponse(list, 'get', '/sessions', 200);
    expect((list.body as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toContain(id);
    const history = await api.get(`/sessions/${id}`);
    expectSpecResponse(history, 'get', `/sessions/${id}`, 200);
    expect((history.body as { turns: { question: string }[] }).turns[0]!.question).toBe('Which sources are available?');
    const bad = await api.get('/sessions?limit=0');
    expectSpecResponse(bad, 'get', '/sessions', 400);
    expectProblem(bad, '/problems/invalid-request');
    const deleted = await api.delete(`/sessions/${id}`);
    expectSpecResponse(deleted, 'delete', `/sessions/${id}`, 204);
    const gone = await api.get(`/sessions/${id}`);
    expectSpecResponse(gone, 'get', `/sessions/${id}`, 404);
    expectProblem(gone, '/problems/session-not-found');
    const goneAgain = await api.delete(`/sessions/${id}`);
    expectSpecResponse(goneAgain, 'delete', `/sessions/${id}`, 404);
  });
});

describe('POST /tools/{name}', () => {
  it('runs list_sources with {} (200)', async () => {
    const response = await api.post('/tools/list_sources').send({});
    expectSpecResponse(response, 'post', '/tools/list_sources', 200);
    const result = (response.body as { result: { sources: { name: string }[] } }).result;
    expect(result.sources.map((s) => s.name)).toEqual(expect.arrayContaining(['fi_reporting', 'bpc_reporting', 'consolidation_mart', 'fi_acquisition']));
  });

  it('runs list_sources without a body (200)', async () => {
    const response = await api.post('/tools/list_sources');
    expectSpecResponse(response, 'post', '/tools/list_sources', 200);
  });

  it('runs query_source (200)', async () => {
    const args = { source: 'fi_reporting', dimensions: ['company'], filters: { period: '2024012' }, order_by: 'amount desc' };
    const response = await api.post('/tools/query_source').send(args);
    expectSpecResponse(response, 'post', '/tools/query_source', 200);
    expect(response.body).toMatchObject({ tool: 'query_source', ok: true, result: { source: 'fi_reporting', row_count: 3 } });
  });

  it('runs compare_sources (200)', async () => {
    const args = { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: '2024012' } };
    const response = await api.post('/tools/compare_sources').send(args);
    expectSpecResponse(response, 'post', '/tools/compare_sources', 200);
    expect(response.body).toMatchObject({ tool: 'compare_sources', ok: true, result: { summary: { aligned_rows: 1, major_diff: 1 } } });
    const result = (response.body as { result: Json }).result;
    expect(result.comparison_id).toMatch(/^cmp_[A-Za-z0-9_-]+$/);
    expect(Object.keys(result)[0]).toBe('comparison_id');
    expect(result.more_differences).toBeUndefined();
  });

  it('runs compare_sources with a small top (200 with more_differences), then pages with list_differences (200)', async () => {
    const args = { source_a: 'consolidation_mart', source_b: 'consolidation_mart', measure: 'amount_gc', align_on: ['company', 'period', 'group_account'], filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' }, top: 3 };
    const compared = await api.post('/tools/compare_sources').send(args);
    expectSpecResponse(compared, 'post', '/tools/compare_sources', 200);
    const comparison = (compared.body as { result: { comparison_id: string; more_differences?: string; top_differences: Json[]; summary: Record<string, number> } }).result;
    expect(comparison.top_differences).toHaveLength(3);
    expect(comparison.more_differences).toContain(comparison.comparison_id);
    const differing = comparison.summary.minor_diff! + comparison.summary.major_diff! + comparison.summary.only_in_a! + comparison.summary.only_in_b!;
    expect(differing).toBeGreaterThan(20);

    const body = { comparison_id: comparison.comparison_id, limit: 5 };
    const first = await api.post('/tools/list_differences').send(body);
    expectSpecResponse(first, 'post', '/tools/list_differences', 200);
    const page = (first.body as { result: { rows: Json[]; has_more: boolean; offset: number; differing_rows: number } }).result;
    expect(page).toMatchObject({ offset: 0, has_more: true, differing_rows: differing });
    expect(page.rows).toHaveLength(5);
    expect(page.rows.slice(0, 3)).toEqual(comparison.top_differences);

    const filtered = await api.post('/tools/list_differences').send({ comparison_id: comparison.comparison_id, offset: 2, limit: 100, status: ['only_in_b'] });
    expectSpecResponse(filtered, 'post', '/tools/list_differences', 200);
    const onlyB = (filtered.body as { result: { rows: { status: string }[]; has_more: boolean; differing_rows: number } }).result;
    expect(onlyB).toMatchObject({ has_more: false, differing_rows: comparison.summary.only_in_b });
    expect(onlyB.rows.every((row) => row.status === 'only_in_b')).toBe(true);
  });

  it('refuses a top over 200 (422 tool-error, invalid_arguments)', async () => {
    const response = await api.post('/tools/compare_sources').send({ source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', top: 201 });
    expectSpecResponse(response, 'post', '/tools/compare_sources', 422);
    expect(expectProblem(response, '/problems/tool-error')).toMatchObject({ error: { code: 'invalid_arguments', issues: [{ path: 'top' }] } });
  });

  it('refuses an unknown comparison_id (422 tool-error, unknown_value, hint to run compare_sources again)', async () => {
    for (const tool of ['list_differences', 'explain_difference']) {
      const response = await api.post(`/tools/${tool}`).send({ comparison_id: 'cmp_doesNotExist' });
      expectSpecResponse(response, 'post', `/tools/${tool}`, 422);
      const problem = expectProblem(response, '/problems/tool-error');
      expect(problem).toMatchObject({ tool, ok: false, error: { code: 'unknown_value', argument: 'comparison_id', value: 'cmp_doesNotExist' } });
      expect((problem.error as Json).hint).toContain('compare_sources');
    }
  });

  it('refuses a list_differences limit over 100 (422 tool-error, invalid_arguments)', async () => {
    const response = await api.post('/tools/list_differences').send({ comparison_id: 'cmp_x', limit: 101 });
    expectSpecResponse(response, 'post', '/tools/list_differences', 422);
    expect(expectProblem(response, '/problems/tool-error')).toMatchObject({ error: { code: 'invalid_arguments', issues: [{ path: 'limit' }] } });
  });

  const fiAgainstBpc = { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: '2024012' } };

  it('runs explain_difference with the comparison arguments (200, the explained gap)', async () => {
    const response = await api.post('/tools/explain_difference').send({ comparison: fiAgainstBpc });
    expectSpecResponse(response, 'post', '/tools/explain_difference', 200);
    expectValid('/components/schemas/ExplainedGap', (response.body as Json).result, 'explain_difference result');
    expect(response.body).toMatchObject({
      tool: 'explain_difference',
      ok: true,
      result: {
        key: { company: '1000', period: '2024012' },
        gap: { currency: 'EUR', difference: 110000 },
        one_sided: [{ source: 'fi_reporting', dimension: 'load_request', amount: 110000 }],
      },
    });
    const byDimension = (response.body as { result: { by_dimension: Json[] } }).result.by_dimension;
    expect(byDimension[0]).toMatchObject({ dimension: 'group_account', explains_percent: 100, values: [{ value: 'G4000000', difference: 110000 }] });
  });

  it('runs explain_difference with a comparison_id from compare_sources (200)', async () => {
    const compared = await api.post('/tools/compare_sources').send(fiAgainstBpc);
    const comparisonId = (compared.body as { result: { comparison_id: string } }).result.comparison_id;
    const response = await api.post('/tools/explain_difference').send({ comparison_id: comparisonId, key: { company: '1000', period: '2024012' }, dimensions: ['group_account'] });
    expectSpecResponse(response, 'post', '/tools/explain_difference', 200);
    const result = (response.body as { result: { by_dimension: { dimension: string }[]; one_sided: unknown[] } }).result;
    expect(result.by_dimension.map((d) => d.dimension)).toEqual(['group_account']);
    expect(result.one_sided).toEqual([]);
  });

  it('runs explain_difference when nothing differs (200, explanation and summary only)', async () => {
    const response = await api.post('/tools/explain_difference').send({ comparison: { ...fiAgainstBpc, source_b: 'fi_reporting' } });
    expectSpecResponse(response, 'post', '/tools/explain_difference', 200);
    expect(Object.keys((response.body as { result: Json }).result).sort()).toEqual(['explanation', 'summary']);
  });

  it('runs explain_difference for a key without a gap (200, key, explanation and summary)', async () => {
    const response = await api.post('/tools/explain_difference').send({ comparison: { ...fiAgainstBpc, filters: { company: '1000' } }, key: { company: '1000', period: '2024001' } });
    expectSpecResponse(response, 'post', '/tools/explain_difference', 200);
    const result = (response.body as { result: Json }).result;
    expect(Object.keys(result).sort()).toEqual(['explanation', 'key', 'summary']);
    expect(result.key).toEqual({ company: '1000', period: '2024001' });
  });

  it('refuses explain_difference without comparison_id or comparison (422 tool-error, invalid_arguments)', async () => {
    const response = await api.post('/tools/explain_difference').send({});
    expectSpecResponse(response, 'post', '/tools/explain_difference', 422);
    expect(expectProblem(response, '/problems/tool-error')).toMatchObject({ error: { code: 'invalid_arguments', issues: [{ path: '(arguments)' }] } });
  });

  it('refuses an explain_difference key on a dimension one source lacks (422 tool-error, unknown_dimension)', async () => {
    const response = await api.post('/tools/explain_difference').send({ comparison: fiAgainstBpc, key: { gl_account: '4000000' } });
    expectSpecResponse(response, 'post', '/tools/explain_difference', 422);
    expect(expectProblem(response, '/problems/tool-error')).toMatchObject({ error: { code: 'unknown_dimension', argument: 'key' } });
  });

  // --- data_quality tools -----------------------------------------------------------------

  it('runs find_duplicates (200): the duplicated December load of company 1000', async () => {
    const result = await runTool('find_duplicates', { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } }, 200);
    expectValid('/components/schemas/FindDuplicatesResult', result, 'find_duplicates result');
    expect(result).toMatchObject({
      key: ['document', 'document_line'],
      ignore: ['load_request'],
      duplicate_groups: 4,
      extra_copies: 4,
      totals: [{ currency: 'EUR', duplicated_amount: 110000 }],
      truncated: false,
    });
    const pattern = (result.patterns as Json[])[0]!;
    expect(pattern).toMatchObject({ company: '1000', period: '2024012', copies: 2, scope: { amount: 443100, without_copies: 333100 } });
    expect((pattern.breakdown as { values: Json[] }).values).toContainEqual(expect.objectContaining({ value: 'REQ_2024012_1000_02', holds_only_copies: true }));
    expect((result.groups as Json[])[0]).toMatchObject({ load_request: ['REQ_2024012_1000_01', 'REQ_2024012_1000_02'], copies: 2 });
  });

  it('runs find_duplicates without duplicates, and with a key and a measure without currency (200)', async () => {
    const none = await runTool('find_duplicates', { source: 'fi_reporting', filters: { company: '2000' } }, 200);
    expect(none).toMatchObject({ duplicate_groups: 0, totals: [], patterns: [], groups: [], truncated: false });
    expect(none.finding).toContain('No duplicated records');
    const byDocument = await runTool('find_duplicates', { source: 'fi_reporting', key: ['document'], measure: 'quantity', limit: 2 }, 200);
    expect(byDocument).toMatchObject({ key: ['document'], measure: { name: 'quantity', unit: 'PC' }, truncated: true });
    expect(byDocument.groups).toHaveLength(2);
    expect((byDocument.totals as Json[])[0]).not.toHaveProperty('currency');
  });

  it('refuses find_duplicates with a dimension both in key and ignore (422 tool-error, invalid_value)', async () => {
    const error = await runTool('find_duplicates', { source: 'fi_reporting', key: ['document', 'load_request'], ignore: ['load_request'] }, 422);
    expect(error).toMatchObject({ code: 'invalid_value', argument: 'ignore', dimension: 'load_request' });
  });

  it('runs find_blank_values (200): lines without a profit center or segment', async () => {
    const result = await runTool('find_blank_values', { source: 'fi_reporting', dimensions: ['profit_center', 'segment'], filters: { company: '3000' } }, 200);
    expectValid('/components/schemas/FindBlankValuesResult', result, 'find_blank_values result');
    expect(result).toMatchObject({
      dimensions_checked: ['profit_center', 'segment'],
      dimensions: [
        { dimension: 'profit_center', blank_rows: 3, null_rows: 3, blank_allowed: false, where_groups: 1 },
        { dimension: 'segment', blank_rows: 2, empty_rows: 2, blank_allowed: false },
      ],
      clean_dimensions: [],
    });
    expect(((result.dimensions as Json[])[0]!.examples as Json[])[0]).toMatchObject({ document: '0300000103', profit_center: null, currency: 'GBP' });
  });

  it('runs find_blank_values over every dimension (200): dimensions allowed to be blank are marked, without places or examples', async () => {
    const result = await runTool('find_blank_values', { source: 'fi_reporting' }, 200);
    const allowed = (result.dimensions as Json[]).find((d) => d.blank_allowed === true);
    expect(allowed).toMatchObject({ dimension: 'partner_company', where: [], examples: [] });
  });

  it('refuses find_blank_values with a misspelt dimension (422 tool-error, unknown_dimension)', async () => {
    const error = await runTool('find_blank_values', { source: 'fi_reporting', dimensions: ['profit_centre'] }, 422);
    expect(error).toMatchObject({ code: 'unknown_dimension', argument: 'dimensions', source: 'fi_reporting', closest: 'profit_center' });
  });

  it('runs find_outlier_periods (200): December 2024 of company 1000 stands out, loaded twice', async () => {
    const result = await runTool('find_outlier_periods', { source: 'fi_reporting', filters: { company: '1000' } }, 200);
    expectValid('/components/schemas/FindOutlierPeriodsResult', result, 'find_outlier_periods result');
    expect(result).toMatchObject({
      by: ['currency'],
      outlier_count: 1,
      outliers: [{ currency: 'EUR', period: '2024012', value: 443100, direction: 'high', load_requests: 2 }],
      multiple_load_requests: [{ period: '2024012', load_requests: 2, usual_load_requests: 1 }],
    });
  });

  it('runs find_outlier_periods by series, and for a measure without currency (200)', async () => {
    const bySeries = await runTool('find_outlier_periods', { source: 'consolidation_mart', by: ['company', 'group_account'], limit: 1 }, 200);
    expect(bySeries).toMatchObject({ by: ['company', 'group_account', 'currency'], truncated: true });
    expect(bySeries.outliers).toHaveLength(1);
    // consolidation_mart has no load request dimension.
    expect(bySeries).not.toHaveProperty('multiple_load_requests');
    const lines = await runTool('find_outlier_periods', { source: 'fi_reporting', measure: 'line_count', threshold: 2 }, 200);
    expect(lines).toMatchObject({ measure: { name: 'line_count' }, by: [], threshold: 2 });
  });

  it('refuses find_outlier_periods split by the period dimension (422 tool-error, invalid_value)', async () => {
    const error = await runTool('find_outlier_periods', { source: 'fi_reporting', by: ['period'] }, 422);
    expect(error).toMatchObject({ code: 'invalid_value', argument: 'by', dimension: 'period' });
  });

  // --- knowledge ----------------------------------------------------------------------------

  it('runs search_knowledge (200): cited passages, best first', async () => {
    const result = await runTool('search_knowledge', { query: 'why does consolidation differ from FI', limit: 2 }, 200);
    expectValid('/components/schemas/SearchKnowledgeResult', result, 'search_knowledge result');
    const results = result.results as { citation: string; file: string; heading: string; skill: string; score: number }[];
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(2);
    const enabled = service.registry.skills.map((s) => s.name);
    for (const passage of results) {
      expect(passage.citation).toBe(`${passage.file} § ${passage.heading}`);
      expect(enabled).toContain(passage.skill);
    }
    expect(results.map((r) => r.score)).toEqual([...results.map((r) => r.score)].sort((a, b) => b - a));
    expect(result).not.toHaveProperty('note');
  });

  it('runs search_knowledge without a match (200, empty results and a note)', async () => {
    const result = await runTool('search_knowledge', { query: 'zzzqqq xyzzy' }, 200);
    expect(result).toMatchObject({ query: 'zzzqqq xyzzy', results: [], note: expect.any(String) });
  });

  it('refuses search_knowledge without searchable words (422 tool-error, invalid_value with the query)', async () => {
    const error = await runTool('search_knowledge', { query: 'what is the and of it' }, 422);
    expect(error).toMatchObject({ code: 'invalid_value', query: 'what is the and of it' });
  });

  it('refuses search_knowledge in a skill without knowledge (422 tool-error, unknown_value with choices)', async () => {
    const error = await runTool('search_knowledge', { query: 'duplicated delta load', skill: 'knowledge' }, 422);
    expect(error).toMatchObject({ code: 'unknown_value', closest: null });
    const choices = error.choices as string[];
    expect(choices.length).toBeGreaterThan(0);
    expect(choices).not.toContain('knowledge');
    for (const choice of choices) expect(service.registry.skills.map((s) => s.name)).toContain(choice);
  });

  // --- load_skill (built in) ----------------------------------------------------------------

  it('runs load_skill for every enabled skill of GET /skills (200): its instructions and tools', async () => {
    const skills = ((await api.get('/skills')).body as SkillsBody).skills.filter((s) => s.enabled);
    expect(skills.length).toBeGreaterThan(0);
    for (const skill of skills) {
      const result = await runTool('load_skill', { name: skill.name }, 200);
      expectValid('/components/schemas/LoadSkillResult', result, `load_skill ${skill.name} result`);
      expect(result).toMatchObject({ skill: skill.name, version: skill.version, description: skill.description });
      expect(String(result.instructions).length).toBeGreaterThan(0);
      expect((result.tools as { name: string }[]).map((t) => t.name)).toEqual(skill.tools.map((t) => t.name));
    }
  });

  it('refuses load_skill with an unknown skill (422 tool-error, invalid_value with choices and closest)', async () => {
    const error = await runTool('load_skill', { name: 'data_analist' }, 422);
    expect(error).toMatchObject({ code: 'invalid_value', choices: service.registry.skills.map((s) => s.name), closest: 'data_analyst' });
  });

  it('refuses load_skill without a name (422 tool-error, invalid_arguments)', async () => {
    const error = await runTool('load_skill', {}, 422);
    expect(error).toMatchObject({ code: 'invalid_arguments', issues: [{ path: 'name' }] });
  });

  it('runs every request example of the spec (200), each valid for the tool input_schema from GET /skills (or the registry, for built-ins)', async () => {
    const skills = (await api.get('/skills')).body as SkillsBody;
    const inputSchemas = new Map<string, object>([
      ...skills.skills.flatMap((s) => s.tools.map((t) => [t.name, t.input_schema] as const)),
      ...builtinTools().map((t) => [t.name, t.inputSchema] as const),
    ]);
    const examplesPointer = `${deref(pointerOf('paths', '/tools/{name}', 'post', 'requestBody')).pointer}${pointerOf('content', 'application/json', 'examples')}`;
    const examples = at(examplesPointer) as Json;
    const tools = new Set<string>();
    const results = new Map<string, Json>();
    // Examples that need a comparison_id name, in x-comparison-from, the compare_sources example
    // that makes it (ids expire, so the one shown is illustrative): they run after the others.
    const names = Object.keys(examples);
    const needsComparison = (name: string) => deref(`${examplesPointer}${pointerOf(name)}`).node['x-comparison-from'] !== undefined;
    for (const name of [...names.filter((n) => !needsComparison(n)), ...names.filter(needsComparison)]) {
      const example = deref(`${examplesPointer}${pointerOf(name)}`).node;
      const tool = example['x-tool'];
      expect(tool, `example '${name}' needs x-tool`).toEqual(expect.any(String));
      const inputSchema = inputSchemas.get(tool as string);
      expect(inputSchema, `example '${name}': unknown tool ${String(tool)}`).toBeDefined();
      const validateInput = new Ajv2020({ strict: false }).compile(inputSchema!);
      expect(validateInput(example.value), `example '${name}' vs input_schema of ${String(tool)}: ${JSON.stringify(validateInput.errors)}`).toBe(true);
      let args = example.value as Json;
      const from = example['x-comparison-from'];
      if (from !== undefined) {
        expect((examples[from as string] as Json | undefined)?.['x-tool'], `example '${name}': x-comparison-from must name a compare_sources example`).toBe('compare_sources');
        expect(args.comparison_id, `example '${name}' shows a comparison_id`).toMatch(/^cmp_/);
        const comparisonId = results.get(from as string)?.comparison_id;
        expect(comparisonId, `example '${name}': no comparison_id from '${String(from)}'`).toEqual(expect.any(String));
        args = { ...args, comparison_id: comparisonId };
      }
      const response = await api.post(`/tools/${String(tool)}`).send(args);
      expectSpecResponse(response, 'post', `/tools/${String(tool)}`, 200);
      results.set(name, (response.body as { result: Json }).result);
      tools.add(tool as string);
    }
    // A realistic example for every tool the contract documents; a tool added as one skill folder
    // brings its examples in its definition (ToolDefinition.examples), run through /tools here.
    const documented = [...String((at(pointerOf('paths', '/tools/{name}', 'post')) as Json).description).matchAll(/\*\*`([a-z][a-z0-9_]*)`\*\*/g)].map((m) => m[1]!);
    expect([...tools].sort()).toEqual([...new Set(documented)].sort());
    for (const name of registeredTools().filter((tool) => !tools.has(tool))) {
      for (const example of service.registry.get(name)!.tool.examples ?? []) {
        const response = await api.post(`/tools/${name}`).send(example);
        expectSpecResponse(response, 'post', `/tools/${name}`, 200);
        tools.add(name);
      }
    }
    expect([...tools].sort()).toEqual([...registeredTools()].sort());
  });

  it('refuses a wrong source name (422 tool-error, unknown_source, closest fi_reporting)', async () => {
    const response = await api.post('/tools/query_source').send({ source: 'fi_reports' });
    expectSpecResponse(response, 'post', '/tools/query_source', 422);
    const problem = expectProblem(response, '/problems/tool-error');
    expect(problem).toMatchObject({ tool: 'query_source', ok: false, error: { code: 'unknown_source', closest: 'fi_reporting' } });
    expect((problem.error as Json).choices).toEqual(expect.arrayContaining(['fi_reporting']));
  });

  it('refuses arguments of the wrong type (422 tool-error, invalid_arguments)', async () => {
    const response = await api.post('/tools/query_source').send({ source: 42 });
    expectSpecResponse(response, 'post', '/tools/query_source', 422);
    const problem = expectProblem(response, '/problems/tool-error');
    expect(problem).toMatchObject({ tool: 'query_source', ok: false, error: { code: 'invalid_arguments', issues: [{ path: 'source' }] } });
  });

  it('refuses an unknown tool (404 tool-not-found with error)', async () => {
    const response = await api.post('/tools/nope').send({});
    expectSpecResponse(response, 'post', '/tools/nope', 404);
    const problem = expectProblem(response, '/problems/tool-not-found');
    expect(problem.error).toMatchObject({ code: 'unknown_tool', choices: registeredTools() });
    expect((problem.error as { choices: string[] }).choices).toContain('load_skill');
  });

  it('suggests the closest tool name (404 tool-not-found)', async () => {
    const response = await api.post('/tools/query_sources').send({});
    expectSpecResponse(response, 'post', '/tools/query_sources', 404);
    expect((expectProblem(response, '/problems/tool-not-found').error as Json).closest).toBe('query_source');
  });

  it('refuses a body that is not an object (400 invalid-request)', async () => {
    const response = await api.post('/tools/query_source').send(['fi_reporting']);
    expectSpecResponse(response, 'post', '/tools/query_source', 400);
    expectProblem(response, '/problems/invalid-request');
  });

  it('refuses invalid JSON (400 invalid-json)', async () => {
    const response = await api.post('/tools/query_source').set('Content-Type', 'application/json').send('{"source": ');
    expectSpecResponse(response, 'post', '/tools/query_source', 400);
    expectProblem(response, '/problems/invalid-json');
  });

  it('refuses a body over 64 kB (413 payload-too-large)', async () => {
    const response = await api.post('/tools/query_source').send({ source: 'x'.repeat(70_000) });
    expectSpecResponse(response, 'post', '/tools/query_source', 413);
    expectProblem(response, '/problems/payload-too-large');
  });

  it('refuses a text/plain body (415 unsupported-media-type)', async () => {
    const response = await api.post('/tools/query_source').set('Content-Type', 'text/plain').send('source=fi_reporting');
    expectSpecResponse(response, 'post', '/tools/query_source', 415);
    expectProblem(response, '/problems/unsupported-media-type');
  });
});

describe('with a disabled skill (SKILLS_DISABLED=knowledge)', () => {
  let disabledService: Service;
  let disabledApi: ReturnType<typeof supertest>;

  beforeAll(async () => {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      MODEL_PROVIDER: 'offline',
      SKILLS_DISABLED: 'knowledge',
      APP_DB: path.join(mkdtempSync(path.join(os.tmpdir(), 'openapi-disabled-')), 'app.db'),
    } as NodeJS.ProcessEnv);
    disabledService = await createService(config, silentLogger());
    disabledApi = supertest(disabledService.app);
  });

  afterAll(async () => {
    await disabledService?.close();
  });

  it('GET /skills lists the disabled skill after the enabled ones, with enabled: false and no tools; GET /health leaves it out', async () => {
    const response = await disabledApi.get('/skills');
    expectSpecResponse(response, 'get', '/skills', 200);
    const skills = (response.body as SkillsBody).skills;
    expect(skills.at(-1)).toMatchObject({ name: 'knowledge', enabled: false, tools: [] });
    expect(skills.filter((s) => !s.enabled).map((s) => s.name)).toEqual(['knowledge']);
    expect(skills.slice(0, -1).every((s) => s.enabled && s.tools.length > 0)).toBe(true);
    const health = await disabledApi.get('/health');
    expectSpecResponse(health, 'get', '/health', 200);
    expect((health.body as { skills: string[] }).skills).toEqual(skills.filter((s) => s.enabled).map((s) => s.name));
  });

  it("refuses the disabled skill's tool (404 tool-not-found) and load_skill for it (422 tool-error, invalid_value with choices)", async () => {
    const notFound = await disabledApi.post('/tools/search_knowledge').send({ query: 'currency translation' });
    expectSpecResponse(notFound, 'post', '/tools/search_knowledge', 404);
    const error = expectProblem(notFound, '/problems/tool-not-found').error as { choices: string[] };
    expect(error.choices).toEqual(disabledService.registry.names());
    expect(error.choices).not.toContain('search_knowledge');

    const refused = await disabledApi.post('/tools/load_skill').send({ name: 'knowledge' });
    expectSpecResponse(refused, 'post', '/tools/load_skill', 422);
    const problem = expectProblem(refused, '/problems/tool-error');
    expect(problem).toMatchObject({ tool: 'load_skill', error: { code: 'invalid_value', choices: disabledService.registry.skills.map((s) => s.name) } });
    expect((problem.error as Json).choices).not.toContain('knowledge');
  });
});

describe('routes outside the spec', () => {
  it.each([
    ['get', '/nowhere'],
    ['get', '/chat'],
    ['post', '/health'],
    ['post', '/tools'],
  ] as const)('%s %s is a 404 not-found problem', async (method, requestPath) => {
    const response = await api[method](requestPath);
    expect(response.status).toBe(404);
    expectProblem(response, '/problems/not-found');
    expectResponseMatches('/components/responses/NotFound', response, `${method.toUpperCase()} ${requestPath}`);
  });
});

describe('POST/GET/DELETE /mcp (MCP Streamable HTTP, stateless)', () => {
  const accept = 'application/json, text/event-stream';
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'contract', version: '1' } } };

  it('answers a JSON-RPC request, accepts a notification, refuses what is not JSON-RPC, and answers 405 to GET and DELETE', async () => {
    expectSpecResponse(await api.post('/mcp').set('accept', accept).send(initialize), 'post', '/mcp', 200);
    expectSpecResponse(await api.post('/mcp').set('accept', accept).send({ jsonrpc: '2.0', method: 'notifications/initialized' }), 'post', '/mcp', 202);
    expectSpecResponse(await api.post('/mcp').set('accept', 'application/json').send(initialize), 'post', '/mcp', 406);
    const notJsonRpc = await api.post('/mcp').set('accept', accept).send({ method: 'initialize' });
    expectSpecResponse(notJsonRpc, 'post', '/mcp', 400);
    expectProblem(notJsonRpc, '/problems/invalid-request');
    expectSpecResponse(await api.get('/mcp').set('accept', 'text/event-stream'), 'get', '/mcp', 405);
    expectSpecResponse(await api.delete('/mcp'), 'delete', '/mcp', 405);
  });
});

describe('with API keys and a rate limit (API_KEYS, RATE_LIMIT_PER_MINUTE)', () => {
  const KEY = 'contract-key-7c0e2a94b51d';
  let keyed: Service;
  let keyedApi: ReturnType<typeof supertest>;

  beforeAll(async () => {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      MODEL_PROVIDER: 'offline',
      API_KEYS: KEY,
      RATE_LIMIT_PER_MINUTE: '2',
      APP_DB: path.join(mkdtempSync(path.join(os.tmpdir(), 'openapi-keys-')), 'app.db'),
    } as NodeJS.ProcessEnv);
    keyed = await createService(config, silentLogger());
    keyedApi = supertest(keyed.app);
  });

  afterAll(async () => {
    await keyed?.close();
  });

  it('answers 401 unauthorized per the spec without a key, and 429 rate-limited with Retry-After and RateLimit headers past the limit', async () => {
    const missing = await keyedApi.get('/skills');
    expectSpecResponse(missing, 'get', '/skills', 401);
    expectProblem(missing, '/problems/unauthorized');
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer /);

    // The key has its own quota (the 401 above counted against the client IP).
    const first = await keyedApi.get('/sessions').set('authorization', `Bearer ${KEY}`);
    expectSpecResponse(first, 'get', '/sessions', 200);
    expect(first.headers.ratelimit).toMatch(/^"per-minute"; r=1; t=\d+$/);
    const second = await keyedApi.get('/skills').set('authorization', `Bearer ${KEY}`);
    expectSpecResponse(second, 'get', '/skills', 200);
    expect(second.headers.ratelimit).toMatch(/^"per-minute"; r=0; t=\d+$/);

    const limited = await keyedApi.post('/chat').set('authorization', `Bearer ${KEY}`).send({ message: 'Which sources are available?' });
    expectSpecResponse(limited, 'post', '/chat', 429);
    expectProblem(limited, '/problems/rate-limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    // GET /health is public and never limited.
    for (let i = 0; i < 3; i += 1) expectSpecResponse(await keyedApi.get('/health'), 'get', '/health', 200);
  });

  it('declares the bearer scheme, 401 on every protected operation and 429 on every operation but GET /health', () => {
    const schemes = (spec.components as Json).securitySchemes as Json;
    expect(schemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const publicOperations = ['GET /', 'GET /app/{file}', 'GET /app/{skill}/{file}', 'GET /embed', 'GET /embed.js', 'GET /health', 'GET /openapi.yaml', 'GET /vendor/{file}'];
    for (const { method, template } of operations) {
      const name = `${method.toUpperCase()} ${template}`;
      const operation = at(pointerOf('paths', template, method)) as Json;
      const statuses = Object.keys(operation.responses as Json);
      const isPublic = publicOperations.includes(name);
      expect(isPublic ? operation.security : undefined, name).toEqual(isPublic ? [] : undefined);
      expect(statuses.includes('401'), `${name} 401`).toBe(!isPublic);
      expect(statuses.includes('429'), `${name} 429`).toBe(name !== 'GET /health');
    }
  });
});

describe('spec ⇄ app routes', () => {
  /** Express routes (method + path, `:name` as `{name}`) of the app and its root-mounted routers. */
  function appRoutes(): string[] {
    type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
    const routes: string[] = [];
    const visit = (layers: Layer[]) => {
      for (const layer of layers) {
        if (layer.route) {
          const template = layer.route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
          for (const [method, enabled] of Object.entries(layer.route.methods)) if (enabled) routes.push(`${method.toUpperCase()} ${template}`);
        } else if (layer.handle?.stack) visit(layer.handle.stack);
      }
    };
    visit((service.app as unknown as { router: { stack: Layer[] } }).router.stack);
    return routes.sort();
  }

  it('every route of the spec exists in the app (no /problems/not-found)', async () => {
    for (const { method, template } of operations) {
      const parameters = ((at(pointerOf('paths', template, method)) as Json).parameters ?? []) as Json[];
      const concrete = template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
        const parameter = parameters.map((p) => (typeof p.$ref === 'string' ? (at(p.$ref.slice(1)) as Json) : p)).find((p) => p.name === name && p.in === 'path');
        const examples = (parameter?.examples ?? {}) as Record<string, { value: string }>;
        return Object.values(examples)[0]?.value ?? 'x';
      });
      const response = method === 'post' ? await api.post(concrete).send({}) : await api.get(concrete);
      const notFound = response.status === 404 && (response.body as Json).type === '/problems/not-found';
      expect(notFound, `${method.toUpperCase()} ${template} (${concrete}) is not served by the app`).toBe(false);
    }
  });

  it('every route of the app is in the spec', () => {
    const documented = operations.map(({ method, template }) => `${method.toUpperCase()} ${template}`).sort();
    expect(appRoutes()).toEqual(documented);
  });

  // Runs last (vitest keeps the order of tests in a file): every operation had a real request above.
  it('every path and method of the spec was exercised by a request in this file', () => {
    const documented = operations.map(({ method, template }) => `${method.toUpperCase()} ${template}`).sort();
    expect(documented).toEqual([
      'DELETE /mcp',
      'DELETE /sessions/{id}',
      'GET /',
      'GET /app/{file}',
      'GET /app/{skill}/{file}',
      'GET /embed',
      'GET /embed.js',
      'GET /health',
      'GET /mcp',
      'GET /metrics',
      'GET /openapi.yaml',
      'GET /sessions',
      'GET /sessions/{id}',
      'GET /skills',
      'GET /vendor/{file}',
      'POST /chat',
      'POST /mcp',
      'POST /tools/{name}',
    ]);
    expect([...exercised].sort()).toEqual(documented);
  });
});
