// A PDF's text layer, page by page, with where each piece of text stands (for tables). A PDF with
// no text layer (a scan) yields no text, and the parser reports it rather than guessing at the
// page images. PDFs encrypted with an empty user password open like any other.
//
// pdf.js (its legacy build, the one made for Node) runs in a worker thread of its own
// (pdf-text.mjs), for two reasons: it installs core-js polyfills that replace JSON.stringify,
// JSON.parse and Array.prototype.push for the whole thread, and on a broken PDF it leaves
// rejected promises nobody awaits (page objects it fetched ahead), which would end the process.
// Both stay in the worker; a worker that dies before answering is a PDF that cannot be read.
import { Worker } from 'node:worker_threads';
import type { PLine } from './layout.ts';
import { type PdfPage, pdfLines, type Rule } from './pdf-layout.ts';

export interface PdfText {
  text: string;
  pageStarts: number[]; // offset where each page's text begins
  lines: PLine[]; // every line with its fragments' positions, for tables
  rules: Rule[]; // the straight rules the pages draw (table borders)
}

export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
  return pdfLines(await pdfPages(bytes));
}

function pdfPages(bytes: Uint8Array): Promise<PdfPage[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./pdf-text.mjs', import.meta.url), { workerData: new Uint8Array(bytes) });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      void worker.terminate();
    };
    worker.once('message', (m: { pages: PdfPage[] } | { error: string }) => settle(() => ('error' in m ? reject(new Error(m.error)) : resolve(m.pages))));
    worker.once('error', (e) => settle(() => reject(e)));
    worker.once('exit', (code) => settle(() => reject(new Error(`the PDF reader stopped (exit code ${code})`))));
  });
}
