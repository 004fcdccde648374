/**
 * CSS selector validation without a browser, so that scenario steps with a broken selector are refused when
 * the scenario is created (422 on `steps[i].selector`) instead of failing, or silently timing out, at run time.
 *
 * It is a tokenizer (CSS Syntax Level 3, §4) plus a parser for the Selectors Level 4 grammar as Chromium's
 * `querySelector` accepts it. The browser still validates at run time; this check exists to catch typos early.
 * Deliberate choices, each stricter than "anything Chromium will parse":
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
    const tokens = new Tokenizer(source).tokenize();
    new SelectorParser(source, tokens).parseTopLevel();
    return { valid: true };
  } catch (err) {
    if (err instanceof SelectorSyntaxError) return { valid: false, reason: err.message, index: err.index };
    // Anything else (e.g. a stack overflow on pathological input) is a refusal too, never a crash of the caller.
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

/** CSS Syntax §3.3: CR, FF and CRLF become LF; NUL becomes U+FFFD. */
function preprocess(input: string): string {
  return input.replace(/\r\n?|\f/g, '\n').replace(/\0/g, '\uFFFD');
}

// ---------------------------------------------------------------------------------------------------------
// Tokenizer (CSS Syntax Level 3, §4.3), reduced to what selectors need; every token keeps its source range.
// ---------------------------------------------------------------------------------------------------------

type TokenKind =
  | 'ident'
  | 'function'
  | 'at-keyword'
  | 'hash'
  | 'string'
  | 'number'
  | 'percentage'
  | 'dimension'
  | 'whitespace'
  | 'delim'
  | 'colon'
  | 'semicolon'
  | 'comma'
  | '['
  | ']'
  | '('
  | ')'
  | '{'
  | '}'
  | 'cdo'
  | 'cdc'
  | 'eof';

interface Token {
  kind: TokenKind;
  /** Decoded value: ident/function/at-keyword/hash name, string contents, delim character. */
  value: string;
  /** Hash tokens: whether the name is a valid identifier (type flag "id"); only those are ID selectors. */
  isId: boolean;
  start: number;
  end: number;
}

const EOF = -1;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
function isHexDigit(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
function isNameStart(c: number): boolean {
  return isLetter(c) || c === 0x5f /* _ */ || c >= 0x80;
}
function isNameChar(c: number): boolean {
  return isNameStart(c) || isDigit(c) || c === 0x2d; /* - */
}
function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a;
}

class Tokenizer {
  private pos = 0;

  constructor(private readonly s: string) {}

  tokenize(): Token[] {
    const tokens: Token[] = [];
    for (;;) {
      const token = this.next();
      tokens.push(token);
      if (token.kind === 'eof') return tokens;
    }
  }

  private at(offset = 0): number {
    const i = this.pos + offset;
    return i < this.s.length ? this.s.charCodeAt(i) : EOF;
  }

  private token(kind: TokenKind, start: number, value = '', isId = false): Token {
    return { kind, value, isId, start, end: this.pos };
  }

  /**
   * §4.3.8, except that a backslash at the end of input is NOT a valid escape here (the spec turns it into
   * U+FFFD): a trailing backslash in a selector is a typo.
   */
  private isValidEscape(offset = 0): boolean {
    if (this.at(offset) !== 0x5c /* \ */) return false;
    const next = this.at(offset + 1);
    return next !== 0x0a && next !== EOF;
  }

  /** §4.3.9 */
  private startsIdentifier(offset = 0): boolean {
    const c = this.at(offset);
    if (c === 0x2d /* - */) {
      const c1 = this.at(offset + 1);
      return isNameStart(c1) || c1 === 0x2d || this.isValidEscape(offset + 1);
    }
    if (isNameStart(c)) return true;
    return this.isValidEscape(offset);
  }

  /** §4.3.10 */
  private startsNumber(offset = 0): boolean {
    const c = this.at(offset);
    if (c === 0x2b /* + */ || c === 0x2d /* - */) {
      const c1 = this.at(offset + 1);
      return isDigit(c1) || (c1 === 0x2e /* . */ && isDigit(this.at(offset + 2)));
    }
    if (c === 0x2e) return isDigit(this.at(offset + 1));
    return isDigit(c);
  }

  private next(): Token {
    // Comments are dropped (they separate nothing: `a/**/b` is two compounds with no combinator).
    while (this.at() === 0x2f /* / */ && this.at(1) === 0x2a /* * */) {
      const close = this.s.indexOf('*/', this.pos + 2);
      if (close < 0) throw new SelectorSyntaxError('unterminated comment', this.pos);
      this.pos = close + 2;
    }

    const start = this.pos;
    const c = this.at();
    if (c === EOF) return this.token('eof', start);

    if (isWhitespace(c)) {
      while (isWhitespace(this.at())) this.pos++;
      return this.token('whitespace', start);
    }
    if (c === 0x22 /* " */ || c === 0x27 /* ' */) return this.consumeString(c);
    if (c === 0x23 /* # */) {
      if (isNameChar(this.at(1)) || this.isValidEscape(1)) {
        this.pos++;
        const isId = this.startsIdentifier();
        const name = this.consumeName();
        return this.token('hash', start, name, isId);
      }
      this.pos++;
      return this.token('delim', start, '#');
    }
    if (isDigit(c)) return this.consumeNumeric();
    if (isNameStart(c)) return this.consumeIdentLike();

    switch (c) {
      case 0x28:
        this.pos++;
        return this.token('(', start);
      case 0x29:
        this.pos++;
        return this.token(')', start);
      case 0x5b:
        this.pos++;
        return this.token('[', start);
      case 0x5d:
        this.pos++;
        return this.token(']', start);
      case 0x7b:
        this.pos++;
        return this.token('{', start);
      case 0x7d:
        this.pos++;
        return this.token('}', start);
      case 0x2c:
        this.pos++;
        return this.token('comma', start);
      case 0x3a:
        this.pos++;
        return this.token('colon', start);
      case 0x3b:
        this.pos++;
        return this.token('semicolon', start);
      case 0x2b /* + */:
        if (this.startsNumber()) return this.consumeNumeric();
        break;
      case 0x2e /* . */:
        if (this.startsNumber()) return this.consumeNumeric();
        break;
      case 0x2d /* - */:
        if (this.startsNumber()) return this.consumeNumeric();
        if (this.at(1) === 0x2d && this.at(2) === 0x3e /* > */) {
          this.pos += 3;
          return this.token('cdc', start);
        }
        if (this.startsIdentifier()) return this.consumeIdentLike();
        break;
      case 0x3c /* < */:
        if (this.at(1) === 0x21 && this.at(2) === 0x2d && this.at(3) === 0x2d) {
          this.pos += 4;
          return this.token('cdo', start);
        }
        break;
      case 0x40 /* @ */:
        if (this.startsIdentifier(1)) {
          this.pos++;
          return this.token('at-keyword', start, this.consumeName());
        }
        break;
      case 0x5c /* \ */:
        if (this.isValidEscape()) return this.consumeIdentLike();
        throw new SelectorSyntaxError('invalid escape', start);
    }
    this.pos++;
    return this.token('delim', start, String.fromCharCode(c));
  }

  /** §4.3.7; the backslash has been consumed. */
  private consumeEscape(): string {
    const c = this.at();
    if (isHexDigit(c)) {
      let hex = '';
      while (hex.length < 6 && isHexDigit(this.at())) hex += String.fromCharCode(this.s.charCodeAt(this.pos++));
      if (isWhitespace(this.at())) this.pos++;
      const cp = parseInt(hex, 16);
      if (cp === 0 || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return '\uFFFD';
      return String.fromCodePoint(cp);
    }
    this.pos++;
    return String.fromCharCode(c);
  }

  /** §4.3.11 */
  private consumeName(): string {
    let name = '';
    for (;;) {
      const c = this.at();
      if (isNameChar(c)) {
        name += String.fromCharCode(c);
        this.pos++;
      } else if (this.isValidEscape()) {
        this.pos++;
        name += this.consumeEscape();
      } else {
        return name;
      }
    }
  }

  /** §4.3.12; only the shape matters here (numbers are never valid on their own in a selector). */
  private consumeNumber(): void {
    if (this.at() === 0x2b || this.at() === 0x2d) this.pos++;
    while (isDigit(this.at())) this.pos++;
    if (this.at() === 0x2e && isDigit(this.at(1))) {
      this.pos += 2;
      while (isDigit(this.at())) this.pos++;
    }
    const e = this.at();
    if (e === 0x45 || e === 0x65) {
      const s = this.at(1);
      if (isDigit(s) || ((s === 0x2b || s === 0x2d) && isDigit(this.at(2)))) {
        this.pos += isDigit(s) ? 2 : 3;
        while (isDigit(this.at())) this.pos++;
      }
    }
  }

  /** §4.3.3 */
  private consumeNumeric(): Token {
    const start = this.pos;
    this.consumeNumber();
    if (this.startsIdentifier()) {
      const unit = this.consumeName();
      return this.token('dimension', start, unit);
    }
    if (this.at() === 0x25 /* % */) {
      this.pos++;
      return this.token('percentage', start);
    }
    return this.token('number', start);
  }

  /** §4.3.4, without url tokens (`url(` is a function token here; no selector accepts either). */
  private consumeIdentLike(): Token {
    const start = this.pos;
    const name = this.consumeName();
    if (this.at() === 0x28 /* ( */) {
      this.pos++;
      return this.token('function', start, name);
    }
    return this.token('ident', start, name);
  }

  /** §4.3.5, strict: an unescaped newline or the end of input inside a string is an error. */
  private consumeString(quote: number): Token {
    const start = this.pos;
    this.pos++;
    let value = '';
    for (;;) {
      const c = this.at();
      if (c === EOF) throw new SelectorSyntaxError('unterminated string', start);
      if (c === quote) {
        this.pos++;
        return this.token('string', start, value);
      }
      if (c === 0x0a) throw new SelectorSyntaxError('newline in string', this.pos);
      if (c === 0x5c /* \ */) {
        const next = this.at(1);
        if (next === EOF) throw new SelectorSyntaxError('unterminated string', start);
        if (next === 0x0a) {
          this.pos += 2; // escaped newline: line continuation
          continue;
        }
        this.pos++;
        value += this.consumeEscape();
        continue;
      }
      value += String.fromCharCode(c);
      this.pos++;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Parser (Selectors Level 4, §17 grammar)
// ---------------------------------------------------------------------------------------------------------

interface ListContext {
  /** Inside :has(): a leading combinator is allowed, and :has() may not appear again. */
  relative: boolean;
  insideHas: boolean;
  depth: number;
}

const AN_PLUS_B = /^(?:[+-]?\d*n(?:[ \t\n]*[+-][ \t\n]*\d+)?|[+-]?\d+|odd|even)$/i;

function isCombinator(t: Token): boolean {
  return t.kind === 'delim' && (t.value === '>' || t.value === '+' || t.value === '~');
}

function isDelim(t: Token, value: string): boolean {
  return t.kind === 'delim' && t.value === value;
}

function describe(t: Token, source: string): string {
  if (t.kind === 'eof') return 'end of selector';
  return `"${source.slice(t.start, t.end)}"`;
}

class SelectorParser {
  private i = 0;

  constructor(
    private readonly source: string,
    private readonly tokens: Token[],
  ) {}

  parseTopLevel(): void {
    this.skipWhitespace();
    if (this.peek().kind === 'eof') throw new SelectorSyntaxError('empty selector', 0);
    this.parseSelectorList({ relative: false, insideHas: false, depth: 0 }, 'eof');
  }

  private peek(offset = 0): Token {
    const t = this.tokens[this.i + offset];
    return t ?? this.tokens[this.tokens.length - 1];
  }

  private consume(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  private skipWhitespace(): boolean {
    let skipped = false;
    while (this.peek().kind === 'whitespace') {
      this.i++;
      skipped = true;
    }
    return skipped;
  }

  private fail(message: string, t: Token = this.peek()): never {
    throw new SelectorSyntaxError(message, t.start);
  }

  private unexpected(t: Token = this.peek()): never {
    if (t.kind === 'eof') this.fail('unexpected end of selector', t);
    if (t.kind === ')') this.fail('unbalanced ")"', t);
    this.fail(`unexpected ${describe(t, this.source)}`, t);
  }

  private isListEnd(t: Token, end: 'eof' | ')'): boolean {
    return t.kind === end;
  }

  /** <complex-selector-list> / <relative-selector-list>; leaves the closing token unconsumed. */
  private parseSelectorList(ctx: ListContext, end: 'eof' | ')'): void {
    for (;;) {
      this.skipWhitespace();
      this.parseComplexSelector(ctx, end);
      this.skipWhitespace();
      const t = this.peek();
      if (t.kind === 'comma') {
        this.consume();
        continue;
      }
      if (this.isListEnd(t, end)) return;
      if (t.kind === 'eof') this.fail('unclosed "("', t);
      this.unexpected(t);
    }
  }

  private parseComplexSelector(ctx: ListContext, end: 'eof' | ')'): void {
    if (ctx.relative && isCombinator(this.peek())) {
      this.consume();
      this.skipWhitespace();
    }
    this.parseCompoundSelector(ctx);
    for (;;) {
      const hadWhitespace = this.skipWhitespace();
      const t = this.peek();
      if (t.kind === 'comma' || t.kind === 'eof' || this.isListEnd(t, end)) return;
      if (isCombinator(t)) {
        this.consume();
        this.skipWhitespace();
        this.parseCompoundSelector(ctx);
      } else if (hadWhitespace) {
        this.parseCompoundSelector(ctx); // descendant combinator
      } else {
        this.unexpected(t);
      }
    }
  }

  /** <compound-selector>: [type-selector]? subclass-selector*; at least one simple selector. */
  private parseCompoundSelector(ctx: ListContext): void {
    let count = this.parseTypeSelector() ? 1 : 0;
    for (;;) {
      const t = this.peek();
      if (t.kind === 'hash') {
        if (!t.isId) this.fail(`${describe(t, this.source)} is not a valid ID selector`, t);
        this.consume();
      } else if (isDelim(t, '.')) {
        this.consume();
        if (this.peek().kind !== 'ident') this.fail('expected a class name after "."', this.peek());
        this.consume();
      } else if (t.kind === '[') {
        this.parseAttributeSelector();
      } else if (t.kind === 'colon') {
        this.parsePseudoClass(ctx);
      } else {
        break;
      }
      count++;
    }
    if (count === 0) {
      const t = this.peek();
      if (t.kind === 'eof') this.fail('expected a selector at end of input', t);
      if (isCombinator(t)) this.fail(`unexpected combinator ${describe(t, this.source)}`, t);
      this.fail(`expected a selector, found ${describe(t, this.source)}`, t);
    }
  }

  /** <type-selector> with the only namespace prefixes querySelector can resolve: `*|` and `|`. */
  private parseTypeSelector(): boolean {
    const t = this.peek();
    if (t.kind === 'ident') {
      if (isDelim(this.peek(1), '|')) this.fail('namespace prefixes are not supported', t);
      this.consume();
      return true;
    }
    if (isDelim(t, '*')) {
      this.consume();
      if (isDelim(this.peek(), '|')) {
        this.consume();
        this.expectTypeName();
      }
      return true;
    }
    if (isDelim(t, '|')) {
      this.consume();
      this.expectTypeName();
      return true;
    }
    return false;
  }

  private expectTypeName(): void {
    const t = this.peek();
    if (t.kind === 'ident' || isDelim(t, '*')) {
      this.consume();
      return;
    }
    this.fail('expected an element name after "|"', t);
  }

  /** '[' <wq-name> ']' | '[' <wq-name> <attr-matcher> [<string> | <ident>] <attr-modifier>? ']' */
  private parseAttributeSelector(): void {
    const open = this.consume();
    this.skipWhitespace();

    // Attribute name, optionally with the `*|` or `|` namespace prefix.
    const t = this.peek();
    if (t.kind === 'ident') {
      if (isDelim(this.peek(1), '|') && !isDelim(this.peek(2), '=')) this.fail('namespace prefixes are not supported', t);
      this.consume();
    } else if ((isDelim(t, '*') || isDelim(t, '|')) && isDelim(this.peek(isDelim(t, '*') ? 1 : 0), '|')) {
      if (isDelim(t, '*')) this.consume();
      this.consume();
      if (this.peek().kind !== 'ident') this.fail('expected an attribute name', this.peek());
      this.consume();
    } else {
      this.fail(t.kind === 'eof' ? 'unclosed "["' : 'expected an attribute name', t);
    }
    this.skipWhitespace();

    if (this.peek().kind === ']') {
      this.consume();
      return;
    }

    // Matcher: =, ~=, |=, ^=, $=, *= (no whitespace inside).
    const m = this.peek();
    if (isDelim(m, '=')) {
      this.consume();
    } else if (m.kind === 'delim' && '~|^$*'.includes(m.value) && isDelim(this.peek(1), '=')) {
      this.consume();
      this.consume();
    } else {
      this.fail(m.kind === 'eof' ? 'unclosed "["' : `expected "]" or an attribute operator, found ${describe(m, this.source)}`, m);
    }
    this.skipWhitespace();

    const v = this.peek();
    if (v.kind !== 'ident' && v.kind !== 'string') {
      this.fail(v.kind === 'eof' ? 'unclosed "["' : 'expected an attribute value (an identifier or a quoted string)', v);
    }
    this.consume();
    this.skipWhitespace();

    const mod = this.peek();
    if (mod.kind === 'ident') {
      // Selectors 4 also has `s`, but Chromium refuses it; `i` is the only flag it accepts.
      if (mod.value.toLowerCase() !== 'i') this.fail(`unknown attribute flag ${describe(mod, this.source)}`, mod);
      this.consume();
      this.skipWhitespace();
    }
    const close = this.peek();
    if (close.kind === ']') {
      this.consume();
      return;
    }
    if (close.kind === 'eof') this.fail('unclosed "["', open);
    this.unexpected(close);
  }

  private parsePseudoClass(ctx: ListContext): void {
    const colon = this.consume();
    const t = this.peek();
    if (t.kind === 'colon') this.fail('pseudo-elements are not supported (they never match an element)', colon);
    if (t.kind === 'ident') {
      const name = t.value.toLowerCase();
      if (SIMPLE_PSEUDO_CLASSES.has(name)) {
        this.consume();
        return;
      }
      if (FUNCTIONAL_PSEUDO_CLASSES.has(name)) this.fail(`:${name} needs an argument`, t);
      if (LEGACY_PSEUDO_ELEMENTS.has(name)) this.fail('pseudo-elements are not supported (they never match an element)', colon);
      this.fail(`unknown pseudo-class ":${t.value}"`, t);
    }
    if (t.kind === 'function') {
      const name = t.value.toLowerCase();
      const kind = FUNCTIONAL_PSEUDO_CLASSES.get(name);
      if (kind === undefined) {
        if (SIMPLE_PSEUDO_CLASSES.has(name)) this.fail(`:${name} takes no argument`, t);
        this.fail(`unknown pseudo-class ":${t.value}()"`, t);
      }
      this.consume();
      const depth = ctx.depth + 1;
      if (depth > MAX_SELECTOR_NESTING) this.fail('selector is nested too deeply', t);
      switch (kind) {
        case 'selector-list':
          this.parseSelectorList({ relative: false, insideHas: ctx.insideHas, depth }, ')');
          break;
        case 'relative-selector-list':
          if (ctx.insideHas) this.fail(':has() cannot be nested', t);
          this.parseSelectorList({ relative: true, insideHas: true, depth }, ')');
          break;
        case 'nth':
        case 'nth-of':
          this.parseNth(kind === 'nth-of', { relative: false, insideHas: ctx.insideHas, depth }, t);
          break;
        case 'lang':
          this.parseLang();
          break;
        case 'ident':
          this.skipWhitespace();
          if (this.peek().kind !== 'ident') this.fail(`:${name}() takes an identifier`, this.peek());
          this.consume();
          this.skipWhitespace();
          break;
      }
      const close = this.peek();
      if (close.kind !== ')') {
        if (close.kind === 'eof') this.fail('unclosed "("', t);
        this.unexpected(close);
      }
      this.consume();
      return;
    }
    this.fail('expected a pseudo-class name after ":"', t);
  }

  /** <an+b> [of <complex-selector-list>]? — An+B is checked on its source text, whitespace rules included. */
  private parseNth(allowOf: boolean, inner: ListContext, fn: Token): void {
    this.skipWhitespace();
    const first = this.peek();
    let last: Token | null = null;
    for (;;) {
      const t = this.peek();
      if (t.kind === ')' || t.kind === 'eof') break;
      if (t.kind === 'ident' && t.value.toLowerCase() === 'of' && last !== null) break;
      if (t.kind !== 'whitespace') last = t;
      this.consume();
    }
    if (last === null) {
      if (this.peek().kind === 'eof') this.fail('unclosed "("', fn);
      this.fail(`:${fn.value.toLowerCase()}() needs an argument such as 2n+1, odd or even`, this.peek());
    }
    const text = this.source.slice(first.start, last.end);
    if (!AN_PLUS_B.test(text)) this.fail(`"${text}" is not a valid An+B expression`, first);

    const t = this.peek();
    if (t.kind === 'ident') {
      // `of` must be separated from the An+B part (the loop above only stops at it after whitespace or a token).
      if (!allowOf) this.fail(`:${fn.value.toLowerCase()}() does not take "of <selector>"`, t);
      if (this.tokens[this.i - 1]?.kind !== 'whitespace') this.unexpected(t);
      this.consume();
      this.parseSelectorList(inner, ')');
    }
  }

  /**
   * :lang(): one language code as an identifier. Selectors 4 also allows strings and lists
   * (`:lang("de-*", fr)`), but Chromium refuses both.
   */
  private parseLang(): void {
    this.skipWhitespace();
    const t = this.peek();
    if (t.kind !== 'ident') {
      if (t.kind === 'eof') this.fail('unclosed "("', t);
      this.fail(':lang() takes one language code such as en or de-CH', t);
    }
    this.consume();
    this.skipWhitespace();
  }
}

/** CSS 2 pseudo-elements that may be written with one colon; refused like every other pseudo-element. */
const LEGACY_PSEUDO_ELEMENTS: ReadonlySet<string> = new Set(['before', 'after', 'first-line', 'first-letter']);
