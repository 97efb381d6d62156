// A PDF's text layer, read by pdf.js in a worker thread of its own (see pdf.ts): bytes in as
// workerData, { text, pageStarts } or { error } out. Plain JavaScript, so any runner can start it.
import { parentPort, workerData } from 'node:worker_threads';

try {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: workerData, useSystemFonts: false, isEvalSupported: false, verbosity: 0 }).promise;
  let text = '';
  const pageStarts = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pageStarts.push(text.length);
      let line = '';
      for (const item of content.items) {
        line += item.str ?? '';
        if (item.hasEOL) {
          text += `${line.replace(/[ \t]+$/, '')}\n`;
          line = '';
        }
      }
      if (line.trim()) text += `${line.replace(/[ \t]+$/, '')}\n`;
      text += '\n';
    }
  } finally {
    await doc.destroy();
  }
  parentPort.postMessage({ text, pageStarts });
} catch (e) {
  parentPort.postMessage({ error: e instanceof Error ? e.message : String(e) });
}
