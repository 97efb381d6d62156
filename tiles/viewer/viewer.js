// The Landlex map page: districts, overlays and parcels from /map tiles; a click asks /rule at
// the parcel and shows each rule with its quoted passage; the as_of slider redraws the map as
// the law stood on that date. The API key stays in this browser (localStorage), sent as a header.
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

  const map = new maplibregl.Map({
    container: 'map',
    style: { version: 8, sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': '#f4f1ea' } }] },
    center: [-71.11, 42.375],
    zoom: 13,
    transformRequest: (url) => (url.startsWith(location.origin) ? { url, headers: headers() } : { url }),
  });
  window.landlexMap = map;
  window.landlexViewer = { get dates() { return [...dates]; }, asOf: () => asOf() };

  function addLayers() {
    for (const id of ['district', 'overlay', 'parcel']) {
      if (map.getSource(id)) {
        map.getSource(id).setTiles([tileUrl(id)]);
        continue;
      }
      map.addSource(id, { type: 'vector', tiles: [tileUrl(id)], minzoom: id === 'parcel' ? 13 : 8, maxzoom: 20 });
    }
    if (!map.getLayer('district-fill')) {
      map.addLayer({ id: 'district-fill', type: 'fill', source: 'district', 'source-layer': 'district', paint: { 'fill-color': ['to-color', ['get', 'color'], '#9ab'], 'fill-opacity': 0.35 } });
      map.addLayer({ id: 'district-line', type: 'line', source: 'district', 'source-layer': 'district', paint: { 'line-color': '#333', 'line-width': 1 } });
      map.addLayer({ id: 'overlay-line', type: 'line', source: 'overlay', 'source-layer': 'overlay', paint: { 'line-color': '#b7410e', 'line-width': 2, 'line-dasharray': [2, 1] } });
      map.addLayer({ id: 'parcel-line', type: 'line', source: 'parcel', 'source-layer': 'parcel', paint: { 'line-color': '#555', 'line-width': 0.5 } });
      map.addLayer({ id: 'parcel-fill', type: 'fill', source: 'parcel', 'source-layer': 'parcel', paint: { 'fill-color': '#000', 'fill-opacity': 0.01 } });
    }
  }

  async function loadJurisdictions() {
    const body = await api('/jurisdiction?size=200&sort=name');
    const select = $('jurisdiction');
    select.innerHTML = '';
    for (const j of body.item.filter((x) => x.fips.level !== 'state' && x.fips.level !== 'county')) {
      const o = document.createElement('option');
      o.value = j.id;
      o.textContent = j.name;
      o.dataset.timezone = j.timezone || 'UTC';
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

  async function chooseJurisdiction() {
    const id = $('jurisdiction').value;
    if (!id) return;
    // today where the jurisdiction is: its law is dated by its own calendar
    const zone = $('jurisdiction').selectedOptions[0]?.dataset.timezone || 'UTC';
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
    changesOn = new Map();
    note(today, 'today');
    const versions = await api(`/map?jurisdiction=${id}&as_of=${encodeURIComponent('from:1900-01-01 to:2100-12-31')}`);
    for (const v of versions.item) note(v.effective_from, `${v.layer} map`);
    try {
      for (const e of await changeEvents(id)) note(e.effective_date, e.kind.replace('_', ' '));
    } catch {
      // a key without law:read still draws the map versions' dates
    }
    dates = [...changesOn.keys()].sort();
    const at = dates.indexOf(today);
    $('asof').max = String(dates.length - 1);
    $('asof').value = String(at);
    showDate();
    const tilejson = await api('/map/district');
    if (tilejson.bounds) map.fitBounds([[tilejson.bounds[0], tilejson.bounds[1]], [tilejson.bounds[2], tilejson.bounds[3]]], { duration: 0 });
    addLayers();
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
  map.on('load', () => {
    if (keyInput.value) loadJurisdictions().catch((err) => ($('answer').textContent = err.message));
  });
}
