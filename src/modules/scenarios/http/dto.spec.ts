import { ArgumentMetadata } from '@nestjs/common';
import { NotFoundError, ValidationFailedError } from '../../../shared/domain/domain-error';
import { createValidationPipe } from '../../../shared/http/validation';
import { UrlPolicy } from '../../../shared/url-policy';
import { ScenariosService } from '../application/scenarios.service';
import { ScenarioProps } from '../domain/scenario';
import * as steps from '../domain/steps';
import { CreateScenarioDto, UpdateScenarioDto } from './dto';

// The parser, counted where the pipe and the service call it. A module mock rather than jest.spyOn on the module:
// the test transform (SWC) exports bindings as getters, which a spy cannot replace.
jest.mock('../domain/steps', () => {
  const actual = jest.requireActual<typeof import('../domain/steps')>('../domain/steps');
  return { ...actual, parseSteps: jest.fn(actual.parseSteps) };
});

/**
 * A request's steps are parsed once (issue 15): the validation pipe runs the step parser (AlsoChecks) only when
 * the DTO itself fails, and then the request ends there; otherwise the service parses them, once. Parsing stays in
 * the service so that its own order holds: an update of a missing scenario is a 404 whatever its steps are.
 */
describe('scenario bodies: steps parsed once per request', () => {
  const urlPolicy = new UrlPolicy({ allowPrivateNetworks: false, allowlist: [] });
  const pipe = createValidationPipe({ urlPolicy });
  const now = new Date('2026-01-01T00:00:00Z');
  const stored: ScenarioProps = {
    id: 7,
    accountId: 1,
    websiteId: 1,
    name: 's',
    description: null,
    status: 'active',
    steps: [{ type: 'click', selector: '#a' }],
    sessionId: null,
    createdAt: now,
    updatedAt: now,
  };
  const repository = {
    create: jest.fn((draft: object) => Promise.resolve({ ...stored, ...draft })),
    findOwned: jest.fn((_account: number, id: number) => Promise.resolve(id === stored.id ? stored : null)),
    update: jest.fn((_id: number, changes: object) => Promise.resolve({ ...stored, ...changes })),
  };
  const websites = { findOwned: jest.fn(() => Promise.resolve({ id: 1 })) };
  const clock = { now: () => now };
  const service = new ScenariosService(
    repository as never,
    websites as never,
    {} as never,
    {} as never,
    {} as never,
    urlPolicy,
    clock,
    {} as never,
    {} as never,
    {} as never,
  );
  const parse = jest.mocked(steps.parseSteps);

  beforeEach(() => jest.clearAllMocks());

  const asBody = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

  /** What the request would answer: the pipe's 422, else the service's result or error. */
  async function create(body: Record<string, unknown>): Promise<unknown> {
    try {
      const dto = (await pipe.transform(body, asBody(CreateScenarioDto))) as CreateScenarioDto;
      return await service.create(1, { name: dto.name, description: dto.description, websiteId: dto.website_id, steps: dto.steps });
    } catch (err) {
      return err;
    }
  }

  async function update(id: number, body: Record<string, unknown>): Promise<unknown> {
    try {
      const dto = (await pipe.transform(body, asBody(UpdateScenarioDto))) as UpdateScenarioDto;
      return await service.update(1, id, { name: dto.name, description: dto.description, websiteId: dto.website_id, steps: dto.steps });
    } catch (err) {
      return err;
    }
  }

  it('a valid body: parsed once (by the service), stored normalised', async () => {
    const result = await create({
      name: 's',
      website_id: 1,
      steps: [
        { type: 'click', selector: '  #a  ' },
        { type: 'scroll', to: 'BOTTOM' },
      ],
    });
    expect(parse).toHaveBeenCalledTimes(1);
    expect(result).toMatchObject({
      steps: [
        { type: 'click', selector: '#a' },
        { type: 'scroll', to: 'bottom' },
      ],
    });
  });

  it('a valid DTO with bad steps: parsed once (by the service), 422 naming the step fields', async () => {
    const result = await create({ name: 's', website_id: 1, steps: [{ type: 'click' }] });
    expect(parse).toHaveBeenCalledTimes(1);
    expect(result).toBeInstanceOf(ValidationFailedError);
    expect((result as ValidationFailedError).details).toEqual([{ field: 'steps[0].selector', message: 'steps[0].selector is required' }]);
    expect(repository.create).not.toHaveBeenCalled();
  });

  it('a failing DTO with bad steps: parsed once (by the pipe), one 422 naming both', async () => {
    const result = await create({ name: '', website_id: 1, steps: [{ type: 'click' }] });
    expect(parse).toHaveBeenCalledTimes(1);
    expect((result as ValidationFailedError).details).toEqual([
      { field: 'name', message: 'name should not be empty' },
      { field: 'steps[0].selector', message: 'steps[0].selector is required' },
    ]);
  });

  it('an update of a missing scenario is a 404 even with bad steps (parsing stays after the lookup)', async () => {
    expect(await update(99, { steps: [{ type: 'click' }] })).toBeInstanceOf(NotFoundError);
    expect(parse).not.toHaveBeenCalled();
  });

  it('an update with steps: parsed once', async () => {
    const result = await update(stored.id, { steps: [{ type: 'press', key: 'enter' }] });
    expect(parse).toHaveBeenCalledTimes(1);
    expect(result).toMatchObject({ steps: [{ type: 'press', key: 'Enter' }] });
  });
});
