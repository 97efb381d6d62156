// The Koa application: three middlewares (request context, CORS, dispatch) over the route table.
import Koa from 'koa';
import { compileSchema } from './body.ts';
import { dispatcher } from './dispatch.ts';
import { requestContext } from './middleware/context.ts';
import { cors } from './middleware/cors.ts';
import type { ServedContext } from './openapi.ts';
import type { Route } from './route.ts';
import { Router } from './router.ts';
import { allRoutes } from './routes/index.ts';
import type { Services } from './services.ts';

export function makeApp(services: Services, routes: Route[] = allRoutes): Koa {
  for (const r of routes) if (r.body) compileSchema(r.body);
  const app = new Koa({ proxy: false });
  app.silent = true;
  // the OpenAPI document describes the routes this app serves (api/openapi.ts servedRoutes)
  (app.context as ServedContext).routes = routes;
  const router = new Router(routes);
  app.use(requestContext(services));
  app.use(cors(services.config.corsOrigins, router));
  app.use(dispatcher(router, services));
  return app;
}
