import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ENV_VARIABLES } from '../src/config/app-config';

/**
 * Every relative link in README.md and docs/ must reach a file of the repository, and a `#fragment` into a
 * Markdown page one of its headings: the README was split into docs/ pages, and a page renamed or a heading
 * reworded must not leave a reader at a dead end. Links to other sites are not fetched (CI has no internet).
 */

const ROOT = resolve(__dirname, '..');

interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** GitHub's heading anchors: lower case, punctuation dropped (not `-` or `_`), spaces to `-`; repeats get `-1`, `-2`… */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line.raw);
    if (!heading) continue;
    const slug = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The file's lines outside fenced code blocks; `text` with inline code blanked out (a link shown as code is none). */
function proseLines(markdown: string): { raw: string; text: string; line: number }[] {
  const lines: { raw: string; text: string; line: number }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, i) => {
    if (/^\s*(```|~~~)/.test(text)) {
      fenced = !fenced;
      return;
    }
    if (!fenced) lines.push({ raw: text, text: text.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length)), line: i + 1 });
  });
  return lines;
}

/** Targets of `[text](target)` and `![alt](target)` links and of `<img src="…">`, with their line numbers. */
export function linkTargets(markdown: string): { target: string; line: number }[] {
  const targets: { target: string; line: number }[] = [];
  for (const { text, line } of proseLines(markdown)) {
    for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push({ target: match[1], line });
    for (const match of text.matchAll(/<img\s[^>]*src="([^"]+)"/g)) targets.push({ target: match[1], line });
  }
  return targets;
}

/** The broken relative links of one Markdown file; `read` gives other pages' text (for their anchors). */
export function brokenLinks(file: string, markdown: string, read: (path: string) => string | undefined): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const { target, line } of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: another site
    const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
    const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
    const where = { file: relative(ROOT, file), line, target };
    if (!path.startsWith(ROOT + '/') && path !== ROOT) {
      broken.push({ ...where, reason: 'leaves the repository' });
      continue;
    }
    const text = pathPart === '' ? markdown : read(path);
    if (text === undefined) {
      broken.push({ ...where, reason: 'no such file' });
      continue;
    }
    if (fragment !== undefined && path.endsWith('.md') && !headingAnchors(text).has(fragment)) {
      broken.push({ ...where, reason: `no heading #${fragment}` });
    }
  }
  return broken;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** A file's text, '' for a directory or a binary (they exist; only Markdown pages have anchors). */
function readRepoFile(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  return statSync(path).isFile() && path.endsWith('.md') ? readFileSync(path, 'utf8') : '';
}

describe('links in README.md and docs/', () => {
  const files = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

  it('finds the pages it checks', () => {
    expect(files.length).toBeGreaterThan(10);
    expect(files.map((file) => relative(ROOT, file))).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/api.md']));
  });

  it('resolve: every relative link reaches a file, and every #fragment a heading of its page', () => {
    const broken = files.flatMap((file) => brokenLinks(file, readFileSync(file, 'utf8'), readRepoFile));
    expect(broken.map((link) => `${link.file}:${link.line} ${link.target} — ${link.reason}`)).toEqual([]);
  });

  it('every page of docs/ is reachable from the index (docs/README.md) or the README', () => {
    const linked = new Set<string>();
    for (const index of [join(ROOT, 'README.md'), join(ROOT, 'docs', 'README.md')]) {
      for (const { target } of linkTargets(readFileSync(index, 'utf8'))) {
        linked.add(resolve(dirname(index), decodeURIComponent(target.split('#')[0])));
      }
    }
    const orphans = markdownFiles(join(ROOT, 'docs')).filter((file) => !file.endsWith('docs/README.md') && !linked.has(file));
    expect(orphans.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('configuration.md names every environment variable src/config reads', () => {
    // The keys of the one zod schema loadConfig parses the environment with (src/config/app-config.ts, ENV).
    const names = new Set(ENV_VARIABLES);
    expect(names.size).toBeGreaterThan(40);
    const page = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    expect([...names].filter((name) => !page.includes('`' + name + '`'))).toEqual([]);
  });

  describe('the checker itself', () => {
    const page = join(ROOT, 'docs', 'page.md');
    const other = join(ROOT, 'docs', 'other.md');
    const read = (path: string) => (path === other ? '# Other page\n\n## When: `wait_until`\n\n## Same\n\n## Same\n' : undefined);

    it('reports a missing file, a missing heading and a link out of the repository', () => {
      const markdown = ['[gone](gone.md) and [there](other.md#no-such-heading)', '![up](../../outside.png)'].join('\n');
      expect(brokenLinks(page, markdown, read).map((link) => [link.line, link.target, link.reason])).toEqual([
        [1, 'gone.md', 'no such file'],
        [1, 'other.md#no-such-heading', 'no heading #no-such-heading'],
        [2, '../../outside.png', 'leaves the repository'],
      ]);
    });

    it('accepts GitHub anchors (code and punctuation dropped, repeats numbered), other sites and links shown as code', () => {
      const markdown = [
        '[a](other.md#when-wait_until) [b](other.md#same-1) [c](https://example.com/x.md) [d](#top)',
        '`[not a link](nowhere.md)`',
        '```',
        '[in a code block](nowhere.md)',
        '```',
        '# Top',
      ].join('\n');
      expect(brokenLinks(page, markdown, read)).toEqual([]);
    });
  });
});
