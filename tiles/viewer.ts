// The map page (/viewer): static files of tiles/viewer and MapLibre GL JS from npm.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { notFound } from '../core/errors.ts';
import { defineRoutes } from '../api/route.ts';

const HERE = resolve(import.meta.dirname, 'viewer');
const MAPLIBRE = resolve(import.meta.dirname, '..', 'node_modules', 'maplibre-gl', 'dist');
const FILES: Record<string, [string, string]> = {
  'viewer.js': [resolve(HERE, 'viewer.js'), 'text/javascript; charset=utf-8'],
  'viewer.css': [resolve(HERE, 'viewer.css'), 'text/css; charset=utf-8'],
};
const LIB: Record<string, [string, string]> = {
  'maplibre-gl.mjs': [resolve(MAPLIBRE, 'maplibre-gl.mjs'), 'text/javascript; charset=utf-8'],
  'maplibre-gl-worker.mjs': [resolve(MAPLIBRE, 'maplibre-gl-worker.mjs'), 'text/javascript; charset=utf-8'],
  'maplibre-gl.css': [resolve(MAPLIBRE, 'maplibre-gl.css'), 'text/css; charset=utf-8'],
};

const serve = (files: Record<string, [string, string]>) => async (req: { params: Record<string, string> }) => {
  const f = files[req.params.file];
  if (!f) throw notFound('file', req.params.file);
  return { body: await readFile(f[0]), contentType: f[1], headers: { 'Cache-Control': 'public, max-age=3600' } };
};

const FREE = { credits: 0, per: 'call' as const, note: 'Free.' };

export const viewerRoutes = defineRoutes([
  {
    id: 'getViewer',
    method: 'GET',
    path: '/viewer',
    summary: 'The map page',
    tag: 'Maps',
    credential: 'public',
    form: 'raw',
    produces: ['text/html'],
    price: FREE,
    allowExtraQuery: true,
    handler: async () => ({ body: await readFile(resolve(HERE, 'index.html')), contentType: 'text/html; charset=utf-8' }),
  },
  {
    id: 'getViewerFile',
    method: 'GET',
    path: '/viewer/{file}',
    summary: 'A static file of the map page',
    tag: 'Maps',
    credential: 'public',
    form: 'raw',
    produces: ['text/javascript', 'text/css'],
    price: FREE,
    allowExtraQuery: true,
    params: [{ name: 'file', in: 'path', type: 'string', required: true }],
    handler: serve(FILES),
  },
  {
    id: 'getViewerLibrary',
    method: 'GET',
    path: '/viewer/lib/{file}',
    summary: 'MapLibre GL JS, served from the npm package',
    tag: 'Maps',
    credential: 'public',
    form: 'raw',
    produces: ['text/javascript', 'text/css'],
    price: FREE,
    allowExtraQuery: true,
    params: [{ name: 'file', in: 'path', type: 'string', required: true }],
    handler: serve(LIB),
  },
]);
