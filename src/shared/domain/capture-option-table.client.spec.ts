import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPTURE_OPTION_TABLE, type OptionScope } from './capture-option-table';

/**
 * The TypeScript client's types (clients/typescript/src/schema.ts) are generated from the OpenAPI document, which the
 * capture-option table feeds. The full comparison (`generate.mjs --check`) builds the whole document and runs in the
 * integration tier; this unit check is the fast half for the part that changes most: every option of the table is in
 * the client's type of each place it may be set, and the client has no option the table lost. A row added without
 * `npm run generate:client` fails here, in seconds.
 */
const SCHEMA = readFileSync(join(__dirname, '..', '..', '..', 'clients', 'typescript', 'src', 'schema.ts'), 'utf8');

/** The generated component type of each scope's body. */
const COMPONENT_OF: Record<OptionScope, string> = { request: 'TakeScreenshotDto', website: 'CaptureOptionsInput', render: 'RenderRequest' };

/** The top-level property names of one generated component (`    Name: { … };` at four spaces). */
function propertiesOf(component: string): Set<string> {
  const start = SCHEMA.indexOf(`\n    ${component}: {\n`);
  if (start === -1) throw new Error(`clients/typescript/src/schema.ts has no component ${component}`);
  const end = SCHEMA.indexOf('\n    };\n', start);
  const body = SCHEMA.slice(start, end);
  return new Set([...body.matchAll(/^ {6}([a-z_]+)\??:/gm)].map((m) => m[1]));
}

describe('the TypeScript client knows every capture option of the table', () => {
  for (const scope of Object.keys(COMPONENT_OF) as OptionScope[]) {
    it(`${COMPONENT_OF[scope]} (${scope}) has every option settable there`, () => {
      const properties = propertiesOf(COMPONENT_OF[scope]);
      const missing = CAPTURE_OPTION_TABLE.filter((spec) => (spec.setOn as readonly OptionScope[]).includes(scope)).map((spec) => spec.wire);
      expect(missing.filter((wire) => !properties.has(wire))).toEqual([]);
    });
  }

  it('the website’s capture_options type has no option the table does not have', () => {
    const wires = new Set<string>(CAPTURE_OPTION_TABLE.map((spec) => spec.wire));
    expect([...propertiesOf('CaptureOptionsInput')].filter((name) => !wires.has(name))).toEqual([]);
  });
});
