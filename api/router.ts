// Matches a method and raw path against the route table. Static segments win over parameters.
// Routes are grouped by their first path segment (always static), so a call tries only its own.
// A path is matched exactly: a trailing slash names no resource (404), unless a route declares it.
import { ApiError } from '../core/errors.ts';
import type { Method, Route } from './route.ts';

interface Compiled {
  route: Route;
  regex: RegExp;
  names: string[];
  rank: number;
}

export interface Match {
  route: Route;
  path: Record<string, string>;
}

const firstSegment = (path: string) => path.split('/', 2)[1] ?? '';

export class Router {
  private bySegment = new Map<string, Compiled[]>();

  constructor(readonly routes: Route[]) {
    const seen = new Set<string>();
    for (const r of routes) {
      const k = `${r.method} ${r.path}`;
      if (seen.has(k)) throw new Error(`Route declared twice: ${k}`);
      seen.add(k);
    }
    const compiled = routes
      .map((route) => {
        const names: string[] = [];
        const pattern = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
          names.push(name);
          return '([^/]+)';
        });
        return { route, regex: new RegExp(`^${pattern}$`), names, rank: names.length };
      })
      .sort((a, b) => a.rank - b.rank);
    for (const c of compiled) {
      const first = firstSegment(c.route.path);
      if (first.startsWith('{')) throw new Error(`A route's first segment must be static: ${c.route.path}`);
      this.bySegment.set(first, [...(this.bySegment.get(first) ?? []), c]);
    }
  }

  /** The methods answered at a path (HEAD with GET); none when no route matches it. */
  methodsAt(rawPath: string): string[] {
    const methods = new Set<string>();
    for (const c of this.bySegment.get(firstSegment(rawPath)) ?? []) if (c.regex.test(rawPath)) methods.add(c.route.method);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods];
  }

  match(method: string, rawPath: string): Match {
    const allowed = new Set<Method>();
    for (const c of this.bySegment.get(firstSegment(rawPath)) ?? []) {
      const m = c.regex.exec(rawPath);
      if (!m) continue;
      if (c.route.method !== method && !(method === 'HEAD' && c.route.method === 'GET')) {
        allowed.add(c.route.method);
        continue;
      }
      const path: Record<string, string> = {};
      c.names.forEach((name, i) => {
        try {
          path[name] = decodeURIComponent(m[i + 1]);
        } catch {
          throw new ApiError('parameter_invalid', { field: name, detail: 'is not valid percent-encoding' });
        }
      });
      return { route: c.route, path };
    }
    if (allowed.size > 0) {
      throw new ApiError('method_not_allowed', {
        detail: `${method} is not answered here; use ${[...allowed].join(', ')}.`,
        headers: { Allow: [...allowed].join(', ') },
      });
    }
    throw new ApiError('no_such_resource', { detail: `No resource is at ${rawPath}.` });
  }
}
