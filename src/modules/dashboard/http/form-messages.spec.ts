import { inPeoplesWords } from './form-messages';

const say = (field: string, message: string) => inPeoplesWords({ field, message });

describe('form messages in people’s words', () => {
  it.each([
    ['viewport_width', 'viewport_width must not be greater than 3840', 'Viewport width must be at most 3840.'],
    ['viewport_height', 'viewport_height must not be less than 240', 'Viewport height must be at least 240.'],
    ['steps[0].selector', 'steps[0].selector must not be empty', 'Step 1: the selector must not be empty.'],
    ['steps[1].duration', 'steps[1].duration must be an integer from 0 to 30000', 'Step 2: the duration must be a whole number from 0 to 30000.'],
    ['steps[2].url', 'url scheme must be http or https', 'Step 3: the URL scheme must be http or https.'],
    ['steps', 'steps must contain 1 to 50 steps', 'Steps must contain 1 to 50 steps.'],
    ['capture_options.quality', 'capture_options.quality must be an integer number', 'Quality must be a whole number.'],
    ['capture_options.clip.x', 'capture_options.clip.x must not be less than 0', 'X of the rectangle to capture must be at least 0.'],
    [
      'capture_options.cookies[0].domain',
      "cookies[0].domain must be the website's host (a.test) or a domain it belongs to",
      "Cookie 1: the domain must be the website's host (a.test) or a domain it belongs to.",
    ],
    ['name', 'name should not be empty', 'Name must not be empty.'],
    ['name', 'name must be shorter than or equal to 255 characters', 'Name must be at most 255 characters long.'],
    ['url', 'url should not be empty', 'URL must not be empty.'],
    ['full_page', 'full_page must be a boolean value', 'Full page must be yes or no.'],
    ['pdf_paper', 'pdf_paper must be one of the following values: a4, letter, legal, a3', 'PDF paper must be one of: a4, letter, legal, a3.'],
    [
      'block_resources',
      'each value in block_resources must be one of the following values: image, font',
      'Do not load: each choice must be one of: image, font.',
    ],
    ['hide_selectors', 'hide_selectors must contain valid CSS selectors', 'Elements to hide: each line must be a valid CSS selector.'],
    ['selector', 'selector must contain valid CSS selectors', 'Selector must be a valid CSS selector.'],
    [
      'viewport_width',
      'viewport_width cannot be combined with device (the device sets it)',
      'Viewport width cannot be combined with device (the device sets it).',
    ],
    ['clip', 'clip cannot be combined with selector: choose one', 'Rectangle to capture cannot be combined with a selector: choose one.'],
    [
      'fail_on_status',
      'fail_on_status must be true, false or a list of HTTP status codes from 400 to 599',
      'Fail on HTTP status must be “all” or HTTP status codes from 400 to 599.',
    ],
    [
      'day_of_week',
      'day_of_week must be an integer from 0 (Sunday) to 6 (Saturday)',
      'Day of the week must be a whole number from 0 (Sunday) to 6 (Saturday).',
    ],
    ['website_id', 'website_id must be an integer number', 'Choose one of your websites.'],
    ['website_id', 'website_id must be the id of one of your websites', 'Website must be one of your websites.'],
    ['headers', 'headers: line 1: write a header as "Name: value"', 'Extra request headers: line 1: write a header as "Name: value".'],
    [
      'url',
      'The previous try is still running; try another URL once it has finished.',
      'The previous try is still running; try another URL once it has finished.',
    ],
    ['some_new_option', 'some_new_option must not be greater than 5', 'Some new option must be at most 5.'],
  ])('%s: "%s"', (field, message, expected) => {
    expect(say(field, message)).toBe(expected);
  });

  it('never leaves a wire name with an underscore or an index counted from 0', () => {
    const samples: Array<[string, string]> = [
      ['capture_options.timeout_ms', "timeout_ms must not be greater than 30000 (the server's CAPTURE_TIMEOUT_MS)"],
      ['steps[4].full_page', 'steps[4].full_page must be a boolean'],
      ['capture_options.cookies[3].same_site', 'cookies[3].same_site must be one of the following values: Strict, Lax, None'],
      ['quality', 'quality applies only to jpeg and webp, not png'],
    ];
    for (const [field, message] of samples) {
      const said = say(field, message);
      expect(said).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
      expect(said).not.toMatch(/\[\d+\]/);
    }
    expect(say('capture_options.cookies[3].same_site', 'cookies[3].same_site must be one of the following values: Strict, Lax, None')).toBe(
      'Cookie 4: the same site must be one of: Strict, Lax, None.',
    );
  });
});
