import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The fixtures of docs/otel.md: `<name>.json` (OTLP/JSON) and `<name>.pb` (the same request as protobuf). */
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export function fixture(name: string, encoding: 'json' | 'protobuf'): Buffer {
  return readFileSync(join(FIXTURES, `${name}.${encoding === 'json' ? 'json' : 'pb'}`));
}
