import { parseSteps, STEP_DEFINITIONS, STEP_TYPES } from '../../scenarios/domain/steps';
import {
  applyOp,
  carrySecrets,
  draftsFromForm,
  draftsFromSteps,
  focusAfter,
  newDraft,
  parseOp,
  rawSteps,
  SecretCarry,
  StepDraft,
  uncarrySecrets,
} from './step-form';

describe('the scenario editor’s step fields', () => {
  it('a new step of every type has an empty input for each field of its definition, and nothing else', () => {
    for (const type of STEP_TYPES) {
      expect(newDraft(type)).toEqual({ type, values: Object.fromEntries(Object.keys(STEP_DEFINITIONS[type].fields).map((k) => [k, ''])) });
    }
  });

  it('reads indexed fields in index order, closing gaps, ignoring fields a step type does not have and foreign names', () => {
    const form = new URLSearchParams([
      ['steps[10].type', 'wait'],
      ['steps[10].duration', '5'],
      ['steps[2].type', 'click'],
      ['steps[2].selector', '#a'],
      ['steps[2].url', 'https://ignored.example'],
      ['steps[3].type', 'wait_for'],
      ['steps[3].selector', '#b'],
      ['name', 'not a step'],
      ['steps[x].type', 'click'],
      ['steps[999].type', 'click'],
    ]);
    expect(draftsFromForm(form)).toEqual([
      { type: 'click', values: { selector: '#a' } },
      { type: 'wait_for', values: { selector: '#b', timeout: '' } },
      { type: 'wait', values: { duration: '5' } },
    ]);
  });

  it('typed text becomes the JSON an API client would send: numbers for digits, booleans for yes/no, empty optional fields left out', () => {
    const drafts: StepDraft[] = [
      { type: 'wait', values: { duration: '250' } },
      { type: 'wait', values: { duration: 'soon' } },
      { type: 'wait_for', values: { selector: '#x', timeout: '' } },
      { type: 'screenshot', values: { full_page: 'true' } },
      { type: 'screenshot', values: { full_page: 'false' } },
      { type: 'screenshot', values: { full_page: '' } },
      { type: 'fill', values: { selector: '#q', value: '' } },
      { type: 'teleport', values: {} },
    ];
    expect(rawSteps(drafts)).toEqual([
      { type: 'wait', duration: 250 },
      { type: 'wait', duration: 'soon' },
      { type: 'wait_for', selector: '#x' },
      { type: 'screenshot', full_page: true },
      { type: 'screenshot', full_page: false },
      { type: 'screenshot' },
      { type: 'fill', selector: '#q', value: '' },
      { type: 'teleport' },
    ]);
  });

  it('saved steps → form → the same steps again (every type)', () => {
    const steps = parseSteps([
      { type: 'navigate', url: 'https://example.com/a' },
      { type: 'fill', selector: '#u', value: 'alice' },
      { type: 'click', selector: '#go' },
      { type: 'wait', duration: 0 },
      { type: 'wait_for', selector: '#ok', timeout: 500 },
      { type: 'hover', selector: '.menu' },
      { type: 'press', key: 'Enter' },
      { type: 'select', selector: '#plan', value: 'pro' },
      { type: 'scroll', to: 'bottom' },
      { type: 'screenshot', full_page: true },
      { type: 'screenshot' },
    ]);
    expect(parseSteps(rawSteps(draftsFromSteps(steps)))).toEqual(steps);
  });

  it('buttons: add (at most 50 steps), remove, move up and down; anything else saves', () => {
    const d = (type: string): StepDraft => ({ type, values: {} });
    const list = [d('a'), d('b'), d('c')];
    expect(parseOp('add:wait')).toEqual({ kind: 'add', type: 'wait' });
    expect(parseOp('add:teleport')).toEqual({ kind: 'save' });
    expect(parseOp('remove:2')).toEqual({ kind: 'remove', index: 2 });
    expect(parseOp('up:x')).toEqual({ kind: 'save' });
    expect(parseOp(null)).toEqual({ kind: 'save' });
    expect(applyOp(list, { kind: 'up', index: 2 }).map((s) => s.type)).toEqual(['a', 'c', 'b']);
    expect(applyOp(list, { kind: 'up', index: 0 }).map((s) => s.type)).toEqual(['a', 'b', 'c']);
    expect(applyOp(list, { kind: 'down', index: 0 }).map((s) => s.type)).toEqual(['b', 'a', 'c']);
    expect(applyOp(list, { kind: 'down', index: 2 }).map((s) => s.type)).toEqual(['a', 'b', 'c']);
    expect(applyOp(list, { kind: 'remove', index: 1 }).map((s) => s.type)).toEqual(['a', 'c']);
    expect(applyOp(list, { kind: 'remove', index: 7 })).toHaveLength(3);
    expect(list.map((s) => s.type)).toEqual(['a', 'b', 'c']); // never changed in place
    const full = Array.from({ length: 50 }, () => d('wait'));
    expect(applyOp(full, { kind: 'add', type: 'click' })).toHaveLength(50);
    expect(focusAfter({ kind: 'add', type: 'click' }, 4)).toBe(3);
    expect(focusAfter({ kind: 'remove', index: 3 }, 3)).toBe(2);
    expect(focusAfter({ kind: 'remove', index: 0 }, 0)).toBeNull();
  });

  describe('secret fill values', () => {
    // A stand-in for the controller's session-bound SecretBox carry: opens only what it sealed.
    const carry: SecretCarry = { seal: (v) => `sealed:${v}`, open: (s) => (s.startsWith('sealed:') ? s.slice(7) : null) };
    const secretDraft = (value: string): StepDraft => ({ type: 'fill', values: { selector: '#pw', value, secret: 'true' } });

    it('a saved secret is shown as "********", a plain fill as it is', () => {
      const drafts = draftsFromSteps([
        { type: 'fill', selector: '#pw', value: 'hunter2', secret: true },
        { type: 'fill', selector: '#user', value: 'alice' },
      ]);
      expect(drafts.map((d) => d.values.value)).toEqual(['********', 'alice']);
      expect(drafts[0].values.secret).toBe('true');
    });

    it('a typed secret is shown as "********" and carried sealed; posted back it is the typed value again', () => {
      const [shown] = carrySecrets([secretDraft('typed-secret')], carry);
      expect(shown).toEqual({ ...secretDraft('********'), carry: 'sealed:typed-secret' });
      const posted = draftsFromForm(
        new URLSearchParams([
          ['steps[0].type', 'fill'],
          ['steps[0].selector', '#pw'],
          ['steps[0].value', '********'],
          ['steps[0].secret', 'true'],
          ['steps[0].carry', 'sealed:typed-secret'],
        ]),
      );
      expect(uncarrySecrets(posted, carry)).toEqual([secretDraft('typed-secret')]);
      expect(rawSteps(uncarrySecrets(posted, carry))).toEqual([{ type: 'fill', selector: '#pw', value: 'typed-secret', secret: true }]);
    });

    it('a carry this session did not seal, or a value changed since, is not used', () => {
      expect(uncarrySecrets([{ ...secretDraft('********'), carry: 'forged' }], carry)).toEqual([secretDraft('********')]);
      expect(uncarrySecrets([{ ...secretDraft('retyped'), carry: 'sealed:old' }], carry)).toEqual([secretDraft('retyped')]);
      // Not secret: nothing to mask or carry.
      const plain: StepDraft = { type: 'fill', values: { selector: '#q', value: 'shown', secret: '' } };
      expect(carrySecrets([plain], carry)).toEqual([plain]);
    });
  });
});
