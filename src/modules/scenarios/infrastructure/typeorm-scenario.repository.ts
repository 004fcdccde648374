import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { PageRequest } from '../../../shared/domain/page-request';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { ScenarioChanges, ScenarioDraft, ScenarioProps } from '../domain/scenario';
import { openStepSecrets, sealStepSecrets, StoredStep } from '../domain/step-secrets';
import type { Step } from '../domain/steps';
import { ScenarioRepository } from '../application/ports';
import { findPage } from '../../../shared/persistence/hot-query';
import { ScenarioRow } from './scenario.row';

/** Scenarios in their table: secret fill values sealed in the row (never in plain text), opened when read. */
@Injectable()
export class TypeOrmScenarioRepository extends ScenarioRepository {
  constructor(
    @InjectRepository(ScenarioRow) private readonly rows: Repository<ScenarioRow>,
    private readonly secretBox: SecretBox,
  ) {
    super();
  }

  private readonly toScenario = (row: ScenarioRow): ScenarioProps => ({
    ...row,
    status: 'active',
    steps: openStepSecrets(row.steps, (sealed) => this.secretBox.open(sealed)),
  });

  private stored(steps: readonly Step[]): StoredStep[] {
    return sealStepSecrets(steps, (plain) => this.secretBox.seal(plain));
  }

  async create(draft: ScenarioDraft, now: Date): Promise<ScenarioProps> {
    return this.toScenario(await this.rows.save(this.rows.create({ ...draft, steps: this.stored(draft.steps), createdAt: now, updatedAt: now })));
  }

  async findOwned(accountId: number, id: number): Promise<ScenarioProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? this.toScenario(row) : null;
  }

  async findById(id: number): Promise<ScenarioProps | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? this.toScenario(row) : null;
  }

  async list(accountId: number, page: PageRequest, filter: { websiteId?: number }) {
    const { rows, total, edges } = await findPage(this.rows, { accountId, websiteId: filter.websiteId || undefined }, [['id', 'DESC']], page);
    return { items: rows.map(this.toScenario), total, edges };
  }

  async update(id: number, changes: ScenarioChanges, now: Date): Promise<ScenarioProps> {
    await this.rows.update({ id }, { ...changes, steps: changes.steps && this.stored(changes.steps), updatedAt: now });
    // Deleted between the caller's ownership check and here: the answer a moment later would be 404 too.
    const row = await this.rows.findOneBy({ id });
    if (!row) throw new NotFoundError('Scenario');
    return this.toScenario(row);
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }

  async usingSession(accountId: number, sessionId: number): Promise<Array<{ id: number; name: string }>> {
    const rows = await this.rows.find({ select: { id: true, name: true }, where: { accountId, sessionId }, order: { id: 'ASC' } });
    return rows.map((row) => ({ id: row.id, name: row.name }));
  }
}
