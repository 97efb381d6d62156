// Locations coarser than a parcel (a place name, "City, ST", a state, a ZIP code) on the real
// Cambridge and Chicago data: 200 at the grain the held jurisdictions defend, 422 only with
// strict=true; two held jurisdictions named alike are ambiguous. Expected jurisdictions are read
// from the jurisdiction table, never written down.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createIngestActivities } from '../../activities/ingest.ts';
import { createLogger } from '../../core/log.ts';
import { FsBlobStore } from '../../store/blobs.ts';
import { runIngestInProcess } from '../../workflows/inprocess.ts';
import { ingestedDatabase } from '../helpers/pipeline.ts';
import { call, createTestOrg, startTestServer } from '../helpers/server.ts';

const q = (s: string) => encodeURIComponent(s);

async function serve(label: string, slugs: string[]) {
  const db = await ingestedDatabase(label, slugs);
  const server = await startTestServer({ DATABASE_URL: db.url, RATE_LIMIT_PER_SECOND: '100000' });
  const key = (await createTestOrg(server, 1000)).apiKey;
  const idOf = async (where: string, params: unknown[]) => (await server.services.pool.query(`SELECT id FROM jurisdiction WHERE ${where}`, params)).rows.map((r) => r.id as string);
  return { db, server, key, idOf, get: (path: string) => call(server, 'GET', path, { key }) };
}

describe('Cambridge: place names, states and ZIP codes', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  let cambridge: string;
  let massachusetts: string;
  beforeAll(async () => {
    s = await serve('cambridge', ['cambridge-ma']);
    [cambridge] = await s.idOf(`name = 'Cambridge' AND state_postal = 'MA'`, []);
    [massachusetts] = await s.idOf(`level = 'state' AND state_postal = 'MA'`, []);
  }, 300_000);
  afterAll(async () => {
    await s?.server.close();
    await s?.db.drop();
  });

  test('"Cambridge, MA" and its other spellings answer 200 at the jurisdiction, with no district; strict refuses', async () => {
    // before: 422 location_unmatched, "No street held is named CAMBRIDGE"
    for (const text of ['Cambridge, MA', 'Cambridge', 'cambridge ma', 'City of Cambridge', 'Cambridge, Massachusetts, USA', 'Cambridge, MA 02139-1234']) {
      const r = await s.get(`/place?address=${q(text)}&include=authority,assignment,boundary`);
      expect(r.status, text).toBe(200);
      expect(r.body.resolution, text).toMatchObject({ state: 'insufficient_precision', grain: 'jurisdiction', jurisdiction: cambridge, parcel: null });
      expect(r.body.jurisdiction.id).toBe(cambridge);
      expect(r.body.item.assignment).toBeNull();
      expect(r.body.authority.length).toBeGreaterThan(0);
    }
    const zipped = await s.get(`/place?address=${q('Cambridge, MA 02139')}`);
    expect(zipped.body.resolution.detail).toMatch(/ZIP code 02139 .*not used/);
    const strict = await s.get(`/place?address=${q('Cambridge, MA')}&strict=true`);
    expect(strict.status).toBe(422);
    expect(strict.body.detail.error).toMatchObject({ code: 'location_insufficient_precision', field: 'address' });
  });

  test('a county and a state held answer at themselves; a state not held answers with no jurisdiction and says so', async () => {
    const [middlesex] = await s.idOf(`level = 'county' AND state_postal = 'MA'`, []);
    const county = await s.get(`/place?address=${q('Middlesex County, MA')}`);
    expect(county.body.resolution).toMatchObject({ state: 'insufficient_precision', grain: 'jurisdiction', jurisdiction: middlesex });
    for (const text of ['MA', 'Massachusetts', 'Commonwealth of Massachusetts']) {
      const r = await s.get(`/place?address=${q(text)}`);
      expect(r.status, text).toBe(200);
      expect(r.body.resolution, text).toMatchObject({ state: 'insufficient_precision', grain: 'jurisdiction', jurisdiction: massachusetts });
    }
    const il = await s.get(`/place?address=${q('IL')}`);
    expect(il.status).toBe(200);
    expect(il.body.resolution).toMatchObject({ state: 'insufficient_precision', jurisdiction: null });
    expect(il.body.resolution.detail).toMatch(/no jurisdiction for the state of Illinois is held/);
    expect(il.body.jurisdiction).toBeNull();
    // a place not held, in a state held: answered at the state, naming what was not found
    const boston = await s.get(`/place?address=${q('Boston, MA')}`);
    expect(boston.body.resolution).toMatchObject({ state: 'insufficient_precision', jurisdiction: massachusetts });
    expect(boston.body.resolution.detail).toMatch(/"BOSTON"/);
  });

  test('a ZIP code alone: nothing held maps ZIP codes to places, so no jurisdiction, said in the detail', async () => {
    const r = await s.get(`/place?address=02139`);
    expect(r.status).toBe(200);
    expect(r.body.resolution).toMatchObject({ state: 'insufficient_precision', jurisdiction: null, parcel: null });
    expect(r.body.resolution.detail).toMatch(/ZIP code 02139 .*nothing held maps ZIP codes to places/);
    const strict = await s.get(`/place?address=02139&strict=true`);
    expect(strict.body.detail.error).toMatchObject({ code: 'location_insufficient_precision', field: 'address' });
  });

  test('a street of a named town keeps the street grain; a street held nowhere in it answers at the town', async () => {
    const street = await s.get(`/place?address=${q('Massachusetts Ave, Cambridge, MA')}`);
    expect(street.body.resolution).toMatchObject({ state: 'insufficient_precision', grain: 'street', jurisdiction: cambridge });
    const none = await s.get(`/place?address=${q('Nowhere Lane, Cambridge, MA')}`);
    expect(none.body.resolution).toMatchObject({ grain: 'jurisdiction', jurisdiction: cambridge });
    expect(none.body.resolution.detail).toMatch(/no street of Cambridge held is named "NOWHERE LN"/);
    // a word that names neither a jurisdiction nor a street is still unmatched
    const unmatched = await s.get(`/place?address=${q('Zzyzx')}`);
    expect(unmatched.status).toBe(422);
    expect(unmatched.body.detail.error).toMatchObject({ code: 'location_unmatched', field: 'address' });
  });

  test('/rule answers at the jurisdiction; /v1/zoning and /conformance refuse a place they cannot put in a district', async () => {
    const rule = await s.get(`/rule?address=${q('Cambridge, MA')}`);
    expect(rule.status).toBe(200);
    expect(rule.body.resolution).toMatchObject({ state: 'insufficient_precision', grain: 'jurisdiction', jurisdiction: cambridge });
    expect(rule.body.item.share).toBeNull();
    expect(rule.body.coverage.jurisdiction).toBe(cambridge);
    const zip = await s.get(`/rule?address=02139`);
    expect(zip.status).toBe(200);
    expect(zip.body.item).toBeNull();
    const zoning = await s.get(`/v1/zoning?address=${q('Cambridge, MA')}`);
    expect(zoning.status).toBe(422);
    expect(zoning.body).toMatchObject({ code: 'location_insufficient_precision' });
    expect(zoning.body.detail).toMatch(/names Cambridge/);
    const conformance = await s.get(`/conformance?address=${q('Cambridge, MA')}&proposed[dimensional.setback_front]=10ft`);
    expect(conformance.status).toBe(422);
    expect(conformance.body.detail.error.code).toBe('location_insufficient_precision');
    // it says why, from the resolution: the place it found
    expect(conformance.body.detail.error.detail).toMatch(/Cambridge/);
  });

  describe('two held jurisdictions named alike', () => {
    let maryland: string;
    beforeAll(async () => {
      // Cambridge, Maryland (Census place 2412400) through the pipeline, from a manifest of its own
      const dir = await mkdtemp(join(tmpdir(), 'landlex-manifests-'));
      const blobs = await mkdtemp(join(tmpdir(), 'landlex-blobs-'));
      await writeFile(
        join(dir, 'cambridge-md.json'),
        JSON.stringify({
          jurisdiction: { slug: 'cambridge-md', name: 'Cambridge', legal_name: 'City of Cambridge', type: 'city', level: 'place', fips: { state: '24', county: '019', place: '12400' }, state_postal: 'MD', timezone: 'America/New_York' },
          sources: [],
        }),
      );
      try {
        const activities = createIngestActivities({ pool: s.server.services.pool, blobs: new FsBlobStore(blobs), log: createLogger('silent'), manifestDir: dir });
        await runIngestInProcess(activities, ['cambridge-md'], { sleep: async () => {} });
      } finally {
        await rm(dir, { recursive: true, force: true });
        await rm(blobs, { recursive: true, force: true });
      }
      [maryland] = await s.idOf(`name = 'Cambridge' AND state_postal = 'MD'`, []);
    }, 120_000);

    test('"Cambridge" is ambiguous with both as candidates; the state names one; strict refuses', async () => {
      const r = await s.get(`/place?address=Cambridge`);
      expect(r.status).toBe(200);
      expect(r.body.resolution).toMatchObject({ state: 'ambiguous', grain: 'jurisdiction', jurisdiction: null });
      expect(r.body.resolution.candidates.map((c: { jurisdiction: string }) => c.jurisdiction).sort()).toEqual([cambridge, maryland].sort());
      expect(r.body.resolution.detail).toMatch(/names 2 jurisdictions held/);
      const ma = await s.get(`/place?address=${q('Cambridge, MA')}`);
      expect(ma.body.resolution).toMatchObject({ state: 'insufficient_precision', jurisdiction: cambridge });
      const md = await s.get(`/place?address=${q('City of Cambridge, Maryland')}`);
      expect(md.body.resolution).toMatchObject({ state: 'insufficient_precision', jurisdiction: maryland });
      const strict = await s.get(`/place?address=Cambridge&strict=true`);
      expect(strict.body.detail.error).toMatchObject({ code: 'location_ambiguous', field: 'address' });
      const rule = await s.get(`/rule?address=Cambridge`);
      expect(rule.status).toBe(200);
      expect(rule.body.item).toBeNull();
    });

    test('batch: a point or address outside the jurisdiction named is unmatched, saying where it lies', async () => {
      const item = [
        { lat: 42.3629, lon: -71.1113, jurisdiction: 'cambridge-md' },
        { lat: 42.3629, lon: -71.1113, jurisdiction: 'cambridge-ma' },
        { address: 'Cambridge', jurisdiction: 'cambridge-ma' },
        { address: 'Cambridge' },
      ];
      const r = await call(s.server, 'POST', '/v1/parcel/batch', { key: s.key, body: { item } });
      expect(r.status).toBe(200);
      expect(r.body.item.map((i: { status: string }) => i.status)).toEqual(['unmatched', 'matched', 'unmatched', 'unmatched']);
      expect(r.body.item[0].detail).toMatch(/lies in Cambridge, outside Cambridge/);
      // a place name is no parcel; the jurisdiction named settles which Cambridge it is
      expect(r.body.item[2].detail).toMatch(/names Cambridge \(city, MA\).*a jurisdiction, not a place in it/);
      expect(r.body.item[3].detail).toMatch(/names 2 jurisdictions held/);
    });
  });
});

describe('Chicago: "Chicago, IL" and a state not held', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    s = await serve('chicago', ['chicago-il']);
  }, 600_000);
  afterAll(async () => {
    await s?.server.close();
    await s?.db.drop();
  });

  test('"Chicago, IL" answers at Chicago (its own zone); "IL" names the state, not held, and the jurisdictions held in it', async () => {
    const [chicago] = await s.idOf(`name = 'Chicago' AND state_postal = 'IL'`, []);
    for (const text of ['Chicago, IL', 'Chicago, Illinois 60601', 'City of Chicago']) {
      const r = await s.get(`/rule?address=${q(text)}`);
      expect(r.status, text).toBe(200);
      expect(r.body.resolution, text).toMatchObject({ state: 'insufficient_precision', grain: 'jurisdiction', jurisdiction: chicago });
      expect(r.body.item.share).toBeNull();
      expect(r.body.as_of.timezone).toBe('America/Chicago');
    }
    const il = await s.get(`/place?address=IL`);
    expect(il.body.resolution).toMatchObject({ state: 'insufficient_precision', jurisdiction: null });
    expect(il.body.resolution.detail).toMatch(/no jurisdiction for the state of Illinois is held.*held in it: Chicago/);
  });
});
