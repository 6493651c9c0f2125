import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderApiDocs } from '../server/api/docs';
import { allDomains, allErrorCatalogues } from '../server/domains';
import { actionsOf } from '../server/domain';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function currentApiDocs(): string {
  const preamble = readFileSync(path.join(root, 'docs/api-preamble.md'), 'utf8');
  const domains = allDomains();
  return renderApiDocs(actionsOf(domains), preamble, allErrorCatalogues(domains));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(path.join(root, 'docs/api.md'), currentApiDocs());
  process.stdout.write('wrote docs/api.md\n');
}
