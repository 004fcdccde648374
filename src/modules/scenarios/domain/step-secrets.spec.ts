import { ValidationFailedError } from '../../../shared/domain/domain-error';
import { keepStepSecrets, maskStepSecrets, openStepSecrets, sealStepSecrets, SECRET_MASK } from './step-secrets';
import { parseSteps, Step } from './steps';

const seal = (plain: string) => `sealed(${Buffer.from(plain).toString('base64')})`;
const open = (sealed: string) => Buffer.from(/^sealed\((.*)\)$/.exec(sealed)![1], 'base64').toString();

describe('secret fill steps', () => {
  it('the parser takes secret: true or false on fill steps only, and refuses other values', () => {
    expect(parseSteps([{ type: 'fill', selector: '#p', value: 'pw', secret: true }])).toEqual([{ type: 'fill', selector: '#p', value: 'pw', secret: true }]);
    expect(parseSteps([{ type: 'fill', selector: '#p', value: 'pw', secret: false }])).toEqual([{ type: 'fill', selector: '#p', value: 'pw', secret: false }]);
    expect(() => parseSteps([{ type: 'fill', selector: '#p', value: 'pw', secret: 'yes' }])).toThrow(ValidationFailedError);
    expect(() => parseSteps([{ type: 'select', selector: '#p', value: 'de', secret: true }])).toThrow(ValidationFailedError);
  });

  it('answers show "********" for secret values only', () => {
    const steps: Step[] = [
      { type: 'fill', selector: '#user', value: 'alice' },
      { type: 'fill', selector: '#pw', value: 'hunter2', secret: true },
      { type: 'click', selector: '#go' },
    ];
    expect(maskStepSecrets(steps)).toEqual([steps[0], { type: 'fill', selector: '#pw', value: SECRET_MASK, secret: true }, steps[2]]);
    expect(SECRET_MASK).toBe('********');
  });

  it('stored steps hold the sealed value, never the plain one, and open back to the same steps', () => {
    const steps: Step[] = [
      { type: 'fill', selector: '#user', value: 'alice' },
      { type: 'fill', selector: '#pw', value: 'hunter2', secret: true },
    ];
    const stored = sealStepSecrets(steps, seal);
    expect(JSON.stringify(stored)).not.toContain('hunter2');
    expect(stored[1]).toEqual({ type: 'fill', selector: '#pw', secret: true, sealed_value: seal('hunter2') });
    expect(openStepSecrets(stored, open)).toEqual(steps);
  });

  describe('a "********" sent back keeps the stored value', () => {
    const stored: Step[] = [
      { type: 'fill', selector: '#pw', value: 'first', secret: true },
      { type: 'fill', selector: '#pw', value: 'second', secret: true },
      { type: 'fill', selector: '#pin', value: '1234', secret: true },
    ];

    it('matched by selector and order, so moved steps keep their own value', () => {
      const next: Step[] = [
        { type: 'fill', selector: '#pin', value: SECRET_MASK, secret: true },
        { type: 'click', selector: '#go' },
        { type: 'fill', selector: '#pw', value: SECRET_MASK, secret: true },
        { type: 'fill', selector: '#pw', value: 'new', secret: true },
      ];
      expect(keepStepSecrets(next, stored).map((s) => (s.type === 'fill' ? s.value : s.type))).toEqual(['1234', 'click', 'first', 'new']);
    });

    it('a mask with nothing stored behind it is a 422 naming the value, never typed as "********"', () => {
      const next: Step[] = [
        { type: 'fill', selector: '#other', value: SECRET_MASK, secret: true },
        { type: 'fill', selector: '#pin', value: SECRET_MASK, secret: true },
      ];
      expect(() => keepStepSecrets(next, stored)).toThrow(ValidationFailedError);
      try {
        keepStepSecrets(next, null);
      } catch (err) {
        expect((err as ValidationFailedError).details.map((d) => d.field)).toEqual(['steps[0].value', 'steps[1].value']);
      }
    });

    it('a fill that is not secret is typed as sent, "********" included, unless it is the mask of a stored secret', () => {
      const next: Step[] = [{ type: 'fill', selector: '#other', value: SECRET_MASK }];
      expect(keepStepSecrets(next, stored)).toEqual(next);
      expect(keepStepSecrets(next, null)).toEqual(next);
      // `secret` unchecked with the mask still there: neither the stored value made plain nor "********" typed.
      expect(() => keepStepSecrets([{ type: 'fill', selector: '#pw', value: SECRET_MASK, secret: false }], stored)).toThrow(ValidationFailedError);
      expect(keepStepSecrets([{ type: 'fill', selector: '#pw', value: 'plain now' }], stored)).toEqual([{ type: 'fill', selector: '#pw', value: 'plain now' }]);
    });
  });
});
