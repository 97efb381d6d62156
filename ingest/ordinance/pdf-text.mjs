// A PDF's text layer, read by pdf.js in a worker thread of its own (see pdf.ts): bytes in as
// workerData; out, per page, its height and its text items as [text, x, y, width, size] (PDF
// units, y from the page's bottom), or { error }. Plain JavaScript, so any runner can start it.
import { parentPort, workerData } from 'node:worker_threads';

try {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
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
      pages.push({ height, items });
    }
  } finally {
    await doc.destroy();
  }
  parentPort.postMessage({ pages });
} catch (e) {
  parentPort.postMessage({ error: e instanceof Error ? e.message : String(e) });
}
