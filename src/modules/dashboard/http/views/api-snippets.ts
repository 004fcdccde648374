import { FORMAT_FILES, type OutputFormat } from '../../../../shared/domain/output-format';

/**
 * The playground's "the same with the API" snippets: curl, Node (the TypeScript client, clients/typescript), Python
 * (the Python client, clients/python) and PHP (the curl extension), each for exactly the options the form sent (the
 * API's JSON body that formToBody made of it). Every value typed into the form reaches these texts, so each language's
 * quoting is done here, once: nothing typed can end a string, start a command substitution or interpolate a variable.
 * The token is never in them: each reads it from the environment (`SCREENSHOT_TOKEN`).
 */

/** What a try asks for: a URL rendered (`/render`), or a capture of one of the account's websites. */
export type SnippetTarget = { kind: 'render'; url: string } | { kind: 'website'; id: number; name: string };

export interface ApiSnippets {
  curl: string;
  node: string;
  python: string;
  php: string;
}

export const SNIPPET_LANGUAGES: ReadonlyArray<{ key: keyof ApiSnippets; label: string }> = [
  { key: 'curl', label: 'curl' },
  { key: 'node', label: 'Node' },
  { key: 'python', label: 'Python' },
  { key: 'php', label: 'PHP' },
];

// ---------------------------------------------------------------------------------------------------------------
// Quoting, one function a language

/** A string as one single-quoted shell word: nothing inside single quotes is special but the quote itself. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A string as a JavaScript (and JSON) string literal; U+2028/2029 escaped too, for older parsers. */
export function jsString(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * A string as a Python literal. JSON's escapes (\" \\ \n \r \t \b \f \uXXXX) are all Python escapes with the same
 * meaning, and a JSON string has no other backslash; astral characters stay as they are (Python 3 source is UTF-8).
 */
export function pythonString(text: string): string {
  return jsString(text);
}

/** A string as a PHP single-quoted literal: only `\\` and `\'` are escapes there; `$` and newlines are plain text. */
export function phpString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

type Lang = 'js' | 'python' | 'php';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A JSON value (the request body's) as a literal of the language, on one line. */
export function literal(value: unknown, lang: Lang): string {
  if (value === null || value === undefined) return lang === 'python' ? 'None' : 'null';
  if (typeof value === 'boolean') return lang === 'python' ? (value ? 'True' : 'False') : String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : lang === 'python' ? 'None' : 'null';
  if (typeof value === 'string') return lang === 'php' ? phpString(value) : lang === 'python' ? pythonString(value) : jsString(value);
  if (Array.isArray(value)) return `[${value.map((v) => literal(v, lang)).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  // json_encode makes an empty PHP array `[]`: an empty object must stay `{}`.
  if (entries.length === 0) return lang === 'php' ? 'new stdClass()' : '{}';
  if (lang === 'php') return `[${entries.map(([k, v]) => `${phpString(k)} => ${literal(v, lang)}`).join(', ')}]`;
  if (lang === 'python') return `{${entries.map(([k, v]) => `${pythonString(k)}: ${literal(v, lang)}`).join(', ')}}`;
  return `{ ${entries.map(([k, v]) => `${IDENTIFIER.test(k) ? k : jsString(k)}: ${literal(v, lang)}`).join(', ')} }`;
}

/** Python keyword arguments; a name that is no identifier (or a keyword) goes through `**{...}`. */
function pythonKwargs(body: Record<string, unknown>): string {
  const plain: string[] = [];
  const other: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    if (IDENTIFIER.test(k) && !PYTHON_KEYWORDS.has(k)) plain.push(`${k}=${literal(v, 'python')}`);
    else other[k] = v;
  }
  if (Object.keys(other).length > 0) plain.push(`**${literal(other, 'python')}`);
  return plain.join(', ');
}

const PYTHON_KEYWORDS = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
]);

// ---------------------------------------------------------------------------------------------------------------
// The snippets

/**
 * The `/render` query of a URL try: `url` first, then each option as GET /render reads it (lists repeated, objects
 * as JSON, the rest as strings).
 */
export function renderQuery(url: string, body: Record<string, unknown>): string {
  const query = new URLSearchParams({ url });
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) for (const v of value) query.append(name, v);
    else if (typeof value === 'object') query.append(name, JSON.stringify(value));
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') query.append(name, String(value));
  }
  return query.toString();
}

/** The file name a snippet saves the answer as. */
export function outputFile(format: unknown): string {
  const known = typeof format === 'string' && format in FORMAT_FILES ? (format as OutputFormat) : 'png';
  return `shot.${FORMAT_FILES[known].extension}`;
}

/** An address as a shell word: in double quotes when nothing in it is special there (the usual case), else single-quoted. */
function shellUrl(url: string): string {
  return /^[A-Za-z0-9%&=+._~:/?#,;@[\]!*()-]*$/.test(url) ? `"${url}"` : shellQuote(url);
}

/** The one-line curl of a URL try: GET /render with the bearer token, the file saved under its format's name. */
export function renderCurl(origin: string, query: string, format: unknown): string {
  return `curl -H "Authorization: Bearer $TOKEN" ${shellUrl(`${origin}/render?${query}`)} -o ${outputFile(format)}`;
}

/** The API call a try of one of the account's websites stands for, copy-ready (the token is the $TOKEN placeholder). */
export function websiteCurl(origin: string, website: { id: number; name: string }, body: Record<string, unknown>): string {
  const json = JSON.stringify(body);
  return [
    // A comment line ends at a newline: none may come from the website's name.
    `# Capture "${website.name.replace(/[\r\n\u2028\u2029]+/g, ' ')}" with these options (the website's saved options fill the rest)`,
    `curl -X POST ${shellQuote(`${origin}/websites/${website.id}/screenshot`)} \\`,
    `  -H "Authorization: Bearer $TOKEN" \\`,
    `  -H 'Content-Type: application/json'${json === '{}' ? '' : ` \\\n  -d ${shellQuote(json)}`}`,
  ].join('\n');
}

function nodeSnippet(origin: string, target: SnippetTarget, body: Record<string, unknown>, file: string): string {
  const head = [`// shot.mjs — run with: SCREENSHOT_TOKEN=sst_… node shot.mjs (npm package: clients/typescript)`, `import { writeFileSync } from 'node:fs';`];
  const client = `const api = createClient({ baseUrl: ${jsString(origin)}, token: process.env.SCREENSHOT_TOKEN });`;
  if (target.kind === 'render') {
    return [
      ...head,
      `import { createClient, render } from '@screenshot-service/client';`,
      client,
      `const { bytes } = await render(api, ${literal({ url: target.url, ...body }, 'js')});`,
      `writeFileSync(${jsString(file)}, bytes);`,
    ].join('\n');
  }
  return [
    ...head,
    `import { createClient, waitForJob } from '@screenshot-service/client';`,
    client,
    `const { data: taken, error } = await api.POST('/websites/{id}/screenshot', { params: { path: { id: ${target.id} } }, body: ${literal(body, 'js')} });`,
    `if (error) throw new Error(error.message);`,
    `const job = await waitForJob(api, taken.job_id);`,
    `if (job.status !== 'succeeded') throw new Error(job.error ?? 'The capture failed');`,
    `const { data: file } = await api.GET('/screenshots/{id}/download', { params: { path: { id: job.screenshot_id } }, parseAs: 'arrayBuffer' });`,
    `writeFileSync(${jsString(file)}, Buffer.from(file));`,
  ].join('\n');
}

function pythonSnippet(origin: string, target: SnippetTarget, body: Record<string, unknown>, file: string): string {
  const head = [
    `# shot.py — run with: SCREENSHOT_TOKEN=sst_… PYTHONPATH=clients/python python3 shot.py`,
    `import os`,
    `from screenshot_client import ScreenshotClient`,
    ``,
    `api = ScreenshotClient(${pythonString(origin)}, token=os.environ["SCREENSHOT_TOKEN"])`,
  ];
  if (target.kind === 'render') {
    const kwargs = pythonKwargs(body);
    return [
      ...head,
      `shot = api.render(${pythonString(target.url)}${kwargs ? `, ${kwargs}` : ''})`,
      `with open(${pythonString(file)}, "wb") as f:`,
      `    f.write(shot.content)`,
    ].join('\n');
  }
  const kwargs = pythonKwargs(body);
  return [
    ...head,
    `job = api.wait_for_job(api.take_screenshot(${target.id}${kwargs ? `, ${kwargs}` : ''}))`,
    `if job["status"] != "succeeded":`,
    `    raise SystemExit(job["error"])`,
    `with open(${pythonString(file)}, "wb") as f:`,
    `    f.write(api.download_screenshot(job["screenshot_id"]))`,
  ].join('\n');
}

function phpSnippet(origin: string, target: SnippetTarget, body: Record<string, unknown>, file: string): string {
  const head = [
    `<?php`,
    `// shot.php — run with: SCREENSHOT_TOKEN=sst_… php shot.php (the curl extension)`,
    `function api(string $method, string $url, ?array $body = null): array {`,
    `    $ch = curl_init($url);`,
    `    $headers = ['Authorization: Bearer ' . getenv('SCREENSHOT_TOKEN')];`,
    `    if ($body !== null) {`,
    `        $headers[] = 'Content-Type: application/json';`,
    `        curl_setopt($ch, CURLOPT_POSTFIELDS, json_encode($body, JSON_UNESCAPED_SLASHES));`,
    `    }`,
    `    curl_setopt_array($ch, [CURLOPT_CUSTOMREQUEST => $method, CURLOPT_HTTPHEADER => $headers, CURLOPT_RETURNTRANSFER => true]);`,
    `    $answer = curl_exec($ch);`,
    `    $status = curl_getinfo($ch, CURLINFO_RESPONSE_CODE);`,
    `    if ($answer === false || $status >= 400) throw new RuntimeException("HTTP $status: " . ($answer ?: curl_error($ch)));`,
    `    return [$status, $answer];`,
    `}`,
    `$base = ${phpString(origin)};`,
  ];
  if (target.kind === 'render') {
    return [
      ...head,
      `[, $bytes] = api('POST', "$base/render", ${literal({ url: target.url, ...body }, 'php')});`,
      `file_put_contents(${phpString(file)}, $bytes);`,
    ].join('\n');
  }
  return [
    ...head,
    `[, $taken] = api('POST', "$base/websites/${target.id}/screenshot", ${Object.keys(body).length ? literal(body, 'php') : '[]'});`,
    `$jobId = json_decode($taken, true)['job_id'];`,
    `do {`,
    `    [, $answer] = api('GET', "$base/jobs/$jobId?wait=30");`,
    `    $job = json_decode($answer, true)['data'];`,
    `} while (!in_array($job['status'], ['succeeded', 'failed'], true));`,
    `if ($job['status'] !== 'succeeded') exit($job['error'] . "\\n");`,
    `[, $bytes] = api('GET', "$base/screenshots/{$job['screenshot_id']}/download");`,
    `file_put_contents(${phpString(file)}, $bytes);`,
  ].join('\n');
}

/** The four snippets of one try: `body` is the API's JSON body of the chosen options (no url). */
export function apiSnippets(origin: string, target: SnippetTarget, body: Record<string, unknown>): ApiSnippets {
  const file = outputFile(body.format);
  return {
    curl: target.kind === 'render' ? renderCurl(origin, renderQuery(target.url, body), body.format) : websiteCurl(origin, target, body),
    node: nodeSnippet(origin, target, body, file),
    python: pythonSnippet(origin, target, body, file),
    php: phpSnippet(origin, target, body, file),
  };
}
