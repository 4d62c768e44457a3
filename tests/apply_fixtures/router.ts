// A tiny HTTP-style router with typed parameters and middleware.
// Test fixture for the apply-edit merge; it is type-checked by nothing and run by nothing.

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface Request {
  method: Method;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
}

export interface Response {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Values captured from the path, e.g. `{ id: "42" }` for `/users/:id`. */
export type Params = Record<string, string>;

export type Handler<C> = (req: Request, params: Params, ctx: C) => Promise<Response> | Response;

export type Middleware<C> = (req: Request, ctx: C, next: () => Promise<Response>) => Promise<Response>;

interface Route<C> {
  method: Method;
  pattern: string;
  segments: Segment[];
  handler: Handler<C>;
}

type Segment = { kind: "literal"; value: string } | { kind: "param"; name: string } | { kind: "rest"; name: string };

export enum LogLevel {
  Quiet,
  Errors,
  All,
}

const NOT_FOUND: Response = { status: 404, headers: { "content-type": "text/plain" }, body: "not found" };

/**
 * Split a pattern such as `/files/:dir/*rest` into segments.
 * Throws on an empty parameter name.
 */
export function compilePattern(pattern: string): Segment[] {
  const parts = pattern.split("/").filter((p) => p.length > 0);
  return parts.map((part, i) => {
    if (part.startsWith(":")) {
      if (part.length === 1) {
        throw new Error(`empty parameter name in ${pattern}`);
      }
      return { kind: "param", name: part.slice(1) };
    }
    if (part.startsWith("*")) {
      if (i !== parts.length - 1) {
        throw new Error(`rest parameter must be last in ${pattern}`);
      }
      return { kind: "rest", name: part.slice(1) || "rest" };
    }
    return { kind: "literal", value: part };
  });
}

/** The parameters a path yields for segments, or null when it does not match. */
export function matchSegments(segments: Segment[], path: string): Params | null {
  const parts = path.split("/").filter((p) => p.length > 0);
  const params: Params = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    if (seg.kind === "rest") {
      params[seg.name] = parts.slice(i).map(decodeURIComponent).join("/");
      return params;
    }
    if (i >= parts.length) {
      return null;
    }
    if (seg.kind === "literal" && seg.value !== parts[i]) {
      return null;
    }
    if (seg.kind === "param") {
      params[seg.name] = decodeURIComponent(parts[i]);
    }
  }
  return parts.length === segments.length ? params : null;
}

export const text = (status: number, body: string): Response => ({
  status,
  headers: { "content-type": "text/plain; charset=utf-8" },
  body,
});

export const json = <T>(value: T, status = 200): Response => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(value),
});

/**
 * Routes requests to handlers; `C` is the per-request context type.
 */
export class Router<C extends object = {}> {
  private routes: Route<C>[] = [];
  private middleware: Middleware<C>[] = [];
  private level: LogLevel;

  constructor(private readonly prefix: string = "", level: LogLevel = LogLevel.Errors) {
    this.level = level;
  }

  use(mw: Middleware<C>): this {
    this.middleware.push(mw);
    return this;
  }

  add(method: Method, pattern: string, handler: Handler<C>): this {
    const full = this.prefix + pattern;
    this.routes.push({ method, pattern: full, segments: compilePattern(full), handler });
    return this;
  }

  get(pattern: string, handler: Handler<C>): this {
    return this.add("GET", pattern, handler);
  }

  post(pattern: string, handler: Handler<C>): this {
    return this.add("POST", pattern, handler);
  }

  delete(pattern: string, handler: Handler<C>): this {
    return this.add("DELETE", pattern, handler);
  }

  /** Mount another router's routes under `base`. */
  mount(base: string, other: Router<C>): this {
    for (const route of other.routes) {
      const pattern = base + route.pattern;
      this.routes.push({ ...route, pattern, segments: compilePattern(pattern) });
    }
    return this;
  }

  private find(req: Request): { route: Route<C>; params: Params } | null {
    for (const route of this.routes) {
      if (route.method !== req.method) {
        continue;
      }
      const params = matchSegments(route.segments, req.path);
      if (params !== null) {
        return { route, params };
      }
    }
    return null;
  }

  async handle(req: Request, ctx: C): Promise<Response> {
    const found = this.find(req);
    const last = async (): Promise<Response> => {
      if (found === null) {
        return NOT_FOUND;
      }
      return await found.route.handler(req, found.params, ctx);
    };
    const chain = this.middleware.reduceRight<() => Promise<Response>>(
      (next, mw) => () => mw(req, ctx, next),
      last,
    );
    try {
      const res = await chain();
      this.log(req, res.status);
      return res;
    } catch (err) {
      this.log(req, 500, err);
      return text(500, "internal error");
    }
  }

  private log(req: Request, status: number, err?: unknown): void {
    if (this.level === LogLevel.Quiet) {
      return;
    }
    if (this.level === LogLevel.Errors && status < 500) {
      return;
    }
    console.log(`${req.method} ${req.path} -> ${status}`, err ?? "");
  }

  describe(): string[] {
    return this.routes.map((r) => `${r.method.padEnd(6)} ${r.pattern}`);
  }
}

/** Middleware that rejects requests without the given header. */
export function requireHeader<C>(name: string): Middleware<C> {
  const key = name.toLowerCase();
  return async (req, _ctx, next) => {
    if (!(key in req.headers)) {
      return text(400, `missing header ${name}`);
    }
    return next();
  };
}

/** Middleware that measures how long handlers take. */
export function timing<C extends { timings?: number[] }>(): Middleware<C> {
  return async (_req, ctx, next) => {
    const started = Date.now();
    const res = await next();
    ctx.timings = [...(ctx.timings ?? []), Date.now() - started];
    return res;
  };
}

export function parseQuery(search: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of search.replace(/^\?/, "").split("&")) {
    if (!pair) {
      continue;
    }
    const [k, v = ""] = pair.split("=");
    out[decodeURIComponent(k)] = decodeURIComponent(v.replace(/\+/g, " "));
  }
  return out;
}
