/**
 * Imported first by a bench that loads the service from source under ts-node: Node tries require's extensions in
 * the order they were registered (.js, .json, .node, then ts-node's .ts), so `shared/domain/devices` would load
 * devices.json instead of devices.ts. Registering .json again puts it after .ts, as the built dist/ has it (.js).
 */
import Module from 'node:module';

const extensions = (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
const json = extensions['.json'];
delete extensions['.json'];
extensions['.json'] = json;
