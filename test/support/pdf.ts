import { spawn } from 'node:child_process';

/** A PDF read back with a PDF library (pdf-parse, on PDF.js): what a reader would see, not what was asked for. */
export interface ReadPdf {
  pages: number;
  /** Each page's text, in order. */
  pageTexts: string[];
  /** Each page's size in points (1/72 in), from its MediaBox. */
  sizes: Array<{ width: number; height: number }>;
  /** The outline's (bookmarks') titles, depth first. */
  outline: string[];
}

/**
 * Run in a plain node process: PDF.js sets up its worker with a dynamic import, which jest's module sandbox refuses
 * ("A dynamic import callback was invoked without --experimental-vm-modules").
 */
const PDF_PARSE = require.resolve('pdf-parse');
const READER = `
const { PDFParse } = require(${JSON.stringify(PDF_PARSE)});
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', async () => {
  const parser = new PDFParse({ data: new Uint8Array(Buffer.concat(chunks)) });
  try {
    const info = await parser.getInfo({ parsePageInfo: true });
    const text = await parser.getText();
    const titles = [];
    const walk = (nodes) => { for (const node of nodes || []) { titles.push(node.title); walk(node.items); } };
    walk(info.outline);
    process.stdout.write(JSON.stringify({
      pages: info.total,
      pageTexts: text.pages.map((page) => page.text),
      sizes: info.pages.map((page) => ({ width: page.width, height: page.height })),
      outline: titles,
    }));
  } finally {
    await parser.destroy();
  }
});
`;

export function readPdf(data: Uint8Array): Promise<ReadPdf> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', READER], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`pdf-parse failed (${code}): ${Buffer.concat(err).toString()}`));
      resolve(JSON.parse(Buffer.concat(out).toString()) as ReadPdf);
    });
    child.stdin.end(Buffer.from(data));
  });
}
