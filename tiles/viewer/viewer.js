// The Landlex map page: town outlines, districts coloured by type (with a legend of the types
// drawn), overlays and parcels from /map tiles, each layer over the zooms its TileJSON states; it
// opens framed on the chosen town (?jurisdiction=, its boundary from the OGC jurisdictions
// collection), or on the data of every town. A click asks /rule at the parcel and shows each rule
// with its quoted passage; the as_of slider redraws the map as the law stood on that date. The
// API key stays in this browser (localStorage), sent as a header.
import * as maplibregl from '/viewer/lib/maplibre-gl.mjs';

{
  const $ = (id) => document.getElementById(id);
  const keyInput = $('key');
  keyInput.value = localStorage.getItem('landlex-key') || '';
  const headers = () => ({ 'X-API-Key': keyInput.value });
  const api = async (path) => {
    const res = await fetch(path, { headers: headers() });
    const body = await res.json();
    if (!res.ok) throw new Error(body.detail?.error?.detail || res.statusText);
    return body;
  };
  let dates = [];
  const asOf = () => dates[Number($('asof').value)] || null;
  const tileUrl = (layer) => `${location.origin}/map/${layer}/{z}/{x}/{y}${asOf() ? `?as_of=${asOf()}` : ''}`;
  // District types (district.type) drawn in these colours; a type outside them gets one of its own.
  const PALETTE = { residential: '#e8c547', commercial: '#d9534f', mixed_use: '#e8893a', office: '#c2569b', industrial: '#8e6bbf', institutional: '#3f86d1', open_space: '#4caf50', special: '#7d8b99' };
  const UNCLASSIFIED = '#b9c3cb';
  const colourOf = (type) => {
    if (!type) return UNCLASSIFIED;
    if (PALETTE[type]) return PALETTE[type];
    let h = 0;
    for (const c of type) h = (h * 31 + c.charCodeAt(0)) >>> 0;
    return `hsl(${h % 360}, 55%, 55%)`;
  };
  const typesDrawn = new Set(Object.keys(PALETTE));
  const fillColour = () => ['match', ['coalesce', ['get', 'type'], ''], ...[...typesDrawn].flatMap((t) => [t, colourOf(t)]), UNCLASSIFIED];
  // Each layer's TileJSON (zooms and bounds of its data), read once.
  const tilejson = {};
  const LAYERS = ['coverage', 'district', 'overlay', 'parcel'];

  const map = new maplibregl.Map({
    container: 'map',
    style: { version: 8, sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': '#f4f1ea' } }] },
    center: [-98.5, 39.5], // until a town or the data is framed
    zoom: 3,
    transformRequest: (url) => (url.startsWith(location.origin) ? { url, headers: headers() } : { url }),
  });
  window.landlexMap = map;
  window.landlexViewer = { get dates() { return [...dates]; }, asOf: () => asOf(), colourOf, get framed() { return framed; } };
  let framed = null;

  function addLayers() {
    for (const id of LAYERS) {
      if (map.getSource(id)) {
        map.getSource(id).setTiles([tileUrl(id)]);
        continue;
      }
      const t = tilejson[id] || {};
      map.addSource(id, { type: 'vector', tiles: [tileUrl(id)], minzoom: t.minzoom ?? 0, maxzoom: t.maxzoom ?? 20 });
    }
    if (!map.getLayer('district-fill')) {
      map.addLayer({ id: 'district-fill', type: 'fill', source: 'district', 'source-layer': 'district', paint: { 'fill-color': fillColour(), 'fill-opacity': 0.5 } });
      map.addLayer({ id: 'district-line', type: 'line', source: 'district', 'source-layer': 'district', paint: { 'line-color': '#333', 'line-width': 1 } });
      map.addLayer({ id: 'town-line', type: 'line', source: 'coverage', 'source-layer': 'coverage', paint: { 'line-color': '#1f2933', 'line-width': 1.5 } });
      map.addLayer({ id: 'overlay-line', type: 'line', source: 'overlay', 'source-layer': 'overlay', paint: { 'line-color': '#b7410e', 'line-width': 2, 'line-dasharray': [2, 1] } });
      map.addLayer({ id: 'parcel-line', type: 'line', source: 'parcel', 'source-layer': 'parcel', paint: { 'line-color': '#555', 'line-width': 0.5 } });
      map.addLayer({ id: 'parcel-fill', type: 'fill', source: 'parcel', 'source-layer': 'parcel', paint: { 'fill-color': '#000', 'fill-opacity': 0.01 } });
    }
  }

  // The legend: the district types drawn in the view, in the colours they are drawn with. A type
  // seen for the first time gets its colour into the fill expression (which redraws, then idles).
  function showLegend() {
    if (!map.getLayer('district-fill')) return;
    const here = new Set(map.queryRenderedFeatures({ layers: ['district-fill'] }).map((f) => f.properties.type || ''));
    const fresh = [...here].filter((t) => t && !typesDrawn.has(t));
    if (fresh.length) {
      for (const t of fresh) typesDrawn.add(t);
      map.setPaintProperty('district-fill', 'fill-color', fillColour());
    }
    const types = [...here].sort((a, b) => (a === '') - (b === '') || a.localeCompare(b));
    $('legend').hidden = types.length === 0;
    $('legend').innerHTML = `<strong>District types</strong>${types
      .map((t) => `<div class="entry" data-type="${esc(t)}" data-colour="${esc(colourOf(t))}"><span class="swatch" style="background:${esc(colourOf(t))}"></span>${esc(t ? t.replace(/_/g, ' ') : 'unclassified')}</div>`)
      .join('')}`;
  }

  async function readTileJson() {
    await Promise.all(
      LAYERS.map(async (id) => {
        if (!tilejson[id]) tilejson[id] = await api(`/map/${id}`);
      }),
    );
  }

  // A geometry's box [west, south, east, north].
  function boxOf(geometry) {
    const box = [Infinity, Infinity, -Infinity, -Infinity];
    const walk = (c) => {
      if (typeof c[0] === 'number') {
        box[0] = Math.min(box[0], c[0]);
        box[1] = Math.min(box[1], c[1]);
        box[2] = Math.max(box[2], c[0]);
        box[3] = Math.max(box[3], c[1]);
      } else for (const x of c) walk(x);
    };
    if (geometry?.coordinates) walk(geometry.coordinates);
    return box[0] <= box[2] ? box : null;
  }

  // The data's bounds: the district and parcel layers' TileJSON bounds (not the world's, which
  // stands for no data).
  function dataBox() {
    const boxes = ['district', 'parcel'].map((id) => tilejson[id]?.bounds).filter((b) => b && !(b[0] === -180 && b[2] === 180));
    if (!boxes.length) return null;
    return [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
  }

  // A town's box: its boundary (OGC jurisdictions collection; one credit, asked once per town).
  const townBoxes = new Map();
  async function townBox(id) {
    if (!townBoxes.has(id)) {
      const feature = await api(`/map/ogc/collections/jurisdictions/items/${encodeURIComponent(id)}`).catch(() => null);
      townBoxes.set(id, boxOf(feature?.geometry));
    }
    return townBoxes.get(id);
  }

  // Frame the chosen town, or with none chosen (or its boundary not held) the data of every town.
  async function frame(id) {
    const box = (id && (await townBox(id))) || dataBox();
    if (!box) return;
    framed = { jurisdiction: id || null, box };
    map.fitBounds([[box[0], box[1]], [box[2], box[3]]], { padding: 24, duration: 0, maxZoom: 17 });
  }

  async function loadJurisdictions() {
    const body = await api('/jurisdiction?size=200&sort=name');
    const select = $('jurisdiction');
    const wanted = new URLSearchParams(location.search).get('jurisdiction');
    select.innerHTML = '<option value="">All towns</option>';
    for (const j of body.item.filter((x) => x.fips.level !== 'state' && x.fips.level !== 'county')) {
      const o = document.createElement('option');
      o.value = j.id;
      o.textContent = j.name;
      o.dataset.slug = j.slug;
      o.dataset.timezone = j.timezone || 'UTC';
      if (wanted && (wanted === j.id || wanted === j.slug)) o.selected = true;
      select.appendChild(o);
    }
    await chooseJurisdiction();
  }

  // The slider's stops: every date on which the map or the law of the jurisdiction changed (each
  // map version's effective_from from GET /map, each change event's effective_date from
  // GET /change_event), and today. A stop shows the law from that date until the next stop.
  let changesOn = new Map();
  const note = (day, what) => {
    if (!day) return;
    if (!changesOn.has(day)) changesOn.set(day, new Set());
    if (what) changesOn.get(day).add(what);
  };

  async function changeEvents(id) {
    const events = [];
    let path = `/change_event?since=0&jurisdiction=${encodeURIComponent(id)}&size=200`;
    for (let page = 0; path && page < 10; page++) {
      const body = await api(path);
      events.push(...body.item);
      path = body.page?.next_cursor ? `/change_event?since=0&jurisdiction=${encodeURIComponent(id)}&size=200&cursor=${encodeURIComponent(body.page.next_cursor)}` : null;
    }
    return events;
  }

  function showDate() {
    const day = asOf();
    const what = [...(changesOn.get(day) || [])];
    $('asof-label').textContent = what.length ? `${day} · ${what.join(', ')}` : day;
  }

  // Today as a date: where the town is (its law is dated by its own calendar); for every town,
  // the earliest of their todays (the day that has begun in all of them, as the tiles read it).
  function today(options) {
    const days = options.map((o) => new Intl.DateTimeFormat('en-CA', { timeZone: o.dataset.timezone || 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date()));
    return days.sort()[0] || new Date().toISOString().slice(0, 10);
  }

  async function chooseJurisdiction() {
    const select = $('jurisdiction');
    const id = select.value;
    const option = select.selectedOptions[0];
    const url = new URL(location.href);
    if (id) url.searchParams.set('jurisdiction', option.dataset.slug || id);
    else url.searchParams.delete('jurisdiction');
    history.replaceState(null, '', url);
    const day = today(id ? [option] : [...select.options].filter((o) => o.value));
    changesOn = new Map();
    note(day, 'today');
    const versions = await api(`/map?${id ? `jurisdiction=${id}&` : ''}as_of=${encodeURIComponent('from:1900-01-01 to:2100-12-31')}`);
    for (const v of versions.item) note(v.effective_from, `${v.layer} map`);
    if (id) {
      try {
        for (const e of await changeEvents(id)) note(e.effective_date, e.kind.replace('_', ' '));
      } catch {
        // a key without law:read still draws the map versions' dates
      }
    }
    dates = [...changesOn.keys()].sort();
    $('asof').max = String(dates.length - 1);
    $('asof').value = String(dates.indexOf(day));
    showDate();
    await readTileJson();
    addLayers();
    // the chosen town's outline drawn thicker
    map.setPaintProperty('town-line', 'line-width', ['case', ['==', ['get', 'jurisdiction'], id], 3, 1.5]);
    await frame(id);
  }

  function esc(s) {
    return String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  }

  function fact(title, value, citation) {
    const quote = citation?.quote ? `<blockquote>${esc(citation.quote)}</blockquote><div class="muted"><a class="source" href="/citation/${citation.id}/source#passage" target="_blank">source</a> · ${esc(citation.section_ref || '')} retrieved ${esc(citation.retrieved_at || '')}</div>` : '<div class="muted">no passage held</div>';
    return `<div class="fact"><strong>${esc(title)}</strong> ${esc(value)}${quote}</div>`;
  }

  async function showRule(lngLat) {
    const panel = $('answer');
    panel.innerHTML = '<p>Asking…</p>';
    try {
      const q = `/rule?point=${lngLat.lat.toFixed(6)},${lngLat.lng.toFixed(6)}${asOf() ? `&as_of=${asOf()}` : ''}&include=moratorium`;
      const r = await api(q);
      const parts = [`<h3 id="answer-title">${esc(r.jurisdiction?.name)} · ${esc(r.resolution.parcel_key || r.resolution.grain)}</h3>`, `<div class="muted">as of ${esc(r.as_of.resolved.to)} · answer ${esc(r.meta.answer_id)}</div>`];
      for (const s of r.item?.share || []) {
        parts.push(fact(`District ${s.district.code}`, `${s.district.local_label || ''} (${Math.round((s.share ?? 1) * 100)}%)`, s.district.citation));
        for (const c of s.control) parts.push(fact(c.control_type, `${c.value_text ?? ''} ${c.building_type ? `(${c.building_type})` : ''}`, c.citation));
        for (const p of s.permission.slice(0, 40)) parts.push(fact(p.use?.label_raw || p.use?.slug, `${p.symbol} · ${p.level}`, p.citation));
      }
      for (const o of r.item?.overlay || []) parts.push(fact(`Overlay ${o.district.code}`, o.district.local_label || '', o.district.citation));
      for (const n of r.item?.not_consulted || []) parts.push(`<div class="muted">not consulted: ${esc(n.layer)} (${esc(n.reason)})</div>`);
      panel.innerHTML = parts.join('');
    } catch (err) {
      panel.innerHTML = `<p>${esc(err.message)}</p>`;
    }
  }

  map.on('click', (e) => showRule(e.lngLat));
  $('asof').addEventListener('input', () => {
    showDate();
    addLayers();
  });
  // The passage's source needs the key, which a plain link would not send: fetch it and open it.
  $('answer').addEventListener('click', async (e) => {
    const a = e.target.closest('a.source');
    if (!a) return;
    e.preventDefault();
    const win = window.open('', '_blank');
    try {
      const res = await fetch(a.getAttribute('href').replace(/#.*$/, ''), { headers: headers() });
      const url = URL.createObjectURL(new Blob([await res.text()], { type: 'text/html' }));
      if (win) win.location.href = `${url}#passage`;
    } catch (err) {
      win?.close();
      $('answer').insertAdjacentHTML('afterbegin', `<p>${esc(err.message)}</p>`);
    }
  });
  $('show-parcels').addEventListener('change', (e) => {
    for (const l of ['parcel-line', 'parcel-fill']) map.setLayoutProperty(l, 'visibility', e.target.checked ? 'visible' : 'none');
  });
  $('show-overlays').addEventListener('change', (e) => map.setLayoutProperty('overlay-line', 'visibility', e.target.checked ? 'visible' : 'none'));
  $('jurisdiction').addEventListener('change', chooseJurisdiction);
  keyInput.addEventListener('change', () => {
    localStorage.setItem('landlex-key', keyInput.value);
    loadJurisdictions().catch((err) => ($('answer').textContent = err.message));
  });
  map.on('idle', showLegend);
  map.on('load', () => {
    if (keyInput.value) loadJurisdictions().catch((err) => ($('answer').textContent = err.message));
  });
}
