import { FieldError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { UrlPolicy, UrlPolicyReasons } from '../../../shared/url-policy';
import {
  DEFAULT_WAIT_FOR_TIMEOUT_MS,
  MAX_REPORTED_ERRORS,
  MAX_SELECTOR_LENGTH,
  MAX_STEPS,
  MAX_VALUE_LENGTH,
  PRESS_NAMED_KEYS,
  parseSteps,
  scrollTargetOf,
  Step,
  STEP_FIELDS,
  STEP_TYPES,
  StepUrlChecker,
  urlCheckerFromPolicy,
  waitForTimeoutOf,
} from './steps';

/** The real policy as production configures it, adapted through its synchronous checks. */
const policy: StepUrlChecker = urlCheckerFromPolicy(
  new UrlPolicy({
    allowPrivateNetworks: false,
    allowlist: [],
    resolve: async () => {
      throw new Error('parseSteps must never resolve names');
    },
  }),
);

/** The details parseSteps throws, or fails the test if it returns. */
function detailsOf(input: unknown, checker: StepUrlChecker | undefined = policy): FieldError[] {
  try {
    parseSteps(input, checker);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailedError);
    const error = err as ValidationFailedError;
    expect(error.code).toBe('validation_failed');
    expect(error.extra).toEqual({ details: error.details });
    return error.details;
  }
  throw new Error(`expected parseSteps to refuse ${JSON.stringify(input)}`);
}

const KEY_MESSAGE = `must be a single printable ASCII character or one of ${PRESS_NAMED_KEYS.join(', ')}`;
const TYPE_MESSAGE = 'must be one of navigate, fill, click, wait, wait_for, hover, press, select, scroll, screenshot';

describe('parseSteps: valid steps of every type', () => {
  // [input step, normalised step]
  const cases: Array<[string, Record<string, unknown>, Step]> = [
    ['navigate', { type: 'navigate', url: 'https://example.com/login' }, { type: 'navigate', url: 'https://example.com/login' }],
    ['navigate http', { type: 'navigate', url: 'http://example.com' }, { type: 'navigate', url: 'http://example.com' }],
    ['fill', { type: 'fill', selector: '#user', value: 'alice' }, { type: 'fill', selector: '#user', value: 'alice' }],
    ['fill with empty value', { type: 'fill', selector: 'input[name="q"]', value: '' }, { type: 'fill', selector: 'input[name="q"]', value: '' }],
    [
      'fill with max-length value',
      { type: 'fill', selector: 'textarea', value: 'x'.repeat(MAX_VALUE_LENGTH) },
      { type: 'fill', selector: 'textarea', value: 'x'.repeat(MAX_VALUE_LENGTH) },
    ],
    ['click', { type: 'click', selector: 'button[type=submit]' }, { type: 'click', selector: 'button[type=submit]' }],
    ['click, selector trimmed', { type: 'click', selector: '  .btn.primary  ' }, { type: 'click', selector: '.btn.primary' }],
    ['wait 0', { type: 'wait', duration: 0 }, { type: 'wait', duration: 0 }],
    ['wait 30000', { type: 'wait', duration: 30000 }, { type: 'wait', duration: 30000 }],
    ['wait 1500', { type: 'wait', duration: 1500 }, { type: 'wait', duration: 1500 }],
    ['wait_for without timeout', { type: 'wait_for', selector: '#result' }, { type: 'wait_for', selector: '#result' }],
    ['wait_for timeout 1', { type: 'wait_for', selector: '#r', timeout: 1 }, { type: 'wait_for', selector: '#r', timeout: 1 }],
    ['wait_for timeout 30000', { type: 'wait_for', selector: '#r', timeout: 30000 }, { type: 'wait_for', selector: '#r', timeout: 30000 }],
    ['hover', { type: 'hover', selector: 'nav > ul > li:nth-child(2)' }, { type: 'hover', selector: 'nav > ul > li:nth-child(2)' }],
    ['press Enter', { type: 'press', key: 'Enter' }, { type: 'press', key: 'Enter' }],
    ['press enter (case normalised)', { type: 'press', key: 'enter' }, { type: 'press', key: 'Enter' }],
    ['press ARROWDOWN', { type: 'press', key: 'ARROWDOWN' }, { type: 'press', key: 'ArrowDown' }],
    ['press a', { type: 'press', key: 'a' }, { type: 'press', key: 'a' }],
    ['press A', { type: 'press', key: 'A' }, { type: 'press', key: 'A' }],
    ['press /', { type: 'press', key: '/' }, { type: 'press', key: '/' }],
    ['press space character', { type: 'press', key: ' ' }, { type: 'press', key: ' ' }],
    ['press Space', { type: 'press', key: 'space' }, { type: 'press', key: 'Space' }],
    ['press F12', { type: 'press', key: 'F12' }, { type: 'press', key: 'F12' }],
    ['select', { type: 'select', selector: 'select#country', value: 'DE' }, { type: 'select', selector: 'select#country', value: 'DE' }],
    ['select empty option', { type: 'select', selector: 'select', value: '' }, { type: 'select', selector: 'select', value: '' }],
    ['scroll bottom', { type: 'scroll', to: 'bottom' }, { type: 'scroll', to: 'bottom' }],
    ['scroll Bottom (normalised)', { type: 'scroll', to: ' Bottom ' }, { type: 'scroll', to: 'bottom' }],
    ['scroll to selector', { type: 'scroll', to: '#footer' }, { type: 'scroll', to: '#footer' }],
    ['screenshot', { type: 'screenshot' }, { type: 'screenshot' }],
    ['screenshot full_page true', { type: 'screenshot', full_page: true }, { type: 'screenshot', full_page: true }],
    ['screenshot full_page false', { type: 'screenshot', full_page: false }, { type: 'screenshot', full_page: false }],
  ];

  it.each(cases)('%s', (_name, input, expected) => {
    expect(parseSteps([input], policy)).toEqual([expected]);
  });

  it('covers every step type', () => {
    expect(new Set(cases.map(([, input]) => input.type))).toEqual(new Set(STEP_TYPES));
  });

  it('accepts every named key', () => {
    for (const key of PRESS_NAMED_KEYS) expect(parseSteps([{ type: 'press', key }], policy)).toEqual([{ type: 'press', key }]);
  });

  it('accepts 1 and 50 steps and keeps their order', () => {
    expect(parseSteps([{ type: 'wait', duration: 1 }], policy)).toHaveLength(1);
    const fifty = Array.from({ length: MAX_STEPS }, (_, i) => ({ type: 'wait', duration: i }));
    expect(parseSteps(fifty, policy)).toEqual(fifty);
  });

  it('parses a realistic login scenario', () => {
    const steps = [
      { type: 'navigate', url: 'https://example.com/login' },
      { type: 'fill', selector: '#email', value: 'me@example.com' },
      { type: 'fill', selector: 'input[type=password]', value: 'hunter2' },
      { type: 'click', selector: 'form > button[type="submit"]' },
      { type: 'wait_for', selector: '.dashboard', timeout: 15000 },
      { type: 'scroll', to: 'bottom' },
      { type: 'screenshot', full_page: true },
    ];
    expect(parseSteps(steps, policy)).toEqual(steps);
  });

  it('returns fresh objects with known fields only, not the input objects', () => {
    const input = [{ type: 'click', selector: '#a' }];
    const [step] = parseSteps(input, policy);
    expect(step).not.toBe(input[0]);
  });

  it('declares the allowed fields of every type', () => {
    expect(Object.keys(STEP_FIELDS).sort()).toEqual([...STEP_TYPES].sort());
  });
});

describe('parseSteps: the steps value itself', () => {
  const cases: Array<[string, unknown, FieldError[]]> = [
    ['missing', undefined, [{ field: 'steps', message: 'steps is required' }]],
    ['null', null, [{ field: 'steps', message: 'steps must be an array' }]],
    ['an object', { type: 'click' }, [{ field: 'steps', message: 'steps must be an array' }]],
    ['a string', 'navigate', [{ field: 'steps', message: 'steps must be an array' }]],
    ['0 steps', [], [{ field: 'steps', message: 'steps must contain 1 to 50 steps' }]],
    ['51 steps', Array.from({ length: 51 }, () => ({ type: 'wait', duration: 10 })), [{ field: 'steps', message: 'steps must contain 1 to 50 steps' }]],
  ];

  it.each(cases)('%s', (_name, input, expected) => {
    expect(detailsOf(input)).toEqual(expected);
  });

  it('51 steps: the count is the answer, no step is read (counts before elements, issue 27)', () => {
    const input: unknown[] = Array.from({ length: 51 }, () => ({ type: 'wait', duration: 10 }));
    input[50] = { type: 'wait', duration: -1 };
    expect(detailsOf(input)).toEqual([{ field: 'steps', message: 'steps must contain 1 to 50 steps' }]);
  });
});

describe('parseSteps: invalid steps', () => {
  const long = 'a'.repeat(MAX_SELECTOR_LENGTH + 1);
  // [name, step, expected details]. Every step is placed at index 0 and at index 3 (after valid steps).
  const cases: Array<[string, unknown, Array<[string, string]>]> = [
    // the step object and its type
    ['step is null', null, [['', 'must be an object']]],
    ['step is a string', 'click', [['', 'must be an object']]],
    ['step is an array', [{ type: 'click' }], [['', 'must be an object']]],
    ['type missing', { selector: '#a' }, [['.type', 'is required']]],
    ['type null', { type: null }, [['.type', 'is required']]],
    ['type unknown', { type: 'teleport', url: 'x' }, [['.type', TYPE_MESSAGE]]],
    ['type wrong case', { type: 'Click', selector: '#a' }, [['.type', TYPE_MESSAGE]]],
    ['type not a string', { type: 3 }, [['.type', TYPE_MESSAGE]]],
    ['type inherited, not own', Object.create({ type: 'screenshot' }), [['.type', 'is required']]],

    // navigate
    ['navigate without url', { type: 'navigate' }, [['.url', 'is required']]],
    ['navigate url null', { type: 'navigate', url: null }, [['.url', 'is required']]],
    ['navigate url not a string', { type: 'navigate', url: 42 }, [['.url', 'must be a string']]],
    ['navigate to file:///etc/passwd', { type: 'navigate', url: 'file:///etc/passwd' }, [['.url', '=url scheme must be http or https']]],
    ['navigate javascript:', { type: 'navigate', url: 'javascript:alert(1)' }, [['.url', '=url scheme must be http or https']]],
    ['navigate with credentials', { type: 'navigate', url: 'https://u:p@example.com/' }, [['.url', '=url must not contain credentials']]],
    ['navigate to loopback IP', { type: 'navigate', url: 'http://127.0.0.1:8080/' }, [['.url', '=url resolves to a loopback address']]],
    ['navigate to private IP', { type: 'navigate', url: 'http://10.0.0.5/' }, [['.url', '=url resolves to a private address']]],
    ['navigate to localhost', { type: 'navigate', url: 'http://localhost/' }, [['.url', '=url resolves to a loopback address']]],
    ['navigate to metadata IP', { type: 'navigate', url: 'http://169.254.169.254/' }, [['.url', '=url resolves to a link-local address']]],
    ['navigate relative url', { type: 'navigate', url: '/login' }, [['.url', '=url is not a valid URL']]],
    ['navigate empty url', { type: 'navigate', url: '' }, [['.url', '=url is not a valid URL']]],
    ['navigate url too long', { type: 'navigate', url: `https://example.com/${'a'.repeat(2048)}` }, [['.url', '=url must be at most 2048 characters']]],

    // fill
    ['fill without selector', { type: 'fill', value: 'x' }, [['.selector', 'is required']]],
    ['fill without value', { type: 'fill', selector: '#a' }, [['.value', 'is required']]],
    [
      'fill without both',
      { type: 'fill' },
      [
        ['.selector', 'is required'],
        ['.value', 'is required'],
      ],
    ],
    ['fill selector not a string', { type: 'fill', selector: 5, value: 'x' }, [['.selector', 'must be a string']]],
    ['fill value not a string', { type: 'fill', selector: '#a', value: 123 }, [['.value', 'must be a string']]],
    ['fill value too long', { type: 'fill', selector: '#a', value: 'x'.repeat(MAX_VALUE_LENGTH + 1) }, [['.value', 'must be at most 10000 characters']]],
    ['fill invalid selector', { type: 'fill', selector: 'input[name=', value: 'x' }, [['.selector', 'is not a valid CSS selector']]],

    // click
    ['click without selector', { type: 'click' }, [['.selector', 'is required']]],
    ['click selector array', { type: 'click', selector: ['#a'] }, [['.selector', 'must be a string']]],
    ['click empty selector', { type: 'click', selector: '' }, [['.selector', 'must not be empty']]],
    ['click blank selector', { type: 'click', selector: '   ' }, [['.selector', 'must not be empty']]],
    ['click selector too long', { type: 'click', selector: long }, [['.selector', 'must be at most 1000 characters']]],
    ['click selector "#"', { type: 'click', selector: '#' }, [['.selector', 'is not a valid CSS selector']]],
    ['click selector "..x"', { type: 'click', selector: '..x' }, [['.selector', 'is not a valid CSS selector']]],
    ['click selector "a >> b"', { type: 'click', selector: 'a >> b' }, [['.selector', 'is not a valid CSS selector']]],
    ['click puppeteer text/ selector', { type: 'click', selector: 'text/Sign in' }, [['.selector', 'is not a valid CSS selector']]],
    ['click puppeteer ::-p-text', { type: 'click', selector: 'button::-p-text(Sign in)' }, [['.selector', 'is not a valid CSS selector']]],
    ['click xpath/', { type: 'click', selector: 'xpath///button' }, [['.selector', 'is not a valid CSS selector']]],
    ['click pseudo-element', { type: 'click', selector: 'a::before' }, [['.selector', 'is not a valid CSS selector']]],

    // wait
    ['wait without duration', { type: 'wait' }, [['.duration', 'is required']]],
    ['wait duration null', { type: 'wait', duration: null }, [['.duration', 'is required']]],
    ['wait 60000', { type: 'wait', duration: 60000 }, [['.duration', 'must be an integer from 0 to 30000']]],
    ['wait 30001', { type: 'wait', duration: 30001 }, [['.duration', 'must be an integer from 0 to 30000']]],
    ['wait -1', { type: 'wait', duration: -1 }, [['.duration', 'must be an integer from 0 to 30000']]],
    ['wait 1.5', { type: 'wait', duration: 1.5 }, [['.duration', 'must be an integer from 0 to 30000']]],
    ['wait "100"', { type: 'wait', duration: '100' }, [['.duration', 'must be an integer from 0 to 30000']]],
    ['wait true', { type: 'wait', duration: true }, [['.duration', 'must be an integer from 0 to 30000']]],
    ['wait NaN', { type: 'wait', duration: Number.NaN }, [['.duration', 'must be an integer from 0 to 30000']]],
    ['wait Infinity', { type: 'wait', duration: Number.POSITIVE_INFINITY }, [['.duration', 'must be an integer from 0 to 30000']]],

    // wait_for
    ['wait_for without selector', { type: 'wait_for', timeout: 100 }, [['.selector', 'is required']]],
    ['wait_for invalid selector', { type: 'wait_for', selector: ':nth-child(' }, [['.selector', 'is not a valid CSS selector']]],
    ['wait_for timeout 0', { type: 'wait_for', selector: '#a', timeout: 0 }, [['.timeout', 'must be an integer from 1 to 30000']]],
    ['wait_for timeout 30001', { type: 'wait_for', selector: '#a', timeout: 30001 }, [['.timeout', 'must be an integer from 1 to 30000']]],
    ['wait_for timeout "5000"', { type: 'wait_for', selector: '#a', timeout: '5000' }, [['.timeout', 'must be an integer from 1 to 30000']]],
    ['wait_for timeout null', { type: 'wait_for', selector: '#a', timeout: null }, [['.timeout', 'must be an integer from 1 to 30000']]],
    [
      'wait_for bad selector and timeout',
      { type: 'wait_for', selector: 'div[', timeout: 99999 },
      [
        ['.selector', 'is not a valid CSS selector'],
        ['.timeout', 'must be an integer from 1 to 30000'],
      ],
    ],

    // hover
    ['hover without selector', { type: 'hover' }, [['.selector', 'is required']]],
    ['hover invalid selector', { type: 'hover', selector: 'a,,b' }, [['.selector', 'is not a valid CSS selector']]],

    // press
    ['press without key', { type: 'press' }, [['.key', 'is required']]],
    ['press key not a string', { type: 'press', key: 13 }, [['.key', 'must be a string']]],
    ['press empty key', { type: 'press', key: '' }, [['.key', KEY_MESSAGE]]],
    ['press unknown name', { type: 'press', key: 'Return' }, [['.key', KEY_MESSAGE]]],
    ['press chord', { type: 'press', key: 'Control+A' }, [['.key', KEY_MESSAGE]]],
    ['press two characters', { type: 'press', key: 'ab' }, [['.key', KEY_MESSAGE]]],
    ['press non-ASCII character', { type: 'press', key: 'é' }, [['.key', KEY_MESSAGE]]],
    ['press control character', { type: 'press', key: '\n' }, [['.key', KEY_MESSAGE]]],
    ['press modifier alone', { type: 'press', key: 'Shift' }, [['.key', KEY_MESSAGE]]],

    // select
    ['select without value', { type: 'select', selector: 'select' }, [['.value', 'is required']]],
    ['select value number', { type: 'select', selector: 'select', value: 3 }, [['.value', 'must be a string']]],
    ['select invalid selector', { type: 'select', selector: '>>> select', value: 'a' }, [['.selector', 'is not a valid CSS selector']]],

    // scroll
    ['scroll without to', { type: 'scroll' }, [['.to', 'is required']]],
    ['scroll to number', { type: 'scroll', to: 500 }, [['.to', 'must be a string']]],
    ['scroll to empty', { type: 'scroll', to: '' }, [['.to', 'must not be empty']]],
    ['scroll to invalid selector', { type: 'scroll', to: '#' }, [['.to', 'is not a valid CSS selector']]],
    [
      'scroll with selector field instead of to',
      { type: 'scroll', selector: '#a' },
      [
        ['.to', 'is required'],
        ['.selector', 'is not allowed'],
      ],
    ],

    // screenshot
    ['screenshot full_page string', { type: 'screenshot', full_page: 'true' }, [['.full_page', 'must be a boolean']]],
    ['screenshot full_page null', { type: 'screenshot', full_page: null }, [['.full_page', 'must be a boolean']]],
    ['screenshot fullPage (camelCase)', { type: 'screenshot', fullPage: true }, [['.fullPage', 'is not allowed']]],

    // unknown fields
    ['unknown field', { type: 'click', selector: '#a', foo: 1 }, [['.foo', 'is not allowed']]],
    [
      'several unknown fields, with a bad known one',
      { type: 'click', selector: '#', foo: 1, bar: 2 },
      [
        ['.selector', 'is not a valid CSS selector'],
        ['.foo', 'is not allowed'],
        ['.bar', 'is not allowed'],
      ],
    ],
    ['field of another type', { type: 'click', selector: '#a', value: 'x' }, [['.value', 'is not allowed']]],
    ['unknown field with an odd name', { type: 'click', selector: '#a', 'my field': 1 }, [['["my field"]', 'is not allowed']]],
    ['__proto__ as an own field', JSON.parse('{"type":"click","selector":"#a","__proto__":{"x":1}}'), [['.__proto__', 'is not allowed']]],
  ];

  /** Expands ['.selector', 'is required'] at steps[i] to {field: 'steps[i].selector', message: 'steps[i].selector is required'}; '=' marks a verbatim policy reason. */
  function expected(index: number, rows: Array<[string, string]>): FieldError[] {
    return rows.map(([suffix, message]) => {
      const field = `steps[${index}]${suffix}`;
      return { field, message: message.startsWith('=') ? message.slice(1) : `${field} ${message}` };
    });
  }

  it.each(cases)('%s (as steps[0])', (_name, step, rows) => {
    expect(detailsOf([step])).toEqual(expected(0, rows));
  });

  it.each(cases)('%s (as steps[3])', (_name, step, rows) => {
    const ok = [
      { type: 'navigate', url: 'https://example.com' },
      { type: 'click', selector: '#a' },
      { type: 'wait', duration: 5 },
    ];
    expect(detailsOf([...ok, step])).toEqual(expected(3, rows));
  });
});

describe('parseSteps: exact texts from the brief', () => {
  it.each<[string, unknown[], FieldError]>([
    ['empty list', [], { field: 'steps', message: 'steps must contain 1 to 50 steps' }],
    [
      'missing selector at steps[3]',
      [{ type: 'screenshot' }, { type: 'screenshot' }, { type: 'screenshot' }, { type: 'click' }],
      { field: 'steps[3].selector', message: 'steps[3].selector is required' },
    ],
    [
      'unknown type at steps[0]',
      [{ type: 'scrape' }],
      { field: 'steps[0].type', message: 'steps[0].type must be one of navigate, fill, click, wait, wait_for, hover, press, select, scroll, screenshot' },
    ],
    [
      'wait too long at steps[2]',
      [{ type: 'screenshot' }, { type: 'screenshot' }, { type: 'wait', duration: 60000 }],
      { field: 'steps[2].duration', message: 'steps[2].duration must be an integer from 0 to 30000' },
    ],
    [
      'unknown field at steps[1]',
      [{ type: 'screenshot' }, { type: 'screenshot', foo: true }],
      { field: 'steps[1].foo', message: 'steps[1].foo is not allowed' },
    ],
    [
      'invalid selector at steps[3]',
      [{ type: 'screenshot' }, { type: 'screenshot' }, { type: 'screenshot' }, { type: 'hover', selector: 'a >' }],
      { field: 'steps[3].selector', message: 'steps[3].selector is not a valid CSS selector' },
    ],
    [
      'navigate to file:///etc/passwd',
      [{ type: 'navigate', url: 'file:///etc/passwd' }],
      { field: 'steps[0].url', message: 'url scheme must be http or https' },
    ],
  ])('%s', (_name, input, detail) => {
    expect(detailsOf(input)).toEqual([detail]);
  });
});

describe('parseSteps: several problems at once', () => {
  it('reports every problem, in step order, with its exact place', () => {
    const input = [
      { type: 'navigate', url: 'file:///etc/passwd' },
      { type: 'fill', selector: '#user' },
      { type: 'click', selector: '..x', extra: 1 },
      { type: 'wait', duration: 60000 },
      { type: 'teleport' },
      { type: 'screenshot', full_page: true },
      { type: 'press', key: 'Enter' },
      null,
    ];
    expect(detailsOf(input)).toEqual([
      { field: 'steps[0].url', message: 'url scheme must be http or https' },
      { field: 'steps[1].value', message: 'steps[1].value is required' },
      { field: 'steps[2].selector', message: 'steps[2].selector is not a valid CSS selector' },
      { field: 'steps[2].extra', message: 'steps[2].extra is not allowed' },
      { field: 'steps[3].duration', message: 'steps[3].duration must be an integer from 0 to 30000' },
      { field: 'steps[4].type', message: `steps[4].type ${TYPE_MESSAGE}` },
      { field: 'steps[7]', message: 'steps[7] must be an object' },
    ]);
  });

  it('100,000 steps: one problem, found without reading them', () => {
    // Counted, not timed (a loaded machine breaks a time ceiling): not one of the steps is read.
    let stepsRead = 0;
    const steps = new Proxy(
      Array.from({ length: 100_000 }, () => ({})),
      {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) stepsRead++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      },
    );
    expect(detailsOf(steps)).toEqual([{ field: 'steps', message: 'steps must contain 1 to 50 steps' }]);
    expect(stepsRead).toBe(0);
  });

  it('lists the first MAX_REPORTED_ERRORS problems and counts them all (details_total)', () => {
    const input = Array.from({ length: MAX_STEPS }, () => ({ type: 'wait', duration: 1, a: 1, b: 2, c: 3 }));
    let error: ValidationFailedError | undefined;
    try {
      parseSteps(input, policy);
    } catch (err) {
      error = err as ValidationFailedError;
    }
    expect(MAX_REPORTED_ERRORS).toBe(100);
    expect(error?.details).toHaveLength(MAX_REPORTED_ERRORS);
    expect(error?.details[0]).toEqual({ field: 'steps[0].a', message: 'steps[0].a is not allowed' });
    expect(error?.extra).toEqual({ details: error?.details, details_total: 150 });
  });
});

describe('parseSteps: the URL checker', () => {
  it('passes the policy reason through verbatim, whatever it says', () => {
    const custom: StepUrlChecker = { checkUrl: () => ({ allowed: false, reason: 'url host is not on the allowlist' }) };
    expect(detailsOf([{ type: 'navigate', url: 'https://example.com' }], custom)).toEqual([
      { field: 'steps[0].url', message: 'url host is not on the allowlist' },
    ]);
  });

  it('calls the checker once per navigate step, with the raw url', () => {
    const seen: string[] = [];
    const spy: StepUrlChecker = {
      checkUrl: (raw) => {
        seen.push(raw);
        return { allowed: true };
      },
    };
    parseSteps(
      [
        { type: 'navigate', url: 'https://a.example/' },
        { type: 'click', selector: '#x' },
        { type: 'navigate', url: 'https://b.example/' },
      ],
      spy,
    );
    expect(seen).toEqual(['https://a.example/', 'https://b.example/']);
  });

  it('allows private addresses when the policy does', () => {
    const open = urlCheckerFromPolicy(new UrlPolicy({ allowPrivateNetworks: true, allowlist: [] }));
    expect(parseSteps([{ type: 'navigate', url: 'http://127.0.0.1:3000/' }], open)).toEqual([{ type: 'navigate', url: 'http://127.0.0.1:3000/' }]);
  });

  it('without a policy still enforces the scheme, credentials and syntax, but not addresses', () => {
    expect(detailsOf([{ type: 'navigate', url: 'file:///etc/passwd' }], undefined)).toEqual([{ field: 'steps[0].url', message: UrlPolicyReasons.scheme }]);
    expect(detailsOf([{ type: 'navigate', url: 'https://u:p@example.com' }], undefined)).toEqual([
      { field: 'steps[0].url', message: UrlPolicyReasons.credentials },
    ]);
    expect(parseSteps([{ type: 'navigate', url: 'http://10.0.0.1/' }])).toEqual([{ type: 'navigate', url: 'http://10.0.0.1/' }]);
  });
});

describe('runner helpers', () => {
  it('waitForTimeoutOf applies the default', () => {
    expect(waitForTimeoutOf({ type: 'wait_for', selector: '#a' })).toBe(DEFAULT_WAIT_FOR_TIMEOUT_MS);
    expect(waitForTimeoutOf({ type: 'wait_for', selector: '#a', timeout: 250 })).toBe(250);
  });

  it('scrollTargetOf maps to the capture port shape', () => {
    expect(scrollTargetOf({ type: 'scroll', to: 'bottom' })).toBe('bottom');
    expect(scrollTargetOf({ type: 'scroll', to: '#footer' })).toEqual({ selector: '#footer' });
  });
});
