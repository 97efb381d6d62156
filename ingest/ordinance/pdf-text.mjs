// A PDF's text layer, read by pdf.js in a worker thread of its own (see pdf.ts): bytes in as
// workerData; out, per page, its height, its text items as [text, x, y, width, size] and the
// straight rules it draws (table borders: thin filled rectangles or stroked lines) as
// [x0, y0, x1, y1] (PDF units, y from the page's bottom), or { error }. Plain JavaScript, so any
// runner can start it.
import { parentPort, workerData } from 'node:worker_threads';

const THIN = 2.5; // a filled rectangle this thin is a rule, not a shaded cell
const MAX_RULES = 20000;

/** Axis-parallel rules a page draws, in page space. */
function rulesOf(ops, OPS) {
  const rules = [];
  let ctm = [1, 0, 0, 1, 0, 0];
  const stack = [];
  const mul = (m, n) => [m[0] * n[0] + m[1] * n[2], m[0] * n[1] + m[1] * n[3], m[2] * n[0] + m[3] * n[2], m[2] * n[1] + m[3] * n[3], m[4] * n[0] + m[5] * n[2] + n[4], m[4] * n[1] + m[5] * n[3] + n[5]];
  const at = (x, y) => [ctm[0] * x + ctm[2] * y + ctm[4], ctm[1] * x + ctm[3] * y + ctm[5]];
  const push = (a, b) => {
    const [x0, x1] = a[0] <= b[0] ? [a[0], b[0]] : [b[0], a[0]];
    const [y0, y1] = a[1] <= b[1] ? [a[1], b[1]] : [b[1], a[1]];
    if (rules.length < MAX_RULES) rules.push([x0, y0, x1, y1].map((v) => Math.round(v * 100) / 100));
  };
  const filled = new Set([OPS.fill, OPS.eoFill, OPS.fillStroke, OPS.eoFillStroke, OPS.closeFillStroke, OPS.closeEOFillStroke]);
  const stroked = new Set([OPS.stroke, OPS.closeStroke]);
  for (let i = 0; i < ops.fnArray.length; i++) {
    const fn = ops.fnArray[i];
    const args = ops.argsArray[i];
    if (fn === OPS.save) stack.push(ctm);
    else if (fn === OPS.restore) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.transform) ctm = mul(args, ctm);
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push(ctm);
      if (args?.[0]) ctm = mul(args[0], ctm);
    } else if (fn === OPS.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === OPS.constructPath) {
      const [paint, [data]] = args;
      if (!data || !(filled.has(paint) || stroked.has(paint))) continue;
      // subpaths of straight segments
      const paths = [];
      let cur = [];
      for (let k = 0; k < data.length; ) {
        const op = data[k];
        if (op === 0) {
          if (cur.length) paths.push(cur);
          cur = [at(data[k + 1], data[k + 2])];
          k += 3;
        } else if (op === 1) {
          cur.push(at(data[k + 1], data[k + 2]));
          k += 3;
        } else if (op === 2) {
          cur = [];
          k += 7;
        } else if (op === 3) {
          cur = [];
          k += 5;
        } else {
          if (cur.length) cur.push(cur[0]);
          k += 1;
        }
      }
      if (cur.length) paths.push(cur);
      for (const p of paths) {
        if (filled.has(paint)) {
          const xs = p.map((q) => q[0]);
          const ys = p.map((q) => q[1]);
          const w = Math.max(...xs) - Math.min(...xs);
          const h = Math.max(...ys) - Math.min(...ys);
          if (h <= THIN && w > h) push([Math.min(...xs), (Math.min(...ys) + Math.max(...ys)) / 2], [Math.max(...xs), (Math.min(...ys) + Math.max(...ys)) / 2]);
          else if (w <= THIN && h > w) push([(Math.min(...xs) + Math.max(...xs)) / 2, Math.min(...ys)], [(Math.min(...xs) + Math.max(...xs)) / 2, Math.max(...ys)]);
        }
        if (stroked.has(paint))
          for (let k = 1; k < p.length; k++) {
            const [a, b] = [p[k - 1], p[k]];
            if (Math.abs(a[0] - b[0]) < 0.5 || Math.abs(a[1] - b[1]) < 0.5) push(a, b);
          }
      }
    }
  }
  return rules;
}

/**
 * Whether a page sets text in three or more columns (three lines with two wide gaps between their
 * pieces): only then are its drawn rules read, which costs as much again as its text.
 */
function columned(items) {
  const lines = new Map();
  for (const [, x, y, w, size] of items) {
    const key = Math.round(y / 2);
    const l = lines.get(key) ?? [];
    l.push([x, x + w, size]);
    lines.set(key, l);
  }
  let n = 0;
  for (const l of lines.values()) {
    l.sort((a, b) => a[0] - b[0]);
    if (l.filter((it, i) => i > 0 && it[0] - l[i - 1][1] > 1.5 * it[2]).length >= 2) n++;
  }
  return n >= 3;
}

try {
  const { getDocument, OPS } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: workerData, useSystemFonts: false, isEvalSupported: false, verbosity: 0 }).promise;
  const pages = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const { height } = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const items = [];
      for (const item of content.items) {
        if (!item.str || !item.str.trim()) continue;
        const [a, b, , d, x, y] = item.transform;
        items.push([item.str, x, y, item.width, Math.abs(d) || Math.hypot(a, b) || 1]);
      }
      let rules = [];
      if (columned(items))
        try {
          rules = rulesOf(await page.getOperatorList(), OPS);
        } catch {
          rules = []; // a page whose drawing cannot be read still has its text
        }
      pages.push({ height, items, rules });
    }
  } finally {
    await doc.destroy();
  }
  parentPort.postMessage({ pages });
} catch (e) {
  parentPort.postMessage({ error: e instanceof Error ? e.message : String(e) });
}
