import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { NotFoundError } from '../../../shared/domain/domain-error';
import { PageRequest } from '../../../shared/domain/page-request';
import { ScenarioChanges, ScenarioDraft, ScenarioProps } from '../domain/scenario';
import { ScenarioRepository } from '../application/ports';
import { findPage } from '../../../shared/persistence/hot-query';
import { ScenarioRow } from './scenario.row';

const toScenario = (row: ScenarioRow): ScenarioProps => ({ ...row, status: 'active' });

@Injectable()
export class TypeOrmScenarioRepository extends ScenarioRepository {
  constructor(@InjectRepository(ScenarioRow) private readonly rows: Repository<ScenarioRow>) {
    super();
  }

  async create(draft: ScenarioDraft, now: Date): Promise<ScenarioProps> {
    return toScenario(await this.rows.save(this.rows.create({ ...draft, createdAt: now, updatedAt: now })));
  }

  async findOwned(accountId: number, id: number): Promise<ScenarioProps | null> {
    const row = await this.rows.findOneBy({ id, accountId });
    return row ? toScenario(row) : null;
  }

  async findById(id: number): Promise<ScenarioProps | null> {
    const row = await this.rows.findOneBy({ id });
    return row ? toScenario(row) : null;
  }

  async list(accountId: number, page: PageRequest, filter: { websiteId?: number }) {
    const { rows, total } = await findPage(this.rows, { accountId, websiteId: filter.websiteId || undefined }, [['id', 'DESC']], page);
    return { items: rows.map(toScenario), total };
  }

  async update(id: number, changes: ScenarioChanges, now: Date): Promise<ScenarioProps> {
    await this.rows.update({ id }, { ...changes, steps: changes.steps, updatedAt: now });
    // Deleted between the caller's ownership check and here: the answer a moment later would be 404 too.
    const row = await this.rows.findOneBy({ id });
    if (!row) throw new NotFoundError('Scenario');
    return toScenario(row);
  }

  async delete(id: number): Promise<void> {
    await this.rows.delete({ id });
  }
}
