// A PDF's text layer, page by page. A PDF with no text layer (a scan) yields no text, and the
// parser reports it rather than guessing at the page images.
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfText {
  text: string;
  pageStarts: number[]; // offset where each page's text begins
}

interface Item {
  str?: string;
  hasEOL?: boolean;
}

export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
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
