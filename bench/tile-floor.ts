// bench:maps's floor: the least an HTTP server in Node can do per tile. node:http and pg, the
// tiles made as the API makes those asked as known now (tiles/batch.ts: the statement of
// tiles/layers.ts, the tiles asked meanwhile together, on a pool of the API's size and settings),
// coded as the API codes them (tiles/encoding.ts: brotli or gzip as Accept-Encoding asks) but
// coded anew every time (the API keeps codings by ETag, so ours/floor counts that saving too),
// and nothing else: no API key, no rate, no usage, no ETag. Run as `tsx bench/tile-floor.ts <url> <port>`.
import { createServer } from 'node:http';
import { loadConfig } from '../core/config.ts';
import { createPool } from '../store/db.ts';
import { TileBatcher } from '../tiles/batch.ts';
import { chooseCoding, encode } from '../tiles/encoding.ts';
import { mapTimes, TILE_LAYERS, type TileLayer } from '../tiles/layers.ts';

const [url, port] = process.argv.slice(2);
const config = loadConfig({ ...process.env, DATABASE_URL: url });
const pool = createPool(url, { max: config.dbPoolSize, statementTimeoutMs: config.statementTimeoutMs, serving: true });
const tiles = new TileBatcher(pool, config.tileStatements);

createServer(async (req, res) => {
  const m = /^\/map\/(\w+)\/(\d+)\/(\d+)\/(\d+)$/.exec(req.url ?? '');
  const layer = m ? TILE_LAYERS[m[1] as TileLayer['id']] : undefined;
  if (!m || !layer) {
    res.statusCode = req.url === '/health' ? 200 : 404;
    res.end();
    return;
  }
  const { asOf, knownAsOf } = mapTimes({}, ['America/New_York']);
  const made = await tiles.make(layer, { z: Number(m[2]), x: Number(m[3]), y: Number(m[4]), asOf, knownAsOf });
  if (made.features === 0) {
    res.statusCode = 204;
    res.end();
    return;
  }
  const coding = chooseCoding(req.headers['accept-encoding']);
  res.setHeader('Content-Type', 'application/vnd.mapbox-vector-tile');
  res.setHeader('Vary', 'Accept-Encoding');
  if (coding !== 'identity') res.setHeader('Content-Encoding', coding);
  res.end(await encode(made.tile, coding));
}).listen(Number(port), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
