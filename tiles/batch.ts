// Tiles asked at the same moment are made by one statement (tileBatchSql): PostgreSQL's cost of
// starting a statement, and the process's of a round trip, are paid once for the batch, not once
// per tile (measured on one connection: 825 µs a tile alone, 576 µs in batches of 16). Nothing
// waits for a batch to fill: a tile asked while a statement slot is free goes at the end of the
// current turn of the event loop, with whatever else was asked in that turn; tiles asked while
// every slot is busy go together when one frees. A batch that fails is run again tile by tile,
// so one tile's error (or a batch's timeout) is that tile's alone.
import { named, type Queryable } from '../store/db.ts';
import { TILE_LAYERS, type TileLayer, tileBatchSql, tileSql, tolerance } from './layers.ts';

export interface TileAsk {
  z: number;
  x: number;
  y: number;
  /** the date the map shows, and the knowledge instant (ISO) */
  asOf: string;
  knownAsOf: string;
}

export interface MadeTile {
  tile: Buffer;
  features: number;
}

interface Waiting extends TileAsk {
  resolve(made: MadeTile): void;
  reject(err: unknown): void;
}

/** Each layer's statements, written once: for a batch, and for a tile alone. */
const SQL = Object.fromEntries(Object.values(TILE_LAYERS).map((l) => [l.id, { batch: tileBatchSql(l), alone: tileSql(l) }])) as Record<TileLayer['id'], { batch: string; alone: string }>;

const PLAIN = /^[\w.:+-]+$/;
/** An array parameter's text: numbers, dates and ISO instants need no quoting (others are refused). */
function pgArray<T>(items: T[], value: (item: T) => number | string): string {
  const out = items.map(value);
  for (const v of out) if (typeof v === 'string' && !PLAIN.test(v)) throw new Error(`${JSON.stringify(v)} is not a plain array element`);
  return `{${out.join(',')}}`;
}

export class TileBatcher {
  private queues = new Map<TileLayer['id'], { layer: TileLayer; waiting: Waiting[] }>();
  private running = 0;
  private scheduled = false;

  /**
   * `slots`: statements at once (about one per core: more only crowd each other, and make the
   * batches smaller); `most`: tiles in one statement.
   */
  constructor(
    private db: Queryable,
    private slots: number,
    private most = 32,
  ) {}

  /** The tile (ST_AsMVT) and its feature count, as tileSql makes it. */
  make(layer: TileLayer, ask: TileAsk): Promise<MadeTile> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(layer.id) ?? { layer, waiting: [] };
      this.queues.set(layer.id, queue);
      queue.waiting.push({ ...ask, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.start();
        });
      }
    });
  }

  /** Start batches while slots are free, the layers in turn. */
  private start() {
    while (this.running < this.slots) {
      const queue = [...this.queues.values()].find((q) => q.waiting.length > 0);
      if (!queue) return;
      this.queues.delete(queue.layer.id); // its turn taken: it goes last
      this.queues.set(queue.layer.id, queue);
      this.running++;
      const batch = queue.waiting.splice(0, this.most);
      this.run(queue.layer, batch)
        .catch((err) => {
          for (const t of batch) t.reject(err); // run answers each tile; this only backs it up
        })
        .finally(() => {
          this.running--;
          this.start();
        });
    }
  }

  private async run(layer: TileLayer, batch: Waiting[]) {
    if (batch.length === 1) return this.runAlone(layer, batch[0]);
    let rows: Array<{ n: number; tile: Buffer; features: number }>;
    try {
      const values = [pgArray(batch, (t) => t.z), pgArray(batch, (t) => t.x), pgArray(batch, (t) => t.y), pgArray(batch, (t) => t.asOf), pgArray(batch, (t) => t.knownAsOf), pgArray(batch, (t) => tolerance(t.z))];
      rows = (await this.db.query(named(`tile-batch-${layer.id}`, SQL[layer.id].batch, values))).rows;
    } catch {
      await Promise.all(batch.map((t) => this.runAlone(layer, t)));
      return;
    }
    for (const r of rows) batch[r.n - 1].resolve({ tile: r.tile, features: r.features });
    if (rows.length !== batch.length) {
      const lost = new Error(`a batch of ${batch.length} tiles answered ${rows.length} rows`);
      for (const t of batch) t.reject(lost); // a no-op for those resolved
    }
  }

  private async runAlone(layer: TileLayer, t: Waiting) {
    try {
      const { rows } = await this.db.query(named(`tile-bare-${layer.id}`, SQL[layer.id].alone, [t.z, t.x, t.y, t.asOf, t.knownAsOf, tolerance(t.z)]));
      t.resolve({ tile: rows[0].tile, features: rows[0].features });
    } catch (err) {
      t.reject(err);
    }
  }
}
