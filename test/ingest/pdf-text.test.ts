// A broken PDF is a PDF that cannot be read, reported as such: pdf.js, which on a corrupted page
// tree leaves rejections nobody awaits, runs in a worker of its own, so none reaches this process.
import { afterEach, describe, expect, test } from 'vitest';
import { pdfText } from '../../ingest/ordinance/pdf.ts';
import { makePdf } from '../helpers/pdf.ts';

const stray: unknown[] = [];
const record = (reason: unknown) => stray.push(reason);
afterEach(() => {
  process.off('unhandledRejection', record);
});

const pages = Array.from({ length: 6 }, (_, p) => [`Section ${p + 1}. Part ${p + 1}`, `${p + 1}.1 Title`, `Text of part ${p + 1}.`]);

describe('the PDF text layer', () => {
  test('a good PDF: its text, page by page, and the process keeps its own JSON', async () => {
    const natives = [JSON.stringify, JSON.parse, Array.prototype.push];
    const r = await pdfText(makePdf(pages));
    expect(r.pageStarts).toHaveLength(6);
    expect(r.text.slice(r.pageStarts[2], r.pageStarts[3])).toMatch(/^Section 3\. Part 3\s+3\.1 Title\s+Text of part 3\.\s*$/);
    expect([JSON.stringify, JSON.parse, Array.prototype.push]).toEqual(natives);
  });

  test('a corrupted page tree fails the read with pdf.js reason and leaves no unhandled rejection', async () => {
    process.on('unhandledRejection', record);
    const broken = Buffer.from(makePdf(pages));
    broken.fill(0x41, Math.floor(broken.length * 0.4), Math.floor(broken.length * 0.6));
    await expect(pdfText(new Uint8Array(broken))).rejects.toThrow(/Command token too long/);
    await expect(pdfText(new TextEncoder().encode('%PDF-1.4\nnot really'))).rejects.toThrow(/Invalid PDF structure/);
    await new Promise((r) => setTimeout(r, 300));
    expect(stray).toEqual([]);
  });
});
