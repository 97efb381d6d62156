// Checks an answer against the OpenAPI document of the server that gave it: the operation that
// matches the method and path, a status that operation documents, a documented media type, and
// a JSON body valid against the documented schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses).
// A path no operation documents must be answered 404 (or 405 when another method is documented);
// OPTIONS is CORS's: 204, or 404 on a path no operation documents.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

export interface Answered {
  method: string;
  /** the path as sent, still percent-encoded, without the query */
  path: string;
  status: number;
  contentType: string | null;
  /** the body as text; null when it was not read (an event stream) */
  text: string | null;
}

interface Operation {
  id: string;
  template: string;
  method: string;
  responses: Json;
}

interface Template {
  template: string;
  regex: RegExp;
  params: number;
  methods: Map<string, Operation>;
}

const JSON_TYPE = /^application\/([\w.+-]*\+)?json$/i;
const baseType = (t: string) => t.split(';')[0].trim().toLowerCase();

export class OpenApiChecker {
  private templates: Template[] = [];
  private ajv = new Ajv2020({ allErrors: false, strict: false, validateSchema: false });
  private compiled = new Map<object, ValidateFunction>();

  constructor(readonly doc: Json) {
    (addFormats as unknown as (a: Ajv2020) => void)(this.ajv);
    for (const [template, item] of Object.entries(doc.paths ?? {}) as Array<[string, Json]>) {
      const names = template.match(/\{[^}]+\}/g) ?? [];
      const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)');
      const methods = new Map<string, Operation>();
      for (const [m, op] of Object.entries(item)) {
        if (!['get', 'put', 'post', 'delete', 'patch'].includes(m)) continue;
        methods.set(m.toUpperCase(), { id: op.operationId, template, method: m.toUpperCase(), responses: op.responses ?? {} });
      }
      this.templates.push({ template, regex: new RegExp(`^${pattern}$`), params: names.length, methods });
    }
    // static segments win over parameters, as the router orders them
    this.templates.sort((a, b) => a.params - b.params);
  }

  /** The operation documented for a method and a raw path, or the methods documented on it. */
  find(method: string, path: string): { op: Operation | null; allowed: string[] } {
    const m = method === 'HEAD' ? 'GET' : method;
    const allowed: string[] = [];
    for (const t of this.templates) {
      if (!t.regex.test(path)) continue;
      const op = t.methods.get(m);
      if (op) return { op, allowed };
      allowed.push(...t.methods.keys());
    }
    return { op: null, allowed };
  }

  private validator(schema: object): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) {
      // the document's components travel with each schema, so its #/components refs resolve
      v = this.ajv.compile({ ...schema, components: this.doc.components });
      this.compiled.set(schema, v);
    }
    return v;
  }

  /**
   * OPTIONS is CORS's (api/middleware/cors.ts), on no operation: 204 without a body, on any path as
   * a preflight and on a documented path without; else 404.
   */
  private checkOptions(a: Answered): string[] {
    if (a.status === 204) return a.text ? [`OPTIONS ${a.path}: 204 with a body`] : [];
    const documented = this.templates.some((t) => t.regex.test(a.path));
    if (a.status === 404 && !documented) return [];
    return [`OPTIONS ${a.path}: answered ${a.status} (expected 204, or 404 on a path no operation documents)`];
  }

  /** What is wrong with an answer (empty when it is as documented). */
  check(a: Answered): string[] {
    if (a.method === 'OPTIONS') return this.checkOptions(a);
    const { op, allowed } = this.find(a.method, a.path);
    if (!op) {
      const expected = allowed.length ? 405 : 404;
      if (a.status !== expected) return [`${a.method} ${a.path}: no operation documents this path, yet it answered ${a.status} (expected ${expected})`];
      return [];
    }
    const where = `${op.id} (${a.method} ${a.path}) answered ${a.status}`;
    const response = op.responses[String(a.status)] ?? op.responses[`${String(a.status)[0]}XX`] ?? op.responses.default;
    if (!response) return [`${where}, a status the operation does not document (documented: ${Object.keys(op.responses).join(', ')})`];
    const content = (response.content ?? {}) as Json;
    const types = Object.keys(content);
    const empty = a.text === null ? false : a.text.length === 0;
    if (types.length === 0) return empty || a.method === 'HEAD' ? [] : [`${where} with a body, where the document says it has none`];
    if (a.method === 'HEAD' || (empty && a.status === 304)) return [];
    const got = a.contentType ? baseType(a.contentType) : null;
    const entry = Object.entries(content).find(([t]) => baseType(t) === got || (baseType(t) === '*/*' && got !== null));
    if (!entry) return [`${where} as ${got ?? 'no content type'}, where the document says ${types.join(' or ')}`];
    const schema = (entry[1] as Json).schema;
    if (!schema || !JSON_TYPE.test(got!) || a.text === null) return [];
    let body: unknown;
    try {
      body = JSON.parse(a.text);
    } catch {
      return [`${where} as ${got}, but the body is not JSON: ${a.text.slice(0, 200)}`];
    }
    const validate = this.validator(schema);
    if (validate(body)) return [];
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    return [`${where}: the body does not match the documented schema: ${errors.join('; ')}`];
  }
}
