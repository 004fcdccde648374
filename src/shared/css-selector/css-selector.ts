/**
 * CSS selector validation without a browser, so that scenario steps with a broken selector are refused when
 * the scenario is created (422 on `steps[i].selector`) instead of failing, or silently timing out, at run time.
 *
 * css-tree tokenizes and parses; what is left here is the policy, an AST walk, for Chromium's `querySelector`.
 * The browser still validates at run time; this check exists to catch typos early. Deliberate choices, each
 * stricter than "anything Chromium will parse":
 *
 * - Pseudo-elements (`::before`, `:before`, `::part()`, puppeteer's `::-p-text()`/`::-p-xpath()`) are refused:
 *   `querySelector` never returns a pseudo-element, so a step using one could never match anything.
 * - Puppeteer's own selector extensions (`>>>`, `>>>>`, `text/…`, `xpath/…`, `aria/…`, `pierce/…`) are refused:
 *   steps take plain CSS only, so what is stored stays portable and means what the spec says.
 * - Pseudo-classes must be known (see SIMPLE_PSEUDO_CLASSES / FUNCTIONAL_PSEUDO_CLASSES): `:hovr` is refused.
 * - Namespace prefixes other than `*|` and `|` are refused (querySelector has no way to declare them).
 * - Where Chromium implements less than Selectors 4, Chromium wins: no `s` attribute flag, `:lang()` takes one
 *   identifier (checked with a differential run against Chromium 156's querySelector over ~100k inputs).
 * - The nesting selector `&` and the column combinator `||` are refused.
 * - Error recovery that browsers apply at the end of input (an unclosed string, bracket or parenthesis, a
 *   trailing backslash, an unterminated comment) is NOT applied: such input is almost always a typo.
 * - `:is()`/`:where()` are checked like `:not()` (no forgiving parsing): `:is(a, !!)` is refused.
 * - `:has()` cannot be nested (also not through `:is()`/`:not()`), as in the spec and Chromium.
 * - Nesting of functional pseudo-classes is capped at MAX_SELECTOR_NESTING levels.
 */
import { fork, ident, tokenize, tokenTypes } from 'css-tree';
import type { CssNode, PseudoClassSelector, Selector, SelectorList } from 'css-tree';

export type CssSelectorVerdict =
  | { valid: true }
  | {
      valid: false;
      /** Human-readable reason (for logs and debugging; the API reports only "is not a valid CSS selector"). */
      reason: string;
      /** Offset in the input where the problem was found. */
      index: number;
    };

/**
 * Pseudo-classes taking no argument, lower case (pseudo-class names are ASCII case-insensitive). Checked
 * against Chromium 156's querySelector: media-state ones (:playing, :paused, :muted, …) are refused there, so
 * here too; :host, :current, :past, :future are left out because they never match an element of a page.
 */
export const SIMPLE_PSEUDO_CLASSES: ReadonlySet<string> = new Set([
  'active',
  'any-link',
  'autofill',
  'checked',
  'default',
  'defined',
  'disabled',
  'empty',
  'enabled',
  'first-child',
  'first-of-type',
  'focus',
  'focus-visible',
  'focus-within',
  'fullscreen',
  'hover',
  'in-range',
  'indeterminate',
  'invalid',
  'last-child',
  'last-of-type',
  'link',
  'modal',
  'only-child',
  'only-of-type',
  'open',
  'optional',
  'out-of-range',
  'picture-in-picture',
  'placeholder-shown',
  'popover-open',
  'read-only',
  'read-write',
  'required',
  'root',
  'scope',
  'target',
  'user-invalid',
  'user-valid',
  'valid',
  'visited',
  '-webkit-autofill',
  '-webkit-any-link',
]);

export type PseudoClassArgument = 'selector-list' | 'relative-selector-list' | 'nth' | 'nth-of' | 'lang' | 'ident';

/** Functional pseudo-classes, lower case, with the kind of argument each takes. */
export const FUNCTIONAL_PSEUDO_CLASSES: ReadonlyMap<string, PseudoClassArgument> = new Map([
  ['not', 'selector-list'],
  ['is', 'selector-list'],
  ['where', 'selector-list'],
  ['has', 'relative-selector-list'],
  ['nth-child', 'nth-of'],
  ['nth-last-child', 'nth-of'],
  ['nth-of-type', 'nth'],
  ['nth-last-of-type', 'nth'],
  ['lang', 'lang'],
  ['dir', 'ident'],
  ['state', 'ident'],
] as const);

/** Maximum nesting depth of functional pseudo-classes (`:not(:is(:not(…)))`). */
export const MAX_SELECTOR_NESTING = 16;

export function isValidCssSelector(selector: string): boolean {
  return checkCssSelector(selector).valid;
}

export function checkCssSelector(selector: string): CssSelectorVerdict {
  if (typeof selector !== 'string') return { valid: false, reason: 'selector must be a string', index: 0 };
  const source = preprocess(selector);
  try {
    checkSelectorList({ text: checkTokens(source), offset: 0 }, { relative: false, insideHas: false });
    return { valid: true };
  } catch (err) {
    if (err instanceof SelectorSyntaxError) return { valid: false, reason: err.message, index: err.index };
    // Anything else is a refusal too, never a crash of the caller.
    return { valid: false, reason: 'selector could not be parsed', index: 0 };
  }
}

class SelectorSyntaxError extends Error {
  constructor(
    message: string,
    readonly index: number,
  ) {
    super(message);
    this.name = 'SelectorSyntaxError';
  }
}

function fail(message: string, index: number): never {
  throw new SelectorSyntaxError(message, index);
}

/** CSS Syntax §3.3: CR, FF and CRLF become LF; NUL becomes U+FFFD. */
function preprocess(input: string): string {
  return input.replace(/\r\n?|\f/g, '\n').replace(/\0/g, '\uFFFD');
}

/** Whether `text` ends with a backslash that escapes nothing (an odd run of backslashes). */
const ENDS_WITH_BACKSLASH = /(?:^|[^\\])(?:\\\\)*\\$/;

const DROP_COMMENT_AFTER: ReadonlySet<string> = new Set(['.', ':', '|', '*', '~', '^', '$']);

/**
 * css-tree tokenizes like a browser, with CSS Syntax's error recovery at the end of input: an unclosed string,
 * comment, bracket or parenthesis is closed silently. Refused here instead (see above), before parsing.
 *
 * Returns the source without the comments that follow `.`, `:`, `|`, `*` or the first character of an attribute
 * operator: Chromium drops comments when it tokenizes, so `.(comment)btn` is the class `btn` there, while css-tree
 * keeps them as tokens and refuses these. (Offsets after such a comment count from the text without it.)
 */
function checkTokens(source: string): string {
  if (/^[ \t\n]*$/.test(source)) fail('empty selector', 0);
  if (ENDS_WITH_BACKSLASH.test(source)) fail('invalid escape', source.length - 1);
  const open: Array<{ close: ']' | ')'; start: number }> = [];
  let depth = 0;
  let previous = '';
  let kept = '';
  tokenize(source, (type, start, end) => {
    const text = source.slice(start, end);
    if (type === tokenTypes.Comment) {
      if (text.length < 4 || !text.endsWith('*/')) fail('unterminated comment', start);
      if (!DROP_COMMENT_AFTER.has(previous)) kept += text;
      return;
    }
    if (type === tokenTypes.BadString) fail('newline in string', start);
    // Only the last token can be a string cut off by the end of input.
    if (type === tokenTypes.String && end === source.length && (text.length < 2 || !text.endsWith(text[0]) || ENDS_WITH_BACKSLASH.test(text.slice(0, -1)))) {
      fail('unterminated string', start);
    }
    if (type === tokenTypes.LeftSquareBracket) open.push({ close: ']', start });
    if (type === tokenTypes.LeftParenthesis || type === tokenTypes.Function) {
      // The only parentheses in a valid selector are functional pseudo-classes': this is their nesting limit,
      // enforced before anything recurses into them.
      if (++depth > MAX_SELECTOR_NESTING) fail('selector is nested too deeply', start);
      open.push({ close: ')', start });
    }
    if (type === tokenTypes.RightSquareBracket || type === tokenTypes.RightParenthesis) {
      if (text === ')') depth--;
      if (open.pop()?.close !== text) fail(text === ')' ? 'unbalanced ")"' : `unexpected "${text}"`, start);
    }
    previous = type === tokenTypes.Delim || type === tokenTypes.Colon ? text : '';
    kept += text;
  });
  const unclosed = open.pop();
  if (unclosed) fail(unclosed.close === ']' ? 'unclosed "["' : 'unclosed "("', unclosed.start);
  return kept;
}

/**
 * A css-tree without its own table of pseudo-class arguments, so that every functional pseudo-class comes back
 * with its argument as one Raw node, parsed below by the kind FUNCTIONAL_PSEUDO_CLASSES gives: css-tree's table
 * is keyed by the name as written (`:n\6ft(a)` would slip past it), and its An+B parser allows comments inside.
 */
const selectorSyntax = fork((config) => ({ ...config, pseudo: {} }));

interface Context {
  /** Inside :has(): a leading combinator is allowed, and :has() may not appear again. */
  relative: boolean;
  insideHas: boolean;
}

/** A piece of the input to parse on its own (the whole selector, or a pseudo-class argument) and where it starts. */
interface Source {
  text: string;
  offset: number;
}

const COMBINATORS: ReadonlySet<string> = new Set([' ', '>', '+', '~']);

/** CSS 2 pseudo-elements that may be written with one colon; refused like every other pseudo-element. */
const LEGACY_PSEUDO_ELEMENTS: ReadonlySet<string> = new Set(['before', 'after', 'first-line', 'first-letter']);

const AN_PLUS_B = /^(?:[+-]?\d*n(?:[ \t\n]*[+-][ \t\n]*\d+)?|[+-]?\d+|odd|even)$/i;

/** Where a node starts in the input (css-tree gives the implied descendant combinator no location). */
function at(node: CssNode, fallback = 0): number {
  return node.loc?.start.offset ?? fallback;
}

function checkSelectorList(source: Source, ctx: Context): void {
  let list: SelectorList;
  let lastToken = tokenTypes.EOF;
  try {
    list = selectorSyntax.parse(source.text, {
      context: 'selectorList',
      positions: true,
      offset: source.offset,
      onToken: (type) => {
        if (type !== tokenTypes.WhiteSpace && type !== tokenTypes.Comment) lastToken = type;
      },
    }) as SelectorList;
  } catch (err) {
    const e = err as { message?: unknown; offset?: unknown };
    if (typeof e.offset === 'number') fail(String(e.message), e.offset);
    throw err;
  }
  // css-tree returns an empty list for an empty argument (`:not()`) and accepts a trailing comma (`a,`).
  if (list.children.isEmpty || lastToken === tokenTypes.Comma) fail('expected a selector', source.offset + source.text.length);
  for (const selector of list.children) {
    if (selector.type !== 'Selector') fail(`unexpected ${selector.type}`, at(selector, source.offset));
    checkComplexSelector(selector, ctx);
  }
}

/** Compounds separated by single combinators; a leading one only inside :has(). */
function checkComplexSelector(selector: Selector, ctx: Context): void {
  let previous: CssNode | null = null;
  for (const node of selector.children) {
    if (node.type === 'Combinator') {
      // css-tree also accepts `/deep/`, a leading combinator anywhere and combinators in a row (`>>>`, `a >> b`).
      const leading = previous === null ? !ctx.relative : previous.type === 'Combinator';
      if (!COMBINATORS.has(node.name) || leading) fail(`unexpected combinator "${node.name}"`, at(node, at(selector)));
    } else {
      // css-tree reads `.a*` and `a/**/b` as one compound; a type selector can only start one.
      if (node.type === 'TypeSelector' && previous !== null && previous.type !== 'Combinator') fail('a type selector must start a compound selector', at(node));
      checkSimpleSelector(node, ctx);
    }
    previous = node;
  }
  if (previous?.type === 'Combinator') fail(`expected a selector after combinator "${previous.name}"`, at(previous, at(selector)));
}

function checkSimpleSelector(node: CssNode, ctx: Context): void {
  switch (node.type) {
    case 'TypeSelector':
      checkNamespace(node.name, at(node));
      return;
    case 'ClassSelector':
      return;
    case 'IdSelector':
      // css-tree takes any hash token; only one whose name is a valid identifier is an ID selector (`#1` is not).
      if (!/^(?:-?(?:[A-Za-z_\u0080-\uffff]|\\.)|--)/.test(node.name)) fail(`"#${node.name}" is not a valid ID selector`, at(node));
      return;
    case 'AttributeSelector':
      // css-tree also reads `[|=x]` (no name) and `[x i]` (a flag without a value).
      if (node.name.name === '') fail('expected an attribute name', at(node));
      if (node.flags !== null && node.value === null) fail(`expected "]" or an attribute operator, found "${node.flags}"`, at(node));
      checkNamespace(node.name.name, at(node));
      // Selectors 4 also has `s`, but Chromium refuses it; `i` is the only flag it accepts. css-tree takes any.
      if (node.flags !== null && ident.decode(node.flags).toLowerCase() !== 'i') fail(`unknown attribute flag "${node.flags}"`, at(node));
      return;
    case 'PseudoClassSelector':
      checkPseudoClass(node, ctx);
      return;
    case 'PseudoElementSelector':
      fail('pseudo-elements are not supported (they never match an element)', at(node));
      return;
    default:
      // css-tree also parses `&` (NestingSelector) and percentages (for @keyframes) in a selector.
      fail(`unexpected ${node.type}`, at(node));
  }
}

/** Type and attribute names come back as `prefix|name`: querySelector can only resolve the `*|` and `|` prefixes. */
function checkNamespace(qualifiedName: string, index: number): void {
  const prefix = /^((?:[^\\|]|\\.)*)\|/s.exec(qualifiedName)?.[1];
  if (prefix !== undefined && prefix !== '' && prefix !== '*') fail('namespace prefixes are not supported', index);
}

function checkPseudoClass(node: PseudoClassSelector, ctx: Context): void {
  const colon = at(node);
  const name = ident.decode(node.name);
  const lower = name.toLowerCase();
  if (node.children === null) {
    if (SIMPLE_PSEUDO_CLASSES.has(lower)) return;
    if (FUNCTIONAL_PSEUDO_CLASSES.has(lower)) fail(`:${lower} needs an argument`, colon + 1);
    if (LEGACY_PSEUDO_ELEMENTS.has(lower)) fail('pseudo-elements are not supported (they never match an element)', colon);
    fail(`unknown pseudo-class ":${name}"`, colon + 1);
  }
  const kind = FUNCTIONAL_PSEUDO_CLASSES.get(lower);
  if (kind === undefined) fail(SIMPLE_PSEUDO_CLASSES.has(lower) ? `:${lower} takes no argument` : `unknown pseudo-class ":${name}()"`, colon + 1);

  // css-tree gives an empty list for an empty argument, else one Raw node (see selectorSyntax).
  const raw = node.children.first;
  const argument: Source = raw?.type === 'Raw' ? { text: raw.value, offset: at(raw) } : { text: '', offset: (node.loc?.end.offset ?? 1) - 1 };
  switch (kind) {
    case 'selector-list':
      checkSelectorList(argument, { relative: false, insideHas: ctx.insideHas });
      return;
    case 'relative-selector-list':
      if (ctx.insideHas) fail(':has() cannot be nested', colon + 1);
      checkSelectorList(argument, { relative: true, insideHas: true });
      return;
    case 'nth':
    case 'nth-of':
      checkNth(argument, lower, kind === 'nth-of', { relative: false, insideHas: ctx.insideHas });
      return;
    case 'lang':
      // Selectors 4 also allows strings and lists (`:lang("de-*", fr)`), but Chromium refuses both.
      checkIdentifier(argument, ':lang() takes one language code such as en or de-CH');
      return;
    case 'ident':
      checkIdentifier(argument, `:${lower}() takes an identifier`);
  }
}

/**
 * <an+b> [of <complex-selector-list>]?. An+B is checked on its source text, whitespace rules included, and without
 * comments inside it; `of` must follow whitespace.
 */
function checkNth(argument: Source, name: string, allowOf: boolean, ctx: Context): void {
  const { text, offset } = argument;
  let first = -1;
  let last = -1;
  let previous = tokenTypes.EOF;
  let ofEnd = -1;
  let ofAfterWhitespace = false;
  tokenize(text, (type, start, end) => {
    if (ofEnd >= 0 || type === tokenTypes.Comment) return;
    if (type === tokenTypes.Ident && last >= 0 && ident.decode(text.slice(start, end)).toLowerCase() === 'of') {
      ofEnd = end;
      ofAfterWhitespace = previous === tokenTypes.WhiteSpace;
      return;
    }
    if (type !== tokenTypes.WhiteSpace) {
      if (first < 0) first = start;
      last = end;
    }
    previous = type;
  });
  if (last < 0) fail(`:${name}() needs an argument such as 2n+1, odd or even`, offset);
  const anPlusB = text.slice(first, last);
  if (!AN_PLUS_B.test(anPlusB)) fail(`"${anPlusB}" is not a valid An+B expression`, offset + first);
  if (ofEnd < 0) return;
  if (!allowOf) fail(`:${name}() does not take "of <selector>"`, offset + last);
  if (!ofAfterWhitespace) fail('unexpected "of"', offset + last);
  checkSelectorList({ text: text.slice(ofEnd), offset: offset + ofEnd }, ctx);
}

/** Exactly one identifier, whitespace and comments around it allowed. */
function checkIdentifier(argument: Source, message: string): void {
  let identifiers = 0;
  let others = 0;
  tokenize(argument.text, (type) => {
    if (type === tokenTypes.Ident) identifiers++;
    else if (type !== tokenTypes.WhiteSpace && type !== tokenTypes.Comment) others++;
  });
  if (identifiers !== 1 || others !== 0) fail(message, argument.offset);
}
