// A PDF's text layer, page by page. A PDF with no text layer (a scan) yields no text, and the
// parser reports it rather than guessing at the page images.
//
// pdf.js (its legacy build, the one made for Node) and its worker module install core-js
// polyfills that replace JSON.stringify, JSON.parse and Array.prototype.push with slower script
// versions for the whole process. It is loaded only when a PDF is read, and those three are put
// back when the reading ends: Node's own are complete, and the API and loaders lean on them.
async function withNativeBuiltins<T>(fn: () => Promise<T>): Promise<T> {
  const { stringify, parse } = JSON;
  const { push } = Array.prototype;
  try {
    return await fn();
  } finally {
    JSON.stringify = stringify;
    JSON.parse = parse;
    Array.prototype.push = push;
  }
}

export interface PdfText {
  text: string;
  pageStarts: number[]; // offset where each page's text begins
}

interface Item {
  str?: string;
  hasEOL?: boolean;
}

export function pdfText(bytes: Uint8Array): Promise<PdfText> {
  return withNativeBuiltins(() => readText(bytes));
}

async function readText(bytes: Uint8Array): Promise<PdfText> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false, verbosity: 0 }).promise;
  let text = '';
  const pageStarts: number[] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pageStarts.push(text.length);
      let line = '';
      for (const item of content.items as Item[]) {
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
  return { text, pageStarts };
}
